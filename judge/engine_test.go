package judge

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// TestRunEndToEnd judges the fixture run with the by-key fake backend: every
// leaf is recorded exactly once, code decides what it can, outputs are
// written, and the written detailed_grading.json rescores to the judge's
// own scores in both modes.
func TestRunEndToEnd(t *testing.T) {
	tasksDir, _, items := fixtureRun(t)
	for _, mode := range []rubric.Mode{rubric.Strict, rubric.Reference} {
		t.Run(string(mode), func(t *testing.T) {
			b := &keyBackend{}
			out := t.TempDir()
			opts := Options{Mode: mode, Backend: b, CodeChecks: true, Skipping: true}
			l := openLedger(t, out, opts)
			o := mustRun(t, items, l, opts)
			if !o.Complete() || o.Stopped != nil {
				t.Fatalf("incomplete: %v", o.Stopped)
			}
			l.Close()
			c, err := judgefmt.ReadLedger(filepath.Join(out, judgefmt.LedgerFile))
			if err != nil {
				t.Fatal(err)
			}
			seen := map[judgefmt.LeafKey]int{}
			for _, r := range c.Records {
				seen[r.Key()]++
			}
			if len(c.Records) != leafCount(items) || len(seen) != leafCount(items) {
				t.Fatalf("%d records for %d distinct leaves, want %d each", len(c.Records), len(seen), leafCount(items))
			}
			sc := Score(o, "fixture-model")
			s := sc.Summary
			if s.LeavesTotal != leafCount(items) || s.LeavesCode+s.LeavesLLM+s.LeavesSkipped != s.LeavesTotal || s.LeavesCode == 0 || s.LeavesLLM == 0 {
				t.Errorf("counts: %+v", s)
			}
			if s.LLMCalls != b.Calls() || s.PromptTokens != b.Calls()*fakeUsage(1).PromptTokens || s.CompletionTokens != b.Calls()*fakeUsage(1).CompletionTokens {
				t.Errorf("llm_calls %d, the backend answered %d; tokens %d/%d", s.LLMCalls, b.Calls(), s.PromptTokens, s.CompletionTokens)
			}
			// Every backend leaf carries the backend's verdict for its key.
			for _, it := range o.Items {
				for k, r := range it.Records {
					if r.Source == judgefmt.SourceLLM && r.Verdict != keyVerdict(k) {
						t.Errorf("%s: recorded %s, the backend said %s", describe(r), r.Verdict, keyVerdict(k))
					}
				}
			}
			// The failed Lab task: every results leaf is decided by code.
			lab := itemIn(t, items, "Laboratory_Results_Analysis")
			for _, leaf := range lab.Task.ResultsRubric.Root.Leaves() {
				r := l.Get(judgefmt.LeafKey{Task: lab.Task.Key.String(), Tree: judgefmt.TreeResults, Leaf: leaf.ID})
				if r.Source != judgefmt.SourceCode && r.Source != judgefmt.SourceSkip {
					t.Errorf("failed query, results leaf judged by %s: %s", r.Source, describe(r))
				}
				if r.Verdict == rubric.Pass {
					t.Errorf("failed query passed %s", describe(r))
				}
			}
			if err := sc.WriteFiles(out, o); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{judgefmt.GradingFile, judgefmt.SummaryFile, scoring.ScoringFile, scoring.DifficultyFile, scoring.ScenarioFile} {
				if _, err := os.Stat(filepath.Join(out, "validation", f)); f != judgefmt.SummaryFile && err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
			// Round trip: rescoring the written grading file gives the
			// judge's scores.
			tasks, err := datasets.LoadClinSQL(tasksDir)
			if err != nil {
				t.Fatal(err)
			}
			for _, split := range []string{"validation", "test"} {
				g, err := scoring.ReadGrading(filepath.Join(out, split, judgefmt.GradingFile))
				if err != nil {
					t.Fatal(err)
				}
				re, err := scoring.Rescore(g, tasks, mode)
				if err != nil {
					t.Fatal(err)
				}
				for _, ts := range re.Tasks {
					want := s.Scores[ts.Key]
					if ts.SQL.Value != want[0] || ts.Results.Value != want[1] {
						t.Errorf("%s rescored %v/%v, judged %v/%v", ts.Key, ts.SQL.Value, ts.Results.Value, want[0], want[1])
					}
				}
			}
		})
	}
}

// TestConcurrencyLimit: however many tasks and leaves run at once, the
// endpoint never sees more requests in flight than its limit.
func TestConcurrencyLimit(t *testing.T) {
	_, _, items := fixtureRun(t)
	// Two requests in flight together however slowly a loaded machine
	// starts them (llmtest.Together); the latency lets a fourth break the
	// limit if it could.
	srv := llmtest.Start(t, llmtest.Together(2, verdictReply(hashVerdict)), llmtest.Options{Latency: 40 * time.Millisecond})
	j := newTestJudge(t, srv, func(ep *llm.Endpoint) { ep.Limits.Concurrency = 3 }, llm.Options{}, 1)
	opts := Options{Mode: rubric.Strict, Backend: j, Tasks: 16, Leaves: 16}
	mustRun(t, items, openLedger(t, t.TempDir(), opts), opts)
	if got := srv.MaxInFlight(); got > 3 || got < 2 {
		t.Errorf("max in flight %d, want 2..3 (limit 3)", got)
	}
}

// TestRerun: re-running a finished run makes zero backend calls and
// records nothing, with the same scores, whatever the grouping; a ledger
// refuses other settings. (The LLM cache across ledgers: TestCacheAcrossLedgers.)
func TestRerun(t *testing.T) {
	for _, g := range []GroupMode{GroupLeaf, GroupTree} {
		t.Run(string(g), func(t *testing.T) { rerun(t, g) })
	}
}

func rerun(t *testing.T, g GroupMode) {
	_, _, items := fixtureRun(t)
	b := &keyBackend{}
	opts := Options{Mode: rubric.Strict, Backend: b, CodeChecks: true, Skipping: true, Group: g}
	dir := t.TempDir()
	l := openLedger(t, dir, opts)
	first := mustRun(t, items, l, opts)
	calls := b.Calls()
	if calls == 0 {
		t.Fatal("no calls")
	}
	l.Close()
	l2 := openLedger(t, dir, opts)
	again := mustRun(t, items, l2, opts)
	if b.Calls() != calls || again.This.LLMCalls != 0 || again.This.Recorded != 0 || again.This.Resumed != leafCount(items) {
		t.Errorf("re-run: %d new backend calls, this run %+v", b.Calls()-calls, again.This)
	}
	if a, b := Score(first, "m").Summary.Scores, Score(again, "m").Summary.Scores; fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("scores differ after the re-run")
	}
	// A ledger refuses other settings.
	other := opts
	other.Mode = rubric.Reference
	h := judgefmt.LedgerHeader{Mode: other.Mode, Judge: b.Name(), CodeChecks: true, Skipping: true, Samples: 1, Group: string(g)}
	if _, err := judgefmt.OpenLedger(filepath.Join(dir, judgefmt.LedgerFile), h, nil); err == nil || !strings.Contains(err.Error(), "mode strict, not reference") {
		t.Errorf("ledger opened with another mode: %v", err)
	}
}

