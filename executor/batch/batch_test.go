package batch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
)

// fakeExec answers by the query text: "ok:<n>" returns n rows, "fail:<class>"
// fails with that class, "slow" waits for cancellation.
type fakeExec struct {
	calls atomic.Int32
	slow  chan struct{} // if set, closed when a "slow" query starts
}

func (f *fakeExec) Name() string { return "fake" }
func (f *fakeExec) Close() error { return nil }
func (f *fakeExec) Query(ctx context.Context, q string) (*executor.Result, error) {
	f.calls.Add(1)
	switch {
	case strings.HasPrefix(q, "fail:"):
		return nil, &executor.Error{Class: executor.Class(strings.TrimPrefix(q, "fail:")), Engine: "fake", Message: "it broke\nsecond line"}
	case q == "slow":
		if f.slow != nil {
			close(f.slow)
		}
		<-ctx.Done()
		return nil, &executor.Error{Class: executor.ClassInfra, Engine: "fake", Message: "cancelled"}
	case q == "warned":
		return &executor.Result{Columns: []executor.Column{{Name: "r", Type: "FLOAT64"}}, Rows: [][]any{{nil}}, TotalRows: 1,
			Warnings: []string{"division by zero gave NULL"}}, nil
	case q == "badvalue":
		return &executor.Result{Columns: []executor.Column{{Name: "x", Type: "INT64"}}, Rows: [][]any{{int32(1)}}, TotalRows: 1}, nil
	}
	return &executor.Result{Columns: []executor.Column{{Name: "n", Type: "INT64"}}, Rows: [][]any{{int64(1)}, {int64(2)}},
		TotalRows: 5, Truncated: true, Stats: executor.Stats{Duration: 3 * time.Millisecond}}, nil
}

func TestRun(t *testing.T) {
	out := t.TempDir()
	items := []Item{
		{Key: "b", SQL: "ok", CSV: "b/result.csv"},
		{Key: "a", SQL: "fail:syntax_error", CSV: "a/result.csv"},
		{Key: "c", SQL: "fail:refused", CSV: "c/result.csv"},
		{Key: "d", SQL: "badvalue", CSV: "d/result.csv"},
		{Key: "e", SQL: "ok"},
		{Key: "f", SQL: "warned", CSV: "f/result.csv"},
	}
	os.MkdirAll(filepath.Join(out, "a"), 0o755)
	os.WriteFile(filepath.Join(out, "a", "result.csv"), []byte("stale\n"), 0o644)
	var seen atomic.Int32
	s, err := Run(context.Background(), &fakeExec{}, items, []string{"x: broken task"}, Options{Out: out, Concurrency: 3, Progress: func(Outcome) { seen.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if s.Total != 6 || s.Succeeded != 3 || s.Failed != 3 || len(s.Failures) != 3 || seen.Load() != 6 || s.Warned != 1 {
		t.Fatalf("summary %+v", s)
	}
	if s.Failures[0].Task != "a" || s.Failures[0].Class != executor.ClassSyntax || s.Failures[2].Class != executor.ClassUnsupported {
		t.Errorf("failures %+v", s.Failures)
	}
	if s.ByClass[executor.ClassRefused] != 1 || s.LatencyMS == nil || s.LatencyMS.Median != 3 {
		t.Errorf("by class %v latency %+v", s.ByClass, s.LatencyMS)
	}
	if b, err := os.ReadFile(filepath.Join(out, "b", "result.csv")); err != nil || string(b) != "n\n1\n2\n" {
		t.Errorf("b CSV %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(out, "a", "result.csv")); err == nil {
		t.Error("stale CSV of a failed item kept")
	}
	var disk map[string]any
	b, _ := os.ReadFile(filepath.Join(out, SummaryFile))
	if err := json.Unmarshal(b, &disk); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"total", "succeeded", "failures", "outcomes", "load_errors", "warned"} {
		if _, ok := disk[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	if o := s.Outcomes[1]; o.Task != "b" || o.TotalRows != 5 || !o.Truncated || o.CSV != "b/result.csv" {
		t.Errorf("outcome %+v", o)
	}
	if o := s.Outcomes[5]; o.Task != "f" || !o.OK || len(o.Warnings) != 1 || len(s.Outcomes[1].Warnings) != 0 {
		t.Errorf("warned outcome %+v", o)
	}
}

func TestRunInterrupted(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	// The run is interrupted while its first query runs (an event: after a
	// fixed 100 ms a loaded machine may not have started it).
	f := &fakeExec{slow: make(chan struct{})}
	go func() { <-f.slow; cancel() }()
	items := []Item{{Key: "1", SQL: "slow"}, {Key: "2", SQL: "ok"}, {Key: "3", SQL: "ok"}}
	s, err := Run(ctx, f, items, nil, Options{Out: out, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Interrupted || s.Failed != 3 || f.calls.Load() != 1 {
		t.Errorf("interrupted=%v failed=%d calls=%d", s.Interrupted, s.Failed, f.calls.Load())
	}
	if _, err := os.Stat(filepath.Join(out, SummaryFile)); err != nil {
		t.Error("no summary after an interrupted run")
	}
}
