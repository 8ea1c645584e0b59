package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/audit"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestAuditCodeOnlyFixtures: the code-only audit of the generated tasks,
// its summary and files.
func TestAuditCodeOnlyFixtures(t *testing.T) {
	dir, grading := fixtureRun(t)
	out := filepath.Join(dir, "audit")
	code, stdout, stderr := runCLI(t, dir, "audit", "--tasks", dir, "--out", out, "--code-only")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "audit_fixtures.stdout", stdout)
	r, err := audit.ReadJSON(filepath.Join(out, audit.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Missed) != 0 {
		t.Errorf("missed fails on the fixtures: %+v", r.Missed)
	}
	for _, f := range []string{audit.MarkdownFile, audit.CSVFile, audit.FailuresCSV, audit.LintCSV} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	rep := filepath.Join(dir, "report")
	if code, _, stderr := runCLI(t, dir, "report", "--tasks", dir, "--grading", grading, "--out", rep, "--audit", out); code != 0 {
		t.Fatalf("report --audit: exit %d: %s", code, stderr)
	}
	html, err := os.ReadFile(filepath.Join(rep, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<a href="#audit">Judge audit</a>`, `<section id="audit">`, "<h2>Judge audit: code</h2>",
		"<tr><td>gold</td><td class=\"num\">4</td><td class=\"num\">43</td><td class=\"num\">23</td><td class=\"num\">0</td><td class=\"num\">0</td><td class=\"num\">20</td></tr>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if code, _, stderr := runCLI(t, dir, "report", "--tasks", dir, "--grading", grading, "--out", rep, "--audit", dir); code == 0 || !strings.Contains(stderr, "--audit") {
		t.Errorf("--audit without audit.json: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, dir, "audit", "--tasks", dir, "--out", out); code != 2 || !strings.Contains(stderr, "--code-only") {
		t.Errorf("no judge given: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, dir, "audit", "--tasks", dir, "--out", out, "--code-only", "--mutations", "scale3"); code != 2 || !strings.Contains(stderr, `unknown mutation "scale3"`) {
		t.Errorf("unknown mutation: exit %d, %s", code, stderr)
	}
}

// TestAuditLLM20 audits the judge engine with an LLM judge on 20
// validation tasks against the fake endpoint, a judge that passes every
// leaf: it makes no false fail on gold and misses every failure it is
// asked about. The cost is estimated first and shown with the budget, and
// a second run is served by the ledgers: no new call.
func TestAuditLLM20(t *testing.T) {
	tasks := shared.Path(t, "clinsql-data", "data", "splits", "validation")
	dir := t.TempDir()
	srv := llmtest.Start(t, fakeJudge(func(string) string { return "pass" }), llmtest.Options{APIKey: "secret"})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	out := filepath.Join(dir, "audit")
	sample := len(testrace.Part(t, make([]int, 20), 4)) // 5 tasks under the race detector
	args := []string{"audit", "--tasks", tasks, "--out", out, "--judge-config", cfg, "--sample", strconv.Itoa(sample), "--mutations", "results", "--budget", "100000"}
	code, stdout, stderr := runWithKey(t, dir, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "audit estimate: at most") || !strings.Contains(stderr, "budget $100000") {
		t.Errorf("no estimate with the budget before the calls:\n%s", stderr)
	}
	if !strings.Contains(stdout, "cost: estimated $") || !strings.Contains(stdout, "budget $100000") {
		t.Errorf("no cost and budget in the summary:\n%s", stdout)
	}
	t.Logf("%s", stdout)
	r, err := audit.ReadJSON(filepath.Join(out, audit.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if r.Tasks != sample || r.Cost == nil || r.Cost.Calls == 0 || r.Cost.SpentUSD <= 0 || r.Cost.SpentUSD > r.Cost.EstimatedUSD || r.Cost.Calls > r.Cost.EstimatedCall {
		t.Fatalf("tasks %d, cost %+v", r.Tasks, r.Cost)
	}
	if r.Cost.Calls != srv.Calls() {
		t.Errorf("cost counts %d calls, the endpoint saw %d", r.Cost.Calls, srv.Calls())
	}
	llmGold, llmMissed := 0, 0
	for _, row := range r.Rows {
		if row.Mutation == audit.Gold {
			llmGold += row.Decided["llm"]
			if row.Wrong["llm"] != 0 {
				t.Errorf("an always-pass judge failed gold leaves: %+v", row)
			}
			continue
		}
		if row.Wrong["llm"] != row.Decided["llm"] {
			t.Errorf("an always-pass judge passed every leaf that must fail, the audit counts otherwise: %+v", row)
		}
		llmMissed += row.Wrong["llm"]
	}
	if llmGold == 0 || llmMissed == 0 {
		t.Errorf("llm decided %d gold leaves and missed %d fails: the audit did not reach the LLM", llmGold, llmMissed)
	}
	calls := srv.Calls()
	if code, _, stderr := runWithKey(t, dir, args...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	if srv.Calls() != calls {
		t.Errorf("the second run called the endpoint %d more times", srv.Calls()-calls)
	}
}

// TestAuditSQLMutations runs the SQL mutations of the generated tasks on
// the mini database: the changed gold SQL runs, and the SQL leaves stating
// the changed gender or ages are testable; code decides no SQL leaf of an
// answer with SQL, so none is decided.
func TestAuditSQLMutations(t *testing.T) {
	db := buildMini(t)
	dir, _ := fixtureRun(t)
	out := filepath.Join(dir, "audit")
	code, stdout, stderr := runCLI(t, dir, "audit", "--tasks", dir, "--out", out, "--code-only", "--mutations", "sql", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := audit.ReadJSON(filepath.Join(out, audit.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	tot := r.Totals()
	// The generated tasks' SQL has no ICD pattern: sql-icd builds nothing.
	applies := map[string]bool{audit.SQLGender: true, audit.SQLAge: true, audit.SQLJoin: true}
	for _, m := range audit.SQLMutations {
		if (tot[m].Answers == 0 || tot[m].Testable == 0) == applies[m] || tot[m].Decided != 0 || tot[m].Undecided != tot[m].Testable {
			t.Errorf("%s: %+v", m, tot[m])
		}
		if want := fmt.Sprintf("%s: %d tasks' gold SQL changed, %d of them ran on the engine", m, tot[m].Answers, tot[m].Answers); !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
