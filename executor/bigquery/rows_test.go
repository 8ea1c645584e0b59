package bigquery

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/bqfake"
)

func numberedRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{strconv.Itoa(i), "s" + strconv.Itoa(i)}
	}
	return rows
}

var numberedSchema = []bqfake.Field{{Name: "i", Type: "INTEGER"}, {Name: "s", Type: "STRING"}}

// Results are read through every page, in order, up to the row cap; the
// true row count comes from the job.
func TestPagination(t *testing.T) {
	cases := []struct {
		name      string
		total     int
		pageRows  int // the server's own page limit
		maxRows   int
		wantRows  int
		truncated bool
		maxPages  int // page fetches allowed (beyond the completion check)
	}{
		{"one page", 5, 0, 100, 5, false, 1},
		{"server pages", 2500, 300, 10_000, 2500, false, 9},
		{"cap mid page", 2500, 300, 1000, 1000, true, 4},
		{"cap on page edge", 2500, 250, 1000, 1000, true, 4},
		{"cap equals total", 600, 300, 600, 600, false, 2},
		{"cap of one", 10, 0, 1, 1, true, 1},
		{"empty", 0, 0, 100, 0, false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, func(cfg *Config) { cfg.MaxRows = c.maxRows })
			const sql = "SELECT i, s FROM numbers"
			f.srv.Script(sql, bqfake.Query{Schema: numberedSchema, Rows: numberedRows(c.total), PageRows: c.pageRows})
			res, err := f.eng.Query(context.Background(), sql)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != c.wantRows || res.Truncated != c.truncated || res.TotalRows != int64(c.total) {
				t.Fatalf("%d rows, truncated %v, total %d; want %d, %v, %d", len(res.Rows), res.Truncated, res.TotalRows, c.wantRows, c.truncated, c.total)
			}
			for i, row := range res.Rows {
				if row[0] != int64(i) || row[1] != "s"+strconv.Itoa(i) {
					t.Fatalf("row %d = %v", i, row)
				}
			}
			if len(res.Columns) != 2 || res.Columns[0].Name != "i" || res.Columns[1].Type != "STRING" {
				t.Errorf("columns %v", res.Columns)
			}
			// Pages: never more rows requested than the cap still needs.
			pages := 0
			for _, r := range f.srv.Calls("jobs.getQueryResults") {
				if r.Query.Get("maxResults") == "0" {
					continue // completion check: schema and total only
				}
				pages++
				n, _ := strconv.Atoi(r.Query.Get("maxResults"))
				if n <= 0 || n > c.maxRows {
					t.Errorf("page asked for maxResults=%q with a cap of %d", r.Query.Get("maxResults"), c.maxRows)
				}
			}
			if pages > c.maxPages {
				t.Errorf("%d page fetches, want at most %d", pages, c.maxPages)
			}
		})
	}
}

// The byte cap stops reading pages at the first row it cannot keep; the
// true count still comes from the job.
func TestByteCap(t *testing.T) {
	f := newFixture(t, func(cfg *Config) { cfg.MaxResultBytes = 50_000 })
	const sql = "SELECT i, s FROM big"
	rows := make([][]any, 300)
	for i := range rows {
		rows[i] = []any{strconv.Itoa(i), strings.Repeat("x", 10_000)}
	}
	f.srv.Script(sql, bqfake.Query{Schema: numberedSchema, Rows: rows, PageRows: 100})
	res, err := f.eng.Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || !res.Truncated || !res.ByteCapped || res.TotalRows != 300 {
		t.Fatalf("rows %d, truncated %v, byte capped %v, total %d", len(res.Rows), res.Truncated, res.ByteCapped, res.TotalRows)
	}
	if pages := len(f.srv.Calls("jobs.getQueryResults")); pages > 2 {
		t.Errorf("%d result fetches after the cap was reached on the first page", pages)
	}
}
