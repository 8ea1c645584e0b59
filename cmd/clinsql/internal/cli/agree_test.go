package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgree judges the fixture run by replaying its grading (code checks
// on) and measures the agreement of that judge folder with the grading:
// replayed leaves agree by construction, code-decided leaves are where the
// two may differ, skipped leaves do not pair.
func TestAgree(t *testing.T) {
	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	judged := filepath.Join(dir, "judged")
	if code, _, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", judged, "--judge", "replay:"+grading); code != 0 {
		t.Fatalf("judge: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "agree")
	code, stdout, stderr := runCLI(t, dir, "agree", judged, grading, "--tasks", dir, "--out", out, "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "agree.stdout", stdout)
	b, err := os.ReadFile(filepath.Join(out, "disagreements.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if !strings.HasPrefix(lines[0], "model\ttask\ttree\tleaf\tkind\tresult\ta\ta_source\tb\tb_source") {
		t.Errorf("header %q", lines[0])
	}
	for _, l := range lines[1:] {
		if f := strings.Split(l, "\t"); len(f) != 12 || f[7] != "code" || f[9] != "recorded" || f[6] == f[8] {
			t.Errorf("disagreement %q: want a code decision against a recorded one, differing", l)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "agreement.tsv")); err != nil {
		t.Error(err)
	}

	// A folder of model folders (the released evaluation layout) pairs by
	// model name; a ledger file alone works too.
	evaluation := filepath.Join(dir, "evaluation")
	if err := os.MkdirAll(filepath.Join(evaluation, "fixture-model", "validation"), 0o755); err != nil {
		t.Fatal(err)
	}
	if g, err := os.ReadFile(grading); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(evaluation, "fixture-model", "validation", "detailed_grading.json"), g, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout2, stderr := runCLI(t, dir, "agree", filepath.Join(judged, "ledger.jsonl"), evaluation, "--tasks", dir, "--seed", "3")
	if code != 0 {
		t.Fatalf("ledger against folder: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout2, "model fixture-model") || !strings.Contains(stdout2, "10 disagreement(s)") {
		t.Errorf("ledger against folder:\n%s", stdout2)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"agree", judged}, 2, "want two judge outputs A and B, got 1"},
		{[]string{"agree", judged, grading, grading}, 2, "got 3"},
		{[]string{"agree", judged, grading, "--resamples", "1"}, 2, "--resamples 1"},
		{[]string{"agree", judged, filepath.Join(dir, "missing")}, 1, "missing"},
		{[]string{"agree", judged, runDir}, 1, "no ledger.jsonl or detailed_grading.json"},
		// The same model twice on one side is refused, not merged.
		{[]string{"agree", judged, dir}, 1, `model "fixture-model" already read from another file`},
	} {
		code, _, stderr := runCLI(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args[1:], code, stderr, tc.code, tc.want)
		}
	}
}
