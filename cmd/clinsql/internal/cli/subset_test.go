package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor/batch"
	"github.com/clinsql/clinsql/internal/fixtures"
)

// TestSubsets: exec runs exactly the one task folder it is given, judge
// judges exactly the --task it is given (not "no task ... in the task
// folder" for every other task of the run), and both say it is a subset.
func TestSubsets(t *testing.T) {
	db := buildMini(t)
	root := t.TempDir()
	splits, err := fixtures.WriteClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	ft := fixtures.Tasks()[1]
	key := ft.Split + "/" + ft.Domain + "/" + ft.Level + "/" + ft.ID
	out := filepath.Join(t.TempDir(), "gold")
	code, _, stderr := runCLI(t, "", "exec", "--db", db, "--tasks", filepath.Join(splits, key), "--gold", "--out", out)
	if code != 0 {
		t.Fatalf("exec one task folder: exit %d: %s", code, stderr)
	}
	sum := readSummary(t, out)
	if sum.Total != 1 || len(sum.Outcomes) != 1 || sum.Outcomes[0].Task != key || !strings.Contains(sum.Subset, "(one task)") {
		t.Errorf("exec one task folder: total %d, subset %q, outcomes %+v", sum.Total, sum.Subset, sum.Outcomes)
	}
	if !strings.Contains(stderr, "subset: 1 tasks") {
		t.Errorf("exec does not say it ran a subset: %s", stderr)
	}
	// The filters: --domain with --difficulty, and a bad value named.
	code, _, stderr = runCLI(t, "", "exec", "--db", db, "--tasks", root, "--gold", "--out", t.TempDir(), "--domain", ft.Domain, "--limit", "1")
	if code != 0 || !strings.Contains(stderr, "subset: 1 tasks (--domain "+ft.Domain+" --limit 1)") {
		t.Errorf("--domain --limit: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "exec", "--db", db, "--tasks", root, "--gold", "--out", t.TempDir(), "--domain", "Cardiology")
	if code != 1 || !strings.Contains(stderr, "--domain Cardiology: no such domain") {
		t.Errorf("unknown domain: exit %d: %s", code, stderr)
	}

	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	jout := filepath.Join(dir, "judged")
	code, stdout, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--task", key, "--run", runDir, "--out", jout, "--judge", "replay:"+grading)
	if code != 0 {
		t.Fatalf("judge --task: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(jout, "scoring_results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"total_samples": 1,`) || !strings.Contains(string(b), "/"+key+`"`) {
		t.Errorf("judge --task %s scored other tasks:\n%s", key, b)
	}
	if !strings.Contains(stderr, "subset: 1 tasks (--task "+key+")") {
		t.Errorf("judge does not say it judged a subset:\n%s\n%s", stdout, stderr)
	}
}

// readSummary reads exec --tasks's summary.json from out.
func readSummary(t *testing.T, out string) batch.Summary {
	t.Helper()
	var sum batch.Summary
	b, err := os.ReadFile(filepath.Join(out, batch.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}
