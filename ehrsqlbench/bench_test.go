package ehrsqlbench_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// benchLatency and benchConcurrency are the benchmark setting.
const (
	benchLatency     = 300 * time.Millisecond
	benchConcurrency = 32
)

// BenchmarkGenerateValid: the 1,163 valid questions x 1 model through the
// fake endpoint at 300 ms a call, 32 calls in flight (the endpoint's
// limits.concurrency): the wall time must stay within 1.2x of calls x
// latency / concurrency, and consistency with k = 5 makes 5x the calls.
// Twice as many questions as call slots are in flight, so that SQLite
// execution and the records' atomic writes overlap the model calls instead
// of holding a slot. Reported: calls, wall_s, ideal_s, wall/ideal and
// cpu_s (the process's user+system time: the harness's own work).
func BenchmarkGenerateValid(b *testing.B) {
	db, splits := ehrsqlData(b, "valid")
	valid := splits[0]
	schema, err := ehrsqlbench.SchemaText(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{1, 5} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			srv := llmtest.New(goldModel(valid), llmtest.Options{Latency: benchLatency})
			defer srv.Close()
			strategy, extra := "model", ""
			if k > 1 {
				strategy, extra = "model+consistency", fmt.Sprintf("    consistency: {k: %d}\n", k)
			}
			yaml := fmt.Sprintf(goldModelsYAML, srv.OpenAIBaseURL(), 0, strategy, extra)
			models, err := ehrsqlbench.ParseModels("models.yaml", []byte(yaml))
			if err != nil {
				b.Fatal(err)
			}
			if got := models[0].Samples(); got != k {
				b.Fatalf("samples %d, want %d", got, k)
			}
			var wall time.Duration
			for i := 0; i < b.N; i++ {
				before := srv.Calls()
				var calls int // model calls, from the records (HTTP retries not counted)
				cpu0 := cpuTime()
				start := time.Now()
				mrs, err := ehrsqlbench.Generate(context.Background(), ehrsqlbench.Options{
					Layout: ehrsqlbench.Layout{Root: b.TempDir()}, Split: valid, Models: models, DB: db, Schema: schema,
					LLM:         llm.Options{Getenv: func(string) string { return "sk-test" }},
					Concurrency: 2 * benchConcurrency,
					Progress: func(_, _ string, _ bool, rec *ehrsqlbench.Record) {
						for _, s := range rec.Samples {
							calls += len(s.Attempts)
						}
					},
				})
				wall = time.Since(start)
				cpu := cpuTime() - cpu0
				if err != nil {
					b.Fatal(err)
				}
				if mrs[0].Done != 1163 || mrs[0].Pending != 0 {
					b.Fatalf("%+v", mrs[0])
				}
				http := srv.Calls() - before
				if calls != 1163*k {
					b.Errorf("%d calls, want %d (1,163 x %d)", calls, 1163*k, k)
				}
				ideal := time.Duration(calls) * benchLatency / benchConcurrency
				ratio := wall.Seconds() / ideal.Seconds()
				b.ReportMetric(float64(calls), "calls")
				b.ReportMetric(float64(http), "http_requests")
				b.ReportMetric(wall.Seconds(), "wall_s")
				b.ReportMetric(ideal.Seconds(), "ideal_s")
				b.ReportMetric(ratio, "wall/ideal")
				b.ReportMetric(cpu.Seconds(), "cpu_s")
				b.Logf("k=%d: %d calls (%d HTTP requests), wall %.2fs, ideal %.2fs, wall/ideal %.2f, cpu %.2fs", k, calls, http, wall.Seconds(), ideal.Seconds(), ratio, cpu.Seconds())
				if n := srv.MaxInFlight(); n != benchConcurrency {
					b.Errorf("%d calls in flight at most, want %d", n, benchConcurrency)
				}
				if ratio > 1.2 {
					b.Errorf("wall %s is %.2fx calls x latency / concurrency = %s (target 1.2x)", wall.Round(time.Millisecond), ratio, ideal)
				}
			}
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
