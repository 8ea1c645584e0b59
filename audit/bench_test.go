package audit

import (
	"context"
	"testing"
)

// BenchmarkAuditValidation is the code-only audit of the 190 validation
// tasks with every result mutation: building the answers, judging them
// and tallying (target: under 60 s on 2 cores). The SQL mutations need an
// engine and are not part of it.
func BenchmarkAuditValidation(b *testing.B) {
	tasks := loadValidation(b)
	b.ResetTimer()
	for b.Loop() {
		r, err := Run(context.Background(), tasks, Options{Mutations: ResultMutations})
		if err != nil {
			b.Fatal(err)
		}
		if r.Answers[Gold] != len(tasks) {
			b.Fatalf("%d gold answers for %d tasks", r.Answers[Gold], len(tasks))
		}
	}
}
