package bqsql_test

import (
	"context"
	"testing"

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
// benchstat over interleaved runs.
func BenchmarkTranslateRealQueries(b *testing.B) {
	qs := realQueries(b)
	tr := &bqsql.Translator{Catalog: bqduck.CatalogOf(mimic.V31)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			// Refusals are outcomes too (the golden pins them): only the
			// time is measured here.
			_, _, _ = tr.TranslateCheckedContext(ctx, q.SQL)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N*len(qs)), "ms/query")
}
