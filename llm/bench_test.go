package llm_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// BenchmarkOpenSpending opens the spending record a run of 300,000 calls
// left (about 100 MB): the first start after it reads it once and
// compacts it; the start after that reads a summary line. It reports both
// times and the sizes.
func BenchmarkOpenSpending(b *testing.B) {
	const calls = 300_000
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		f, err := os.Create(filepath.Join(dir, llm.SpendingFile))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		for i := range calls {
			fmt.Fprintf(w, `{"op":"reserve","id":"0123456789ab-%d","time":"2026-01-01T00:00:00Z","endpoint":"judge","model":"gpt-4.1","prompt_tokens":1234,"completion_tokens":512,"worst_usd":0.0065,"usd":0.0065}`+"\n", i)
			fmt.Fprintf(w, `{"op":"settle","id":"0123456789ab-%d","time":"2026-01-01T00:00:01Z","prompt_tokens":1000,"completion_tokens":40,"usd":0.0021,"usage":"reported"}`+"\n", i)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		size, _ := f.Seek(0, io.SeekCurrent)
		f.Close()
		prices := llm.Prices{"gpt-4.1": {Prompt: 2, Completion: 8}}
		b.StartTimer()
		start := time.Now()
		m, err := llm.OpenMeter(dir, prices, 0)
		if err != nil {
			b.Fatal(err)
		}
		first := time.Since(start)
		m.Close()
		fi, _ := os.Stat(filepath.Join(dir, llm.SpendingFile))
		start = time.Now()
		if m, err = llm.OpenMeter(dir, prices, 0); err != nil {
			b.Fatal(err)
		}
		second := time.Since(start)
		m.Close()
		b.ReportMetric(float64(size)/1e6, "MB-before")
		b.ReportMetric(first.Seconds(), "s-first-open")
		b.ReportMetric(float64(fi.Size()), "bytes-after")
		b.ReportMetric(second.Seconds(), "s-next-open")
	}
}
