package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/runfolder"
)

// costedJudge is verdictJudge with a cost, as an LLM judge has.
type costedJudge struct{ verdictJudge }

func (costedJudge) AuditCost() Cost { return Cost{Calls: 7, SpentUSD: 0.5} }

// TestRunJob: a job audits its sample under a lock on its folder, writes
// the report there with the judge's cost, and refuses a folder another
// process holds.
func TestRunJob(t *testing.T) {
	tk := task(t, false, "Acceptable Range: between 2 and 10 days", "median_days\n1\n", "SELECT 1")
	out := t.TempDir()
	opened := ""
	r, err := RunJob(context.Background(), Job{Tasks: []*datasets.Task{tk, tk, tk}, Sample: 1, Out: out,
		Options:   Options{Mutations: []string{"empty"}},
		OpenJudge: func(dir string) (Judge, error) { opened = dir; return costedJudge{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if opened != out || r.Tasks != 1 || r.Cost == nil || r.Cost.Calls != 7 {
		t.Errorf("opened in %q, %d tasks, cost %+v", opened, r.Tasks, r.Cost)
	}
	if _, err := os.Stat(filepath.Join(out, "audit.json")); err != nil {
		t.Error(err)
	}
	var text strings.Builder
	r.WriteText(&text, out)
	if !strings.Contains(text.String(), "audit of constant on 1 tasks") || !strings.Contains(text.String(), "spent $0.5000 in 7 calls") {
		t.Errorf("summary:\n%s", text.String())
	}
	lock, err := runfolder.LockExclusive(out)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if _, err := RunJob(context.Background(), Job{Tasks: []*datasets.Task{tk}, Out: out, Options: Options{Judge: verdictJudge{}}}); err == nil ||
		!strings.Contains(err.Error(), "in use") {
		t.Errorf("a locked folder: %v", err)
	}
}

// TestSpread: n tasks evenly over the list, the first always among them;
// n <= 0 or n >= len keeps all.
func TestSpread(t *testing.T) {
	tasks := make([]*datasets.Task, 10)
	for i := range tasks {
		tasks[i] = &datasets.Task{Question: string(rune('a' + i))}
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "abcdefghij"}, {-1, "abcdefghij"}, {10, "abcdefghij"}, {12, "abcdefghij"}, {1, "a"}, {3, "adg"}, {4, "acfh"}} {
		var got strings.Builder
		for _, tk := range Spread(tasks, tc.n) {
			got.WriteString(tk.Question)
		}
		if got.String() != tc.want {
			t.Errorf("Spread(%d) = %s, want %s", tc.n, got.String(), tc.want)
		}
	}
}

// TestCostEstimate: the estimate says the calls and dollars, and the
// budget when there is one.
func TestCostEstimate(t *testing.T) {
	for _, tc := range []struct {
		c    Cost
		want string
	}{
		{Cost{EstimatedCall: 12, EstimatedUSD: 0.25}, "audit estimate: at most 12 judge calls, at most $0.2500 before cache hits\n"},
		{Cost{EstimatedCall: 1, EstimatedUSD: 1, BudgetUSD: 2}, "audit estimate: at most 1 judge calls, at most $1.0000 before cache hits; budget $2.0000\n"},
	} {
		var b strings.Builder
		tc.c.WriteEstimate(&b)
		if b.String() != tc.want {
			t.Errorf("%q, want %q", b.String(), tc.want)
		}
	}
}
