package bqsql

import (
	"context"
	"testing"
)

// A SELECT item's alias without AS may be any non-reserved BigQuery name,
// DuckDB keywords included (GoogleSQL lexical structure: only reserved
// keywords need backticks). Every keyword the linked DuckDB knows is tried
// as one, so the list cannot fall behind a DuckDB upgrade.
func TestBareAliasKeywords(t *testing.T) {
	db := openDuck(t)
	ctx := context.Background()
	rows, err := queryRows(ctx, db, "SELECT upper(keyword_name) FROM duckdb_keywords() ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		kw := r[0]
		if bqReserved[kw] {
			continue
		}
		for _, bq := range []string{"SELECT 1 " + kw, "SELECT 1 " + kw + ", 2 AS b", "SELECT x " + kw + " FROM UNNEST([1]) AS x"} {
			out, err := Translate(bq)
			if err != nil {
				t.Errorf("Translate(%q): %v", bq, err)
				continue
			}
			got, err := queryRows(ctx, db, out)
			if err != nil || len(got) != 1 || got[0][0] != "1" {
				t.Errorf("%s\n%s\n= %v, %v; want 1", bq, out, got, err)
			}
		}
	}
}

func TestBareAliasRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "compliance groupby_1 shape", bq: `SELECT d functions FROM UNNEST([1, 1]) AS d GROUP BY d`, want: "1"},
		{name: "date part word", bq: `SELECT EXTRACT(YEAR FROM DATE '2020-05-01') year, DATE_DIFF(DATE '2020-05-03', DATE '2020-05-01', DAY) day`, want: "2020 | 2"},
		{name: "interval unit stays a unit", bq: `SELECT DATE_ADD(DATE '2020-05-01', INTERVAL 1 DAY) d`, want: "2020-05-02"},
		{name: "in a subquery", bq: `SELECT (SELECT 5 value)`, want: "5"},
	})
}

// Adjacent literals are one literal (GoogleSQL lexical structure, string
// and bytes literals: "Quoted literals separated by whitespace are
// concatenated").
func TestAdjacentLiteralRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "strings", bq: `SELECT 'abc' '123'`, want: "abc123"},
		{name: "three, across lines, raw", bq: "SELECT 'a' \"b\"\n r'\\c'", want: `ab\c`},
		{name: "bytes", bq: `SELECT b'ab' b'c' = b'abc', LENGTH(b'ab' b'c')`, want: "true | 3"},
		{name: "in a comparison", bq: `SELECT 'ab' 'c' = 'abc'`, want: "true"},
	})
}
