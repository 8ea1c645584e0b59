package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
)

// TestTaskWarningsWhereTheyMatter: a rubric key the parser ignores (the
// released validation split has one, a leaf's "sequential_order") is said
// by the commands that score (judge, report, rescore), once per command
// even when clinsql run judges and then reports, for the tasks scored
// only; not by generate or exec, which never aggregate a rubric, nor for
// a subset without the task. It used to be printed by every command that
// loaded the tasks, and twice by run.
func TestTaskWarningsWhereTheyMatter(t *testing.T) {
	db, root := miniLoop(t)
	first := fixtures.Tasks()[0]
	other := filepath.ToSlash(fixtures.Tasks()[1].Path())
	rubricFile := filepath.Join(root, "data", "splits", first.Path(), "sql_rubric_tree.json")
	b, err := os.ReadFile(rubricFile)
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	leaf := tree["sub_tasks"].([]any)[0].(map[string]any)["sub_tasks"].([]any)[1].(map[string]any)
	leaf["sequential_order"] = false // as released: a misspelt "sequential" on a leaf
	if b, err = json.Marshal(tree); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rubricFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const warning = `sub_tasks[0].sub_tasks[1]: unknown key "sequential_order" ignored`
	count := func(step, stderr string, want int) {
		t.Helper()
		if n := strings.Count(stderr, warning); n != want {
			t.Errorf("%s: the warning printed %d times, want %d:\n%s", step, n, want, stderr)
		}
	}

	out := filepath.Join(t.TempDir(), "runs")
	code, stdout, stderr := runCLI(t, "", "generate", "--model", "mock/demo", "--tasks", root, "--db", db, "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("generate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	count("generate", stderr, 0)
	run := filepath.Join(out, "demo")
	code, stdout, stderr = runCLI(t, "", "exec", "--db", db, "--tasks", root, "--run", run, "--out", filepath.Join(t.TempDir(), "again"))
	if code != 0 {
		t.Fatalf("exec: exit %d\n%s\n%s", code, stdout, stderr)
	}
	count("exec", stderr, 0)
	code, stdout, stderr = runCLI(t, "", "judge", "--tasks", root, "--run", run, "--judge", "mock/demo", "--task", other, "--out", filepath.Join(t.TempDir(), "one"))
	if code != 0 {
		t.Fatalf("judge --task: exit %d\n%s\n%s", code, stdout, stderr)
	}
	count("judge of another task", stderr, 0)
	code, stdout, stderr = runCLI(t, "", "judge", "--tasks", root, "--run", run, "--judge", "mock/demo")
	if code != 0 {
		t.Fatalf("judge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	count("judge", stderr, 1)
	code, stdout, stderr = runCLI(t, "", "report", "--tasks", root, "--run", run, "--out", filepath.Join(t.TempDir(), "report"), "--resamples", "20")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	count("report", stderr, 1)
	code, stdout, stderr = runCLI(t, "", "run", "--model", "mock/demo", "--judge", "mock/demo", "--tasks", root, "--db", db,
		"--out", filepath.Join(t.TempDir(), "trial"), "--quiet")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	count("run", stderr, 1)
}
