package bqsql

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/internal/shared"
)

// goldFiles lists the validation gold queries.
func goldFiles(tb testing.TB) []string {
	dir := shared.Path(tb, "clinsql-data", "data", "splits", "validation")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*", "sql_*.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		tb.Fatalf("no gold queries under %s", dir)
	}
	return files
}

func taskName(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	return strings.Join(parts[len(parts)-4:len(parts)-1], "/")
}

// goldRun runs every validation gold query on the demo and returns the
// failures (task: error) and the time per query.
func goldRun(tb testing.TB) (n int, failures []string, perQuery time.Duration) {
	eng, _ := demoEngine(tb)
	files := goldFiles(tb)
	start := time.Now()
	for _, f := range files {
		res := runQuery(context.Background(), eng, readFile(tb, f))
		if res.Err != nil {
			failures = append(failures, taskName(f)+" ("+res.stage()+"): "+firstLine(res.Err.Error()))
		}
	}
	return len(files), failures, time.Since(start) / time.Duration(len(files))
}

// The acceptance floor: at least 188 of the 190 validation gold queries run
// on the demo. Every failure is listed.
func TestGoldQueriesOnDemo(t *testing.T) {
	n, failures, _ := goldRun(t)
	for _, f := range failures {
		t.Logf("FAIL %s", f)
	}
	ok := n - len(failures)
	t.Logf("%d of %d gold queries ran without error", ok, n)
	if ok < 188 {
		t.Errorf("only %d of %d gold queries ran; want at least 188", ok, n)
	}
}

// BenchmarkGoldQueries reports the demo build time, how many validation
// gold queries run and the latency per query.
func BenchmarkGoldQueries(b *testing.B) {
	demoEngine(b)
	b.ResetTimer()
	var (
		n        int
		failures []string
		per      time.Duration
	)
	for range b.N {
		n, failures, per = goldRun(b)
	}
	b.StopTimer()
	b.ReportMetric(float64(n-len(failures)), "gold-ok")
	b.ReportMetric(float64(n), "gold-total")
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/query")
	b.ReportMetric(demo.build.Seconds(), "demo-build-s")
	for _, f := range failures {
		b.Logf("gold failure: %s", f)
	}
}
