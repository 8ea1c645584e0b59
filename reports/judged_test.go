package reports

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// judgeFixtureRun judges a fixture run folder's validation split with clinsql
// judge's engine as `clinsql judge` does (code checks, gate-aware skipping,
// the replay backend over the model's recorded decisions), writing the
// ledger and the outputs into <run>/judge/.
func judgeFixtureRun(t *testing.T, fs *fixtureSet, run, grading string, mode rubric.Mode) *judgefmt.Summary {
	t.Helper()
	outs, err := runfolder.LoadOutputs(run)
	must(t, err)
	var val []*runfolder.Output
	for _, o := range outs {
		if o.Key.Split == "validation" {
			val = append(val, o)
		}
	}
	items, err := judge.Pair(fs.tasks, val, run)
	must(t, err)
	rp, err := judge.NewReplay(grading)
	must(t, err)
	dir := filepath.Join(run, runfolder.JudgeDir)
	must(t, os.MkdirAll(dir, 0o755))
	l, err := judgefmt.OpenLedger(filepath.Join(dir, judgefmt.LedgerFile), judgefmt.LedgerHeader{Mode: mode, Judge: rp.Name(), CodeChecks: true, Skipping: true, Samples: 1}, nil)
	must(t, err)
	o, err := judge.Run(context.Background(), items, l, judge.Options{Mode: mode, Backend: rp, CodeChecks: true, Skipping: true})
	must(t, err)
	must(t, l.Close())
	sc := judge.Score(o, runfolder.ModelName(val, "judged"))
	// The answers judged, as clinsql judge records them.
	rr, err := runfolder.Load(run)
	must(t, err)
	id, err := rr.Identity()
	must(t, err)
	sc.Summary.Run = &id
	must(t, sc.WriteFiles(dir, o))
	return sc.Summary
}

// TestJudgedRunChanged (issue 25 #5): a result CSV changed after the run
// was judged is refused by report, never shown beside the verdicts made
// on the old one.
func TestJudgedRunChanged(t *testing.T) {
	fs := writeFixtureSet(t)
	judgeFixtureRun(t, fs, fs.runs[1], fs.gradings[2], rubric.Strict)
	outs, err := runfolder.LoadOutputs(fs.runs[1])
	must(t, err)
	var changed string
	for _, o := range outs {
		if p := o.ResultCSV; p != "" && o.Key.Split == "validation" {
			changed = p
			break
		}
	}
	if changed == "" {
		t.Fatal("no result CSV in the fixture run")
	}
	must(t, os.WriteFile(changed, []byte("x\n42\n"), 0o644))
	_, err = Build(context.Background(), Options{Tasks: fs.tasks, Gradings: fs.gradings, Runs: fs.runs, Bootstrap: Bootstrap{Seed: 7, Resamples: 20}})
	if err == nil || !strings.Contains(err.Error(), "was made on other answers") {
		t.Fatalf("report of a run changed after judging: %v; want it refused", err)
	}
}

func TestJudgedRun(t *testing.T) {
	fs := writeFixtureSet(t)
	// beta-coder's run, judged in strict mode from its validation decisions.
	sum := judgeFixtureRun(t, fs, fs.runs[1], fs.gradings[2], rubric.Strict)
	r, err := Build(context.Background(), Options{Tasks: fs.tasks, Gradings: fs.gradings, Runs: fs.runs, Bootstrap: Bootstrap{Seed: 7, Resamples: 200}})
	must(t, err)
	// The recorded grading and the judged run are two entries of one model.
	judged := r.Model("beta-coder (judge)")
	if judged == nil || judged.Run != fs.runs[1] || !judged.fromJudge || judged.Judge == nil {
		t.Fatalf("models %v; judged %+v", r.ModelNames(), judged)
	}
	if recorded := r.Model("beta-coder"); recorded == nil || recorded.Run != "" {
		t.Errorf("the recorded beta-coder should keep no run: the run went to its judged entry")
	}
	// Scores rescored from the judge's detailed_grading.json equal the
	// judge's own.
	c := r.Board(rubric.Strict, "beta-coder (judge)").Cell("validation", All, All)
	want := sum.Splits["validation"]
	if c == nil || c.N != want.Tasks || scoring.Round6(c.SQL.Mean) != want.AverageSQLScore || scoring.Round6(c.Exec.Mean) != want.AverageResultsScore {
		t.Errorf("strict cell %+v, judge summary %+v", c, want)
	}
	// Leaf sources and health come from the ledger and judge_summary.json.
	var h HealthRow
	for _, x := range r.Health {
		if x.Model == "beta-coder (judge)" {
			h = x
		}
	}
	if h.BySource[SourceCode] == 0 || h.BySource[SourceReplay] == 0 || h.Skipped == 0 || h.BySource[SourceRecorded] != 0 {
		t.Errorf("health by source %v, skipped %d", h.BySource, h.Skipped)
	}
	if h.BySource[SourceCode] != sum.LeavesCode || h.BySource[SourceReplay] != sum.LeavesReplay || h.Skipped != sum.LeavesSkipped || h.Invalid != sum.LeavesInvalid {
		t.Errorf("health %+v disagrees with judge_summary.json %+v", h, sum)
	}
	if !strings.HasPrefix(h.Judge, "replay:") || !strings.Contains(h.Judge, "strict mode") || h.Complete == nil || !*h.Complete || !h.HasUsage {
		t.Errorf("health judge %q complete %v usage %v", h.Judge, h.Complete, h.HasUsage)
	}
	// A code-decided leaf carries the code check's evidence as its
	// explanation, in the drill-down.
	var codeLeaf *Decision
	for _, d := range judged.Decisions {
		for _, x := range d {
			if x.Source == SourceCode && x.Explanation != "" {
				codeLeaf = x
			}
		}
	}
	if codeLeaf == nil {
		t.Fatal("no code-decided leaf with an explanation")
	}
	var page bytes.Buffer
	must(t, r.WriteHTML(&page))
	blobs := drillBlobs(t, page.String())
	if !strings.Contains(blobs, `"src":"code"`) || !strings.Contains(blobs, `"src":"replay"`) || !strings.Contains(blobs, `"st":"skipped"`) {
		t.Errorf("drill-down data lacks code, replay or skipped leaves")
	}
	var md bytes.Buffer
	r.WriteLeaderboardMarkdown(&md)
	if !strings.Contains(md.String(), "| beta-coder (judge) | replay:") {
		t.Errorf("judge health lacks the judged run:\n%s", md.String())
	}
}
