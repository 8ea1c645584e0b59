package ehrsqlbench_test

import (
	"context"
	"fmt"
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
// fake endpoint at 300 ms a call, 32 in flight: the wall time must stay
// within 1.2x of calls x latency / concurrency (the harness's own work,
// SQLite execution and the records' atomic writes, hides behind the model
// calls), and consistency with k = 5 makes 5x the calls. Reported:
// calls, wall_s, ideal_s and wall/ideal.
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
				start := time.Now()
				mrs, err := ehrsqlbench.Generate(context.Background(), ehrsqlbench.Options{
					Layout: ehrsqlbench.Layout{Root: b.TempDir()}, Split: valid, Models: models, DB: db, Schema: schema,
					LLM:         llm.Options{Getenv: func(string) string { return "sk-test" }},
					Concurrency: benchConcurrency,
				})
				wall = time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if mrs[0].Done != 1163 || mrs[0].Pending != 0 {
					b.Fatalf("%+v", mrs[0])
				}
				calls := srv.Calls() - before
				if calls != 1163*k {
					b.Errorf("%d calls, want %d (1,163 x %d)", calls, 1163*k, k)
				}
				ideal := time.Duration(calls) * benchLatency / benchConcurrency
				ratio := wall.Seconds() / ideal.Seconds()
				b.ReportMetric(float64(calls), "calls")
				b.ReportMetric(wall.Seconds(), "wall_s")
				b.ReportMetric(ideal.Seconds(), "ideal_s")
				b.ReportMetric(ratio, "wall/ideal")
				if ratio > 1.2 {
					b.Errorf("wall %s is %.2fx calls x latency / concurrency = %s (target 1.2x)", wall.Round(time.Millisecond), ratio, ideal)
				}
			}
		})
	}
}
