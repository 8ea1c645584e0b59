package refine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// countingExec records the most queries it ran at once. The first query
// waits until a second one runs beside it, so queries overlap whenever the
// engine lets them, however loaded the machine (no span of wall time).
type countingExec struct {
	executor.Executor
	in, max atomic.Int64
	once    sync.Once
	paired  chan struct{}
}

func (c *countingExec) Query(ctx context.Context, sql string) (*executor.Result, error) {
	n := c.in.Add(1)
	defer c.in.Add(-1)
	for m := c.max.Load(); n > m && !c.max.CompareAndSwap(m, n); m = c.max.Load() {
	}
	if n >= 2 {
		c.once.Do(func() { close(c.paired) })
	}
	select {
	case <-c.paired:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return c.Executor.Query(ctx, sql)
}

// TestGenerateBatchRounds: a model in batch mode sends every first attempt
// in one batch, then each round's fixes in the next, with the attempt-wise
// success of the schedule, while the engine runs at most
// Options.Concurrency queries at once.
func TestGenerateBatchRounds(t *testing.T) {
	tasks := syntheticTasks(40)
	srv := llmtest.Start(t, syntheticSchedule(tasks).Handler(), llmtest.Options{APIKey: testKey})
	m := testModel("model-a", srv)
	m.Mode = llm.ModeBatch
	m.Batch = llm.BatchLimits{Poll: time.Millisecond, Collect: time.Hour} // sent when every task waits, not after a quiet time
	ex := &countingExec{Executor: miniEngine(t), paired: make(chan struct{})}
	res, err := Generate(context.Background(), Options{Out: t.TempDir(), Tasks: tasks, Models: []Model{m}, Executor: ex,
		LLM: llm.Options{Getenv: getenv, Sleep: noSleep}, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	bs := res.Models[0].Summary
	if got := bs.SuccessAt; len(got) != 3 || got[0] != 24 || got[1] != 8 || got[2] != 4 {
		t.Errorf("success at attempts %v, want [24 8 4]", got)
	}
	// 40 first attempts; 16 tasks failed once, 8 of them twice.
	if got := srv.BatchSizes(); !slices.Equal(got, []int{40, 16, 8}) {
		t.Errorf("batch sizes %v, want [40 16 8]: one batch per round", got)
	}
	if n := ex.max.Load(); n > 3 || n < 2 {
		t.Errorf("at most %d queries ran at once; want between 2 and the concurrency, 3", n)
	}
}