// TestBudgetStop: a backend that must stop (its budget is spent) stops
// the run cleanly: nothing is recorded for the refused calls, the outcome
// says why, and a resumed run finishes the job with every leaf decided
// exactly once. (The LLM judge's spending meter: kill_test.go.)
func TestBudgetStop(t *testing.T) {
	for _, g := range []GroupMode{GroupLeaf, GroupTree} {
		t.Run(string(g), func(t *testing.T) { budgetStop(t, g) })
	}
}

func budgetStop(t *testing.T, g GroupMode) {
	_, _, items := fixtureRun(t)
	dir := t.TempDir()
	b := &keyBackend{budget: 3}
	opts := Options{Mode: rubric.Strict, Backend: b, CodeChecks: true, Skipping: true, Tasks: 1, Leaves: 1, Group: g}
	l := openLedger(t, dir, opts)
	o := mustRun(t, items, l, opts)
	if o.Stopped == nil || !errors.Is(o.Stopped, errBudget) || o.Complete() {
		t.Fatalf("stopped = %v", o.Stopped)
	}
	decided := 0
	for _, it := range o.Items {
		for _, r := range it.Records {
			if r.Verdict == rubric.Invalid {
				t.Errorf("budget refusal recorded: %s", describe(r))
			}
			if r.Source == judgefmt.SourceLLM {
				decided++
			}
		}
	}
	if decided == 0 || b.Calls() != 3 {
		t.Errorf("%d backend leaves recorded from %d answered calls, want some from 3", decided, b.Calls())
	}
	s := Score(o, "m").Summary
	if s.Complete || s.StoppedBy == "" || s.LeavesUndecided == 0 {
		t.Errorf("summary of a stopped run: complete %v stopped_by %q undecided %d", s.Complete, s.StoppedBy, s.LeavesUndecided)
	}
	l.Close()
	opts.Backend = &keyBackend{}
	l2 := openLedger(t, dir, opts)
	o2 := mustRun(t, items, l2, opts)
	if !o2.Complete() || l2.Len() != leafCount(items) {
		t.Errorf("resumed run: complete %v, %d of %d leaves", o2.Complete(), l2.Len(), leafCount(items))
	}
}

