package refine

import (
	"context"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
)

// BenchmarkGenerate measures the harness's own cost per task: prompt, HTTP
// round trip to an instant fake, extraction, a query on the synthetic
// database and the atomic writes, with the reference error schedule (1.6
// model calls and executions per task on average).
func BenchmarkGenerate(b *testing.B) {
	ex := miniEngine(b)
	tasks := syntheticTasks(100)
	sched := syntheticSchedule(tasks)
	srv := llmtest.New(sched.Handler(), llmtest.Options{})
	defer srv.Close()
	m := testModel("bench", srv)
	m.Limits.Concurrency = 8
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := b.TempDir()
		if _, err := Generate(context.Background(), Options{
			Out: out, Tasks: tasks, Models: []Model{m}, Executor: ex,
			LLM: llm.Options{Getenv: getenv}, Concurrency: 8,
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(tasks)), "ms/task")
}

// BenchmarkPrompt measures building a generation prompt (schema included).
func BenchmarkPrompt(b *testing.B) {
	p := NewPrompter(refinefmt.ModeSchemaHinted, mimic.V31)
	t := syntheticTasks(1)[0]
	for i := 0; i < b.N; i++ {
		_ = p.Generate(t)
	}
}

// BenchmarkExtract measures extraction from a long reasoning reply.
func BenchmarkExtract(b *testing.B) {
	reply := strings.Repeat("Reasoning about patients with sepsis, with care.\n", 400) +
		"```sql\n-- patients with sepsis\n" + strings.Repeat("SELECT 1 UNION ALL\n", 50) + "SELECT 2\n```\n"
	b.SetBytes(int64(len(reply)))
	for i := 0; i < b.N; i++ {
		if _, err := Extract(reply); err != nil {
			b.Fatal(err)
		}
	}
}
