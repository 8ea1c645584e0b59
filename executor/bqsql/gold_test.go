package bqsql_test

import (
	"context"
	"fmt"
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

// goldFailure is one gold query that did not run.
type goldFailure struct {
	task string
	res  runResult
}

func (f goldFailure) String() string {
	return f.task + " (" + f.res.stage() + "): " + firstLine(f.res.Err.Error())
}

// goldRun runs every validation gold query on the demo and returns the
// failures, the tasks that ran only with a division by zero given NULL, and
// the time per query.
func goldRun(tb testing.TB) (n int, failures []goldFailure, warned []string, perQuery time.Duration) {
	eng := demoEngine(tb)
	files := goldFiles(tb)
	start := time.Now()
	for _, f := range files {
		res := runQuery(context.Background(), eng, readFile(tb, f))
		switch {
		case res.Err != nil:
			failures = append(failures, goldFailure{taskName(f), res})
		case res.Warned:
			warned = append(warned, taskName(f))
		}
	}
	return len(files), failures, warned, time.Since(start) / time.Duration(len(files))
}

// Every validation gold query translates, binds and runs on the demo with
// clinsql's default for a sample database (a division by zero gives NULL
// with a warning). The warned ones are the queries BigQuery would fail on
// the same data: a division by zero over a cohort the demo leaves empty.
func TestGoldQueriesOnDemo(t *testing.T) {
	n, failures, warned, _ := goldRun(t)
	for _, f := range failures {
		t.Errorf("gold query failed: %s", f)
	}
	for _, w := range warned {
		t.Logf("ran with a division by zero given NULL: %s", w)
	}
	t.Logf("%d of %d gold queries ran; %d of them only with a division by zero given NULL", n-len(failures), n, len(warned))
}

// BenchmarkGoldQueries reports the demo build time, how many validation
// gold queries run (by default on a sample, and as strictly as BigQuery on
// the same data), and the latency per query.
func BenchmarkGoldQueries(b *testing.B) {
	demoEngine(b)
	b.ResetTimer()
	var (
		n        int
		failures []goldFailure
		warned   []string
		per      time.Duration
	)
	for range b.N {
		n, failures, warned, per = goldRun(b)
	}
	b.StopTimer()
	for _, f := range failures {
		b.Logf("gold failure: %s", f)
	}
	for _, w := range warned {
		b.Logf("gold division by zero on the demo (NULL by default, BigQuery fails it): %s", w)
	}
	b.ReportMetric(float64(n-len(failures)), "gold-ok")
	b.ReportMetric(float64(n-len(failures)-len(warned)), "gold-ok-strict")
	b.ReportMetric(float64(n), "gold-total")
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/query")
	b.ReportMetric(demo.build.Seconds(), "demo-build-s")
}

// Every validation gold query prints the same rows in the same order run
// after run (the README's "identical run to run" on one thread): rows that
// tie under ORDER BY included. Each query runs twice, on whichever of the
// engine's connections is free.
func TestGoldQueriesDeterministic(t *testing.T) {
	eng := demoEngine(t)
	ctx := context.Background()
	for _, f := range goldFiles(t) {
		q := readFile(t, f)
		var first string
		for run := range 2 {
			res, err := eng.Query(ctx, q)
			got := fmt.Sprint(err)
			if err == nil {
				got = fmt.Sprint(res.Rows)
			}
			if run == 0 {
				first = got
			} else if got != first {
				t.Errorf("%s: run %d printed other rows than run 1", taskName(f), run+1)
				break
			}
		}
	}
}
