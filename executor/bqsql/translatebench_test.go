//go:build unix

package bqsql_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor/bqduck"
	"github.com/clinsql/clinsql/executor/bqsql"
	"github.com/clinsql/clinsql/executor/mimic"
)

// BenchmarkTranslateRealQueries translates every query the real-query
// golden holds (the released models' final SQL and the gold SQL) as the
// engine does: with the MIMIC-IV catalogue, bind checks included. One op is
// the whole corpus; ms/query is the mean translation time. Issue 26's target
// ("translation time per query no worse than today") is this benchmark
// against the bridge before the statement model (6874fc9), compared with
// benchstat over interleaved runs. cpu-ms/query is the process's CPU time
// (user and system, the collector's included) per query: on a shared
// machine it varies less with the other load than the elapsed time does.
func BenchmarkTranslateRealQueries(b *testing.B) {
	qs := realQueries(b)
	tr := &bqsql.Translator{Catalog: bqduck.CatalogOf(mimic.V31)}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		for _, q := range qs {
			// Refusals are outcomes too (the golden pins them): only the
			// time is measured here.
			_, _, _ = tr.TranslateCheckedContext(ctx, q.SQL)
		}
	}
	cpu := cpuTime(b) - cpu0
	per := float64(b.N * len(qs))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/per, "ms/query")
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6/per, "cpu-ms/query")
}

// cpuTime is the process's CPU time so far, user and system (getrusage:
// hence the unix build constraint on this file).
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
