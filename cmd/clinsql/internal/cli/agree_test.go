package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm/llmtest"
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

// TestAgreeLabels measures two judge outputs of the fixture run against a
// label set built from their disagreements: the judge folder (code checks
// with the grading replayed) and the grading itself. Each code/recorded
// disagreement is labelled with the recorded verdict, so every code
// decision of one is wrong and every recorded one right; one SQL leaf is
// labelled against its replayed verdict and one leaf is arguable.
func TestAgreeLabels(t *testing.T) {
	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	judged := filepath.Join(dir, "judged")
	if code, _, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", judged, "--judge", "replay:"+grading); code != 0 {
		t.Fatalf("judge: exit %d: %s", code, stderr)
	}
	agree := filepath.Join(dir, "agree")
	if code, _, stderr := runCLI(t, dir, "agree", judged, grading, "--tasks", dir, "--out", agree); code != 0 {
		t.Fatalf("agree: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(agree, "disagreements.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var labels []labelset.Label
	label := func(task, tree, leaf, verdict string) {
		k, err := datasets.ParseKey(task)
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, labelset.Label{Key: k, Model: "fixture-model", Tree: tree, Leaf: leaf, Label: verdict,
			Rationale: "the fixture's label for " + leaf, Chosen: labelset.Disagreement, Seed: 1, Stratum: "disagreement/fixture/m",
			Population: 20, Drawn: 10})
	}
	disagreements := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
	for _, l := range disagreements {
		f := strings.Split(l, "\t") // model task tree leaf kind result a a_source b b_source
		label(f[1], f[2], f[3], f[8])
	}
	// A SQL leaf the replay passed, labelled fail: the replay is wrong, and
	// so is the grading it replays.
	sqlTask, sqlLeaf := firstReplayedSQLPass(t, filepath.Join(judged, "ledger.jsonl"))
	label(sqlTask, "sql", sqlLeaf, labelset.Fail)
	labels[0].Label = labelset.Arguable
	file := filepath.Join(dir, "labels.jsonl")
	writeLabels(t, file, labels)
	out := filepath.Join(dir, "accuracy")
	code, stdout, stderr := runCLI(t, dir, "agree", "--labels", file, judged, grading, "--tasks", dir, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "agree-labels.stdout", stdout)
	checkAccuracy(t, out, judged, grading, len(disagreements))
	wrong, err := os.ReadFile(filepath.Join(out, "wrong.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if got, n := strings.Count(string(wrong), "\n")-1, len(disagreements); got != n+1 {
		t.Errorf("wrong.tsv: %d rows, want %d (the judge folder's %d and the grading's 1):\n%s", got, n+1, n, wrong)
	}
	if !strings.Contains(string(wrong), "the fixture's label for "+sqlLeaf) {
		t.Errorf("wrong.tsv lacks the label's rationale:\n%s", wrong)
	}

	// A recorded grading does not say which answers have a result: --run
	// (a run folder named after its model) does.
	named := filepath.Join(dir, "fixture-model")
	if err := os.Symlink(runDir, named); err != nil {
		t.Fatal(err)
	}
	withRun := filepath.Join(dir, "accuracy-run")
	if code, _, stderr := runCLI(t, dir, "agree", "--labels", file, grading, "--run", named, "--out", withRun); code != 0 {
		t.Fatalf("--run: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(withRun, "accuracy.tsv")); err != nil || !strings.Contains(string(b), "\twith result\tsource=recorded\t") {
		t.Errorf("--run gives the grading no with-result rows (%v):\n%s", err, b)
	}
	checkLLMJudgeAccuracy(t, dir, runDir, file, labels)

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"agree", "--labels", file}, 2, "want at least one judge output"},
		{[]string{"agree", "--labels", filepath.Join(dir, "none.jsonl"), judged}, 1, "none.jsonl"},
		{[]string{"agree", "--labels", grading, judged}, 1, "detailed_grading.json:1"},
	} {
		code, _, stderr := runCLI(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args[1:], code, stderr, tc.code, tc.want)
		}
	}
	// Labels of another model are refused, not measured as nothing.
	for i := range labels {
		labels[i].Model = "another-model"
	}
	writeLabels(t, file, labels)
	if code, _, stderr := runCLI(t, dir, "agree", "--labels", file, judged); code != 1 || !strings.Contains(stderr, "judges none of the") || !strings.Contains(stderr, "another-model") {
		t.Errorf("another model's labels: exit %d, %s", code, stderr)
	}
}

