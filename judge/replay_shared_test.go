package judge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/internal/released"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

// runReplay judges one released model with its own recorded decisions.
func runReplay(t testing.TB, tasks map[datasets.Key]*datasets.Task, m *released.Model, opts Options) *Outcome {
	t.Helper()
	var list []*datasets.Task
	for _, tk := range tasks {
		list = append(list, tk)
	}
	items, err := Pair(list, m.Outputs, m.Dir)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := NewReplay(m.Grading.File)
	if err != nil {
		t.Fatal(err)
	}
	opts.Backend = rp
	l, err := judgefmt.OpenLedger(filepath.Join(t.TempDir(), judgefmt.LedgerFile), judgefmt.LedgerHeader{Mode: opts.Mode, Judge: rp.Name(),
		CodeChecks: opts.CodeChecks, Skipping: opts.Skipping, Samples: 1, Group: string(opts.Group), GroupGated: opts.GroupGated}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	o, err := Run(context.Background(), items, l, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Complete() {
		t.Fatalf("%s: run incomplete: %v", m.Name, o.Stopped)
	}
	return o
}

// TestReplaySkipping is the gate-aware skipping acceptance measurement:
// replaying the recorded decisions of the 16 released models, the scores
// with skipping equal the scores with every leaf judged, in both modes, and
// reference mode without skipping reproduces every published task score.
// It also reports the backend (would-be LLM) leaves per task once code
// checks decide what they can.
func TestReplaySkipping(t *testing.T) {
	tasks, models := released.Load(t)
	models = replayedModels(t, models)
	for _, mode := range []rubric.Mode{rubric.Reference, rubric.Strict} {
		var leaves, skipped, mismatches, published, pubMismatch int
		var backendLeaves, allTasks, codeLeaves, codeSkipped int
		byTree := map[judgefmt.Tree]judgefmt.Counts{}
		for _, m := range models {
			full := runReplay(t, tasks, m, Options{Mode: mode})
			skip := runReplay(t, tasks, m, Options{Mode: mode, Skipping: true})
			code := runReplay(t, tasks, m, Options{Mode: mode, Skipping: true, CodeChecks: true})
			fs, ss, cs := Score(full, m.Name), Score(skip, m.Name), Score(code, m.Name)
			leaves += ss.Summary.LeavesTotal
			skipped += ss.Summary.LeavesSkipped
			backendLeaves += cs.Summary.LeavesReplay
			for k, v := range cs.Summary.ByTree {
				c := byTree[k]
				c.Total += v.Total
				c.Code += v.Code
				c.Replay += v.Replay
				c.Skipped += v.Skipped
				byTree[k] = c
			}
			codeLeaves += cs.Summary.LeavesCode
			codeSkipped += cs.Summary.LeavesSkipped
			allTasks += cs.Summary.Tasks
			fr, sr := fs.Splits["validation"].Tasks, ss.Splits["validation"].Tasks
			for i := range fr {
				if !sameScore(fr[i].SQL, sr[i].SQL) || !sameScore(fr[i].Results, sr[i].Results) {
					mismatches++
					t.Errorf("%s %s %s: skipping changed the score: sql %v/%v results %v/%v", mode, m.Name, fr[i].Key,
						fr[i].SQL.Value, sr[i].SQL.Value, fr[i].Results.Value, sr[i].Results.Value)
				}
				if mode != rubric.Reference {
					continue
				}
				if e, ok := m.ByKey[fr[i].Key]; ok {
					published += 2
					if fr[i].SQL.Value != e.SQLScore || fr[i].Results.Value != e.ResultsScore {
						pubMismatch++
						t.Errorf("%s %s: replayed %v/%v, published %v/%v", m.Name, fr[i].Key, fr[i].SQL.Value, fr[i].Results.Value, e.SQLScore, e.ResultsScore)
					}
				}
			}
		}
		t.Logf("%s mode, replay of %d models: %d leaves, %d skipped (%.1f%%) with identical scores (%d task-score mismatches)",
			mode, len(models), leaves, skipped, 100*float64(skipped)/float64(leaves), mismatches)
		if mode == rubric.Reference {
			t.Logf("reference mode without skipping reproduces the published task scores: %d checks, %d mismatches", published, pubMismatch)
		}
		t.Logf("%s mode, code checks + skipping + replay: per task %.2f backend (LLM) leaves, %.2f code, %.2f skipped (%d tasks)",
			mode, float64(backendLeaves)/float64(allTasks), float64(codeLeaves)/float64(allTasks), float64(codeSkipped)/float64(allTasks), allTasks)
		for _, tr := range []judgefmt.Tree{judgefmt.TreeSQL, judgefmt.TreeResults} {
			c := byTree[tr]
			n := float64(allTasks)
			t.Logf("  %s leaves per task: %.2f, code %.2f, backend %.2f, skipped %.2f; code share of decided-not-skipped %.1f%%",
				tr, float64(c.Total)/n, float64(c.Code)/n, float64(c.Replay)/n, float64(c.Skipped)/n, 100*float64(c.Code)/float64(c.Code+c.Replay))
		}
	}
}
