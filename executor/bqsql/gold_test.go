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

// runResult is the outcome of one query on the embedded engine.
type runResult struct {
	Translated string
	Err        error
	Stage      string // "", "translate", "run", "timeout"
	Rows       int
	Elapsed    time.Duration
}

// runQuery translates and runs one BigQuery query, reading every row, with a
// per-query timeout that interrupts DuckDB.
func runQuery(ctx context.Context, db queryer, tr *Translator, src string, timeout time.Duration) runResult {
	start := time.Now()
	out, err := tr.Translate(src)
	if err != nil {
		return runResult{Err: err, Stage: "translate", Elapsed: time.Since(start)}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rows, err := db.QueryContext(ctx, out)
	res := runResult{Translated: out}
	if err == nil {
		for rows.Next() {
			res.Rows++
		}
		err = rows.Err()
		rows.Close()
	}
	res.Elapsed = time.Since(start)
	if err != nil {
		res.Err, res.Stage = err, "run"
		if ctx.Err() != nil {
			res.Stage = "timeout"
		}
	}
	return res
}

func TestGoldQueriesOnDemo(t *testing.T) {
	db, cat := demoDB(t)
	tr := &Translator{Catalog: cat}
	files := goldFiles(t)
	ok := 0
	for _, f := range files {
		src := readFile(t, f)
		res := runQuery(context.Background(), db, tr, src, time.Minute)
		if res.Err != nil {
			t.Logf("FAIL %s (%s): %v", taskName(f), res.Stage, firstLine(res.Err.Error()))
			continue
		}
		ok++
	}
	t.Logf("%d of %d gold queries ran without error", ok, len(files))
	if ok < 188 {
		t.Errorf("only %d of %d gold queries ran; want at least 188", ok, len(files))
	}
}