// writeLabels writes a label set to file.
func writeLabels(t *testing.T, file string, labels []labelset.Label) {
	t.Helper()
	var lb bytes.Buffer
	if err := labelset.Write(&lb, labels, false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, lb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkAccuracy checks accuracy.tsv in out: the code is wrong on every
// one of the n disagreements but the arguable one, the replayed SQL leaf
// is wrong too, and the recorded grading only on that leaf.
func checkAccuracy(t *testing.T, out, judged, grading string, n int) {
	t.Helper()
	acc, err := os.ReadFile(filepath.Join(out, "accuracy.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(acc)), "\n")[1:] {
		f := strings.Split(l, "\t")
		rows[f[0]+"|"+f[1]+"|"+f[2]] = f
	}
	// judge answers slice labelled arguable undecided decided tp tf fp ff
	for _, tc := range []struct {
		judge, slice       string
		labelled, arguable int
		wrong              int
	}{
		{judged, "all", n + 1, 1, n},
		{judged, "source=code", n, 1, n - 1},
		{judged, "source=replay", 1, 0, 1},
		{grading, "source=recorded", n + 1, 1, 1},
	} {
		f := rows[tc.judge+"|all|"+tc.slice]
		if f == nil {
			t.Errorf("%s %s: no row in\n%s", tc.judge, tc.slice, acc)
			continue
		}
		if f[3] != fmt.Sprint(tc.labelled) || f[4] != fmt.Sprint(tc.arguable) || f[6] != fmt.Sprint(tc.labelled-tc.arguable) {
			t.Errorf("%s %s: labelled/arguable/decided %v, want %d %d %d", tc.judge, tc.slice, f[3:7], tc.labelled, tc.arguable, tc.labelled-tc.arguable)
		}
		if wrong, _ := strconv.Atoi(f[9]); func() int { w, _ := strconv.Atoi(f[10]); return wrong + w }() != tc.wrong {
			t.Errorf("%s %s: false pass %s + false fail %s, want %d wrong", tc.judge, tc.slice, f[9], f[10], tc.wrong)
		}
	}
}

// checkLLMJudgeAccuracy: a model judge through the fake endpoint (code
// checks on, no leaf skipped) that passes every leaf it is asked about:
// its llm rows hold no false fail, and a false pass for each fail label
// among the leaves it decided.
func checkLLMJudgeAccuracy(t *testing.T, dir, runDir, file string, labels []labelset.Label) {
	t.Helper()
	srv := llmtest.Start(t, fakeJudge(func(string) string { return "pass" }), llmtest.Options{APIKey: "secret"})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	llmOut := filepath.Join(dir, "llm-judged")
	if code, _, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", llmOut, "--judge-config", cfg, "--skip=false"); code != 0 {
		t.Fatalf("llm judge: exit %d: %s", code, stderr)
	}
	llmLedger, err := judgefmt.ReadLedger(filepath.Join(llmOut, judgefmt.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	byLeaf := map[string]judgefmt.Source{}
	for k, r := range llmLedger.Last() {
		byLeaf[k.Task+"|"+string(k.Tree)+"|"+k.Leaf] = r.Source
	}
	llmLabelled, llmFails := 0, 0
	for _, l := range labels {
		if byLeaf[l.Key.String()+"|"+l.Tree+"|"+l.Leaf] == judgefmt.SourceLLM && l.Label != labelset.Arguable {
			llmLabelled++
			if l.Label == labelset.Fail {
				llmFails++
			}
		}
	}
	llmAcc := filepath.Join(dir, "llm-accuracy")
	if code, _, stderr := runCLI(t, dir, "agree", "--labels", file, llmOut, "--out", llmAcc); code != 0 {
		t.Fatalf("agree --labels on the llm judge: exit %d: %s", code, stderr)
	}
	acc2, err := os.ReadFile(filepath.Join(llmAcc, "accuracy.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var llmRow []string
	for _, l := range strings.Split(string(acc2), "\n") {
		if f := strings.Split(l, "\t"); len(f) > 10 && f[1] == "all" && f[2] == "source=llm" {
			llmRow = f
		}
	}
	if llmLabelled == 0 {
		t.Fatalf("no labelled leaf decided by the llm judge; ledger sources: %v", byLeaf)
	}
	if llmRow == nil || llmRow[6] != fmt.Sprint(llmLabelled) || llmRow[9] != fmt.Sprint(llmFails) || llmRow[10] != "0" {
		t.Errorf("source=llm row %v: want %d decided, %d false pass, 0 false fail\n%s", llmRow, llmLabelled, llmFails, acc2)
	}
}

// firstReplayedSQLPass is the SQL leaf a ledger records as a replayed
// pass, the first in (task, leaf) order: the ledger's order is the order
// the leaves were decided in, which the tasks judged at once change.
func firstReplayedSQLPass(t *testing.T, ledger string) (task, leaf string) {
	t.Helper()
	b, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"source":"replay"`) && strings.Contains(l, `"verdict":"pass"`) && strings.Contains(l, `"tree":"sql"`) {
			var r struct{ Task, Leaf string }
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			if leaf == "" || r.Task < task || r.Task == task && r.Leaf < leaf {
				task, leaf = r.Task, r.Leaf
			}
		}
	}
	if leaf == "" {
		t.Fatal("no replayed SQL pass in the ledger")
	}
	return task, leaf
}
