package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/runfolder"
)

// fixtureRun writes the generated ClinSQL tasks and a model run for them
// in the reference inference layout: every task answered with its gold SQL
// and result, except Lab/001 whose query failed (placeholder CSV). It
// returns the tasks folder, the run folder and the paired items.
func fixtureRun(t testing.TB) (string, string, []Item) {
	t.Helper()
	root := t.TempDir()
	splits, err := fixtures.WriteClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(root, "run")
	for _, ft := range fixtures.Tasks() {
		dir := filepath.Join(run, ft.Path())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		sum := runfolder.ExecutionSummary{Query: ft.Question, FinalSQL: ft.SQL, ExecutionSuccess: true, RowCount: 1, Model: "fixture-model"}
		csv := ft.Result
		if ft.Domain == "Laboratory_Results_Analysis" {
			msg := "400 Unrecognized name: valuenum at [3:5]"
			sum.ExecutionSuccess, sum.RowCount, sum.FinalError = false, 0, &msg
			csv = "result\n\"\"\n"
		}
		b, _ := json.MarshalIndent(sum, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, runfolder.ExecutionSummaryFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, datasets.GoldResultFile(ft.ID)), []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := datasets.LoadClinSQL(splits)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := runfolder.LoadOutputs(run)
	if err != nil {
		t.Fatal(err)
	}
	items, err := Pair(tasks, outs, run)
	if err != nil {
		t.Fatal(err)
	}
	return splits, run, items
}

// requirementOf extracts the graded requirement from a judge prompt.
func requirementOf(prompt string) string {
	_, rest, ok := strings.Cut(prompt, "## Requirement to grade\n")
	if !ok {
		return ""
	}
	req, _, _ := strings.Cut(rest, "\n")
	return req
}

// hashVerdict is a deterministic stand-in judge: it fails about a third
// of the requirements, chosen by a hash of their text.
func hashVerdict(req string) string {
	h := fnv.New32a()
	h.Write([]byte(req))
	if h.Sum32()%3 == 0 {
		return "fail"
	}
	return "pass"
}

// groupRequirements extracts the graded requirements of a group prompt:
// id and first line, in prompt order.
func groupRequirements(prompt string) (ids, reqs []string) {
	_, rest, ok := strings.Cut(prompt, "## Requirements to grade\n")
	if !ok {
		return nil, nil
	}
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimLeft(line, " ")
		if !strings.HasPrefix(line, "- [") {
			continue
		}
		id, req, ok := strings.Cut(line[3:], "] ")
		if ok {
			ids = append(ids, id)
			reqs = append(reqs, req)
		}
	}
	return ids, reqs
}

// verdictReply answers a judge prompt with a well-formed verdict, or a
// group prompt with a well-formed verdict per requirement: a leaf gets
// the same verdict alone or in a group.
func verdictReply(decide func(req string) string) llmtest.Handler {
	return func(c *llmtest.Call) llmtest.Reply {
		if ids, reqs := groupRequirements(c.LastUser()); ids != nil {
			out := map[string]map[string]string{}
			for i, id := range ids {
				out[id] = map[string]string{"reasoning": "stand-in judge on: " + reqs[i], "verdict": decide(reqs[i])}
			}
			return llmtest.JSON(out)
		}
		req := requirementOf(c.LastUser())
		return llmtest.JSON(map[string]string{"reasoning": "stand-in judge on: " + req, "verdict": decide(req)})
	}
}

// testEndpoint is an endpoint of srv with quick timeouts.
func testEndpoint(srv *llmtest.Server, mod func(*llm.Endpoint)) llm.Endpoint {
	ep := llm.Endpoint{
		Name: "fake-judge", Kind: llm.KindOpenAI, BaseURL: srv.OpenAIBaseURL(), Model: "judge-test", APIKeyEnv: "JUDGE_TEST_KEY",
		Sampling:     llmfmt.Sampling{Temperature: new(0.0), MaxTokens: 300},
		Capabilities: llm.Capabilities{JSONSchema: true},
		Limits:       llm.Limits{Concurrency: 4, Timeout: 5 * time.Second},
		Retry:        llm.Retry{MaxAttempts: 3, Budget: time.Hour, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond},
	}
	if mod != nil {
		mod(&ep)
	}
	return ep
}

func testGetenv(string) string { return "test-key" }

// newTestJudge returns an LLM judge over srv.
func newTestJudge(t testing.TB, srv *llmtest.Server, mod func(*llm.Endpoint), opts llm.Options, samples int) *LLMJudge {
	t.Helper()
	opts.Getenv = testGetenv
	c, err := llm.New(testEndpoint(srv, mod), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	j, err := NewLLMJudge(c, LLMOptions{Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// openLedger opens a ledger in dir with the settings of opts.
func openLedger(t testing.TB, dir string, opts Options) *judgefmt.Ledger {
	t.Helper()
	h := judgefmt.LedgerHeader{Mode: opts.Mode, CodeChecks: opts.CodeChecks, Skipping: opts.Skipping, ReferenceGuided: opts.ReferenceGuided, Samples: 1,
		Group: string(opts.Group), GroupGated: opts.GroupGated}
	if opts.Backend != nil {
		h.Judge = opts.Backend.Name()
		if s, ok := opts.Backend.(interface{ Samples() int }); ok {
			h.Samples = s.Samples()
		}
	}
	l, err := judgefmt.OpenLedger(filepath.Join(dir, judgefmt.LedgerFile), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// leafCount is the number of leaves of every item's two trees.
func leafCount(items []Item) int {
	n := 0
	for _, it := range items {
		n += len(it.Task.SQLRubric.Root.Leaves()) + len(it.Task.ResultsRubric.Root.Leaves())
	}
	return n
}

func mustRun(t testing.TB, items []Item, l *judgefmt.Ledger, opts Options) *Outcome {
	t.Helper()
	o, err := Run(context.Background(), items, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func describe(r *judgefmt.Record) string {
	return fmt.Sprintf("%s %s:%s %s by %s (%s)", r.Task, r.Tree, r.Leaf, r.Verdict, r.Source, r.Explanation)
}

// itemIn returns the item of the given domain.
func itemIn(t testing.TB, items []Item, domain string) Item {
	t.Helper()
	for _, it := range items {
		if it.Task.Domain == domain {
			return it
		}
	}
	t.Fatalf("no item in %s", domain)
	return Item{}
}
