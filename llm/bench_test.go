package llm_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// BenchmarkThroughput sends calls through the fake with 300 ms latency at
// concurrency 32 and reports the wall time against the ideal
// calls × latency / concurrency.
func BenchmarkThroughput(b *testing.B) {
	const (
		calls       = 320
		latency     = 300 * time.Millisecond
		concurrency = 32
	)
	srv := llmtest.Start(b, llmtest.Fixed(llmtest.Text(`{"verdict":"pass"}`)), llmtest.Options{Latency: latency})
	c := newClient(b, endpoint(srv, func(e *llm.Endpoint) { e.Limits.Concurrency = concurrency }), llm.Options{})
	ideal := time.Duration(calls) * latency / concurrency
	var total time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		var g errgroup.Group
		// More goroutines than slots: the client's limit, not the caller,
		// must hold the concurrency.
		g.SetLimit(2 * concurrency)
		for j := range calls {
			g.Go(func() error {
				_, err := c.Complete(context.Background(), ask(fmt.Sprintf("run %d call %d", i, j)))
				return err
			})
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.StopTimer()
	wall := total / time.Duration(b.N)
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(ideal.Seconds(), "ideal-s")
	b.ReportMetric(wall.Seconds()/ideal.Seconds(), "wall/ideal")
	b.ReportMetric(float64(srv.MaxInFlight()), "max-in-flight")
	b.ReportMetric(float64(calls), "calls/op")
	if srv.MaxInFlight() > concurrency {
		b.Errorf("max in flight %d above the limit %d", srv.MaxInFlight(), concurrency)
	}
}
