package bigquery

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/clinsql/clinsql/internal/bqfake"
)

// BenchmarkQueryOverhead is the engine's own cost per query (dry run, insert,
// one poll, one page) against the in-process fake: client and engine time,
// not BigQuery's.
func BenchmarkQueryOverhead(b *testing.B) {
	f := newBenchFixture(b)
	f.srv.Script("SELECT 1", bqfake.Query{Schema: numberedSchema, Rows: numberedRows(1)})
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.eng.Query(context.Background(), "SELECT 1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadRows decodes a 20,000-row result of mixed types through
// pages of 5,000, up to a 100,000-row cap.
func BenchmarkReadRows(b *testing.B) {
	f := newBenchFixture(b)
	const n = 20_000
	schema := []bqfake.Field{{Name: "i", Type: "INTEGER"}, {Name: "x", Type: "FLOAT"}, {Name: "d", Type: "NUMERIC"},
		{Name: "t", Type: "DATETIME"}, {Name: "s", Type: "STRING"}, {Name: "a", Type: "FLOAT", Mode: "REPEATED"}}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{fmt.Sprint(i), "36.6", "12.345678901", "2180-07-23T12:34:56", "Vital_Signs_Monitoring", []any{"1.5", "2.5", "3.5"}}
	}
	f.srv.Script("SELECT many", bqfake.Query{Schema: schema, Rows: rows, PageRows: 5000})
	b.ResetTimer()
	for b.Loop() {
		res, err := f.eng.Query(context.Background(), "SELECT many")
		if err != nil || len(res.Rows) != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

func newBenchFixture(b *testing.B) *fixture {
	b.Helper()
	srv, err := bqfake.New()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	cfg := testConfig()
	cfg.Endpoint = srv.Endpoint()
	eng, err := Open(context.Background(), cfg, withPolling(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	return &fixture{srv: srv, eng: eng}
}
