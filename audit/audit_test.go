package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
)

// verdictJudge decides every leaf with one verdict: a stand-in judge
// whose errors are known exactly.
type verdictJudge struct{ pass bool }

func (verdictJudge) Name() string { return "constant" }

func (j verdictJudge) Decide(_ context.Context, vs []*Variant) ([]map[judgefmt.LeafKey]Verdict, error) {
	out := make([]map[judgefmt.LeafKey]Verdict, len(vs))
	for i, v := range vs {
		out[i] = map[judgefmt.LeafKey]Verdict{}
		for _, tr := range trees(v.Task) {
			for _, l := range tr.root.Leaves() {
				out[i][leafKey(v.Task, tr.tree, l)] = Verdict{Pass: j.pass, Source: "llm"}
			}
		}
	}
	return out, nil
}

// TestTally: a judge that fails everything fails every gold leaf (each a
// false fail, classified by the lint) and misses nothing; one that passes
// everything misses every testable leaf of the mutations.
func TestTally(t *testing.T) {
	tk := task(t, false, "Acceptable Range: between 2 and 10 days", "median_days\n1\n", "SELECT 1")
	for _, pass := range []bool{false, true} {
		r, err := Run(context.Background(), nil, Options{})
		if err == nil || r != nil {
			t.Fatalf("no tasks: %v %v", r, err)
		}
		r, err = Run(context.Background(), []*datasets.Task{tk}, Options{Mutations: ResultMutations, Judge: verdictJudge{pass}})
		if err != nil {
			t.Fatal(err)
		}
		tot := r.Totals()
		g := tot[Gold]
		if g.Testable != 2 || g.Decided != 2 || g.Undecided != 0 {
			t.Errorf("gold %+v", g)
		}
		missed := 0
		for m, x := range tot {
			if m != Gold {
				missed += x.Wrong
			}
		}
		if pass {
			if g.Wrong != 0 || len(r.GoldFailures) != 0 || missed == 0 || missed != len(r.Missed) {
				t.Errorf("always pass: gold %+v, missed %d (%d listed)", g, missed, len(r.Missed))
			}
			continue
		}
		if g.Wrong != 2 || len(r.GoldFailures) != 2 || missed != 0 {
			t.Fatalf("always fail: gold %+v, failures %+v, missed %d", g, r.GoldFailures, missed)
		}
		je, rd := r.GoldClassCounts()
		if je != 1 || rd != 1 {
			t.Errorf("classes: %d judge errors, %d rubric defects; want the SQL leaf a judge error and the band a rubric defect: %+v", je, rd, r.GoldFailures)
		}
	}
}

// invalidJudge answers nothing: every leaf's verdict is invalid, as from
// an endpoint that refused every call.
type invalidJudge struct{}

func (invalidJudge) Name() string { return "invalid" }

func (invalidJudge) Decide(_ context.Context, vs []*Variant) ([]map[judgefmt.LeafKey]Verdict, error) {
	out := make([]map[judgefmt.LeafKey]Verdict, len(vs))
	for i, v := range vs {
		out[i] = map[judgefmt.LeafKey]Verdict{}
		for _, tr := range trees(v.Task) {
			for _, l := range tr.root.Leaves() {
				out[i][leafKey(v.Task, tr.tree, l)] = Verdict{Source: SourceInvalid, Explanation: "Error: 404"}
			}
		}
	}
	return out, nil
}

// TestTallyInvalid (issue 25 #4): a judge that gave no verdict is neither
// right nor wrong, and not decided: its leaves are counted invalid, and
// the report says so, rather than "0 false fails, 0 missed fails" over
// leaves it never judged.
func TestTallyInvalid(t *testing.T) {
	tk := task(t, false, "Acceptable Range: between 2 and 10 days", "median_days\n1\n", "SELECT 1")
	r, err := Run(context.Background(), []*datasets.Task{tk}, Options{Mutations: ResultMutations, Judge: invalidJudge{}})
	if err != nil {
		t.Fatal(err)
	}
	for m, x := range r.Totals() {
		if x.Decided != 0 || x.Wrong != 0 || x.Invalid != x.Testable-x.Undecided {
			t.Errorf("%s: %+v; want nothing decided, every judged leaf invalid", m, x)
		}
	}
	if r.Invalid() == 0 {
		t.Fatal("no invalid leaf counted")
	}
	var b strings.Builder
	if err := r.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "testable leaves have no verdict (invalid)") {
		t.Errorf("audit.md does not warn of the invalid leaves:\n%s", b.String())
	}
}