// randomTree builds a random rubric: sequential and parallel nodes,
// critical flags, weights 0..3, depth up to 4.
func randomTree(r *rand.Rand, id *int, depth int) string {
	*id++
	me := *id
	flags := fmt.Sprintf(`"weight":%d,"critical":%v`, r.IntN(4), r.IntN(4) == 0)
	if depth == 0 || (depth < 3 && r.IntN(3) == 0) {
		return fmt.Sprintf(`{"id":"n%d","requirements":"leaf %d",%s,"sub_tasks":[]}`, me, me, flags)
	}
	n := 1 + r.IntN(4)
	var kids []string
	for range n {
		kids = append(kids, randomTree(r, id, depth-1))
	}
	return fmt.Sprintf(`{"id":"n%d","requirements":"node %d",%s,"sequential":%v,"sub_tasks":[%s]}`, me, me, flags, r.IntN(2) == 0, strings.Join(kids, ","))
}

// randomVerdict decides leaves at random (seeded per key), with some
// invalid verdicts.
func randomVerdict(seed uint64) func(judgefmt.LeafKey) rubric.Status {
	return func(k judgefmt.LeafKey) rubric.Status {
		h := seed
		for _, c := range k.Task + string(k.Tree) + k.Leaf {
			h = h*1099511628211 + uint64(c)
		}
		switch h % 10 {
		case 0:
			return rubric.Invalid
		case 1, 2, 3, 4:
			return rubric.Fail
		}
		return rubric.Pass
	}
}

// TestSkippingProperty: on random rubrics and random verdicts, skipping
// never changes a score (value, bounds, invalid count) in either mode, and
// saves calls.
func TestSkippingProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var items []Item
	for i := range 300 {
		id := 0
		sqlDoc := randomTree(r, &id, 4)
		resDoc := randomTree(r, &id, 4)
		st, err := rubric.Parse([]byte(sqlDoc), "sql.json", rubric.JSON)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := rubric.Parse([]byte(resDoc), "res.json", rubric.JSON)
		if err != nil {
			t.Fatal(err)
		}
		key := datasets.Key{Split: "validation", Domain: "D", Difficulty: "easy", ID: fmt.Sprintf("%03d", i)}
		items = append(items, Item{Task: &datasets.Task{Key: key, SQLRubric: st, ResultsRubric: rt}, Answer: &codecheck.Answer{Key: key, SQL: "SELECT 1"}})
	}
	for _, mode := range []rubric.Mode{rubric.Reference, rubric.Strict} {
		full := &keyBackend{verdict: randomVerdict(7)}
		skip := &keyBackend{verdict: randomVerdict(7)}
		of := mustRun(t, items, openLedger(t, t.TempDir(), Options{Mode: mode, Backend: full}), Options{Mode: mode, Backend: full})
		os := mustRun(t, items, openLedger(t, t.TempDir(), Options{Mode: mode, Backend: skip, Skipping: true}), Options{Mode: mode, Backend: skip, Skipping: true})
		for i := range items {
			for _, pair := range [][2]rubric.Decisions{{of.Items[i].SQL, os.Items[i].SQL}, {of.Items[i].Results, os.Items[i].Results}} {
				_ = pair
			}
			a := []*rubric.Score{rubric.Evaluate(items[i].Task.SQLRubric.Root, of.Items[i].SQL, mode), rubric.Evaluate(items[i].Task.ResultsRubric.Root, of.Items[i].Results, mode)}
			b := []*rubric.Score{rubric.Evaluate(items[i].Task.SQLRubric.Root, os.Items[i].SQL, mode), rubric.Evaluate(items[i].Task.ResultsRubric.Root, os.Items[i].Results, mode)}
			for k := range a {
				if !sameScore(a[k], b[k]) {
					t.Errorf("%s item %d tree %d: %v [%v,%v] inv %d vs skipped %v [%v,%v] inv %d", mode, i, k,
						a[k].Value, a[k].Lo, a[k].Hi, a[k].Invalid, b[k].Value, b[k].Lo, b[k].Hi, b[k].Invalid)
				}
			}
		}
		t.Logf("%s: %d calls without skipping, %d with", mode, full.Calls(), skip.Calls())
		if skip.Calls() >= full.Calls() {
			t.Errorf("skipping saved nothing")
		}
	}
}

func sameScore(a, b *rubric.Score) bool {
	return a.Value == b.Value && a.Lo == b.Lo && a.Hi == b.Hi && a.Invalid == b.Invalid
}
