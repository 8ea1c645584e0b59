package cli

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bqduck"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/internal/shared"
)

// BenchmarkGoldQueriesDemo runs the 190 validation gold queries on the
// embedded engine over the MIMIC-IV demo, wired as "clinsql exec" wires it
// (dialect bridge included), and reports per-query latency and how many
// ran.
func BenchmarkGoldQueriesDemo(b *testing.B) {
	demo := shared.Path(b, "mimic-iv-demo")
	data := shared.Path(b, "clinsql-data")
	tasks, err := datasets.LoadClinSQL(filepath.Join(data, "data", "splits", "validation"))
	if err != nil {
		b.Fatal(err)
	}
	db := filepath.Join(b.TempDir(), "demo.duckdb")
	if _, err := mimic.Build(context.Background(), mimic.BuildOptions{MimicDir: demo, Out: db}); err != nil {
		b.Fatal(err)
	}
	ex, err := bqduck.Open(context.Background(), bqduck.Options{DB: db, Limits: executor.Limits{Timeout: duckdb.DefaultTimeout, MaxRows: duckdb.DefaultMaxRows}})
	if err != nil {
		b.Fatal(err)
	}
	defer ex.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var ok int
		var lat []time.Duration
		for _, t := range tasks {
			start := time.Now()
			_, err := ex.Query(context.Background(), t.GoldSQL)
			lat = append(lat, time.Since(start))
			if err == nil {
				ok++
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		var sum time.Duration
		for _, d := range lat {
			sum += d
		}
		b.ReportMetric(float64(len(tasks)), "queries")
		b.ReportMetric(float64(ok), "succeeded")
		b.ReportMetric(float64(sum.Microseconds())/1000/float64(len(lat)), "ms/query")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
		b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "ms-p95")
	}
}
