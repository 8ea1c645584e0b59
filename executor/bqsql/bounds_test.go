package bqsql

import (
	"context"
	"strings"
	"testing"
)

// Values past BigQuery's own caps are BigQuery's errors, raised before the
// engine builds them (on today's engine REPEAT('x', 2000000000) took 5.9 GB
// and minutes, issue 25); a GENERATE_ARRAY past the engine's own cap is
// unsupported. Values within the caps are unchanged. Each case is checked
// end to end: translated, run on DuckDB with the prelude, its error
// explained as the engine reports it.
func TestValueCaps(t *testing.T) {
	db := openDuck(t)
	ctx := context.Background()
	cases := []struct {
		sql         string
		want        string // the value, or the explained error
		unsupported bool
	}{
		{"SELECT LENGTH(REPEAT('x', 2000000000))", "Output of REPEAT exceeds max allowed output size of 1MB", false},
		{"SELECT REPEAT('abc', 1000000000)", "Output of REPEAT exceeds max allowed output size of 1MB", false},
		{"SELECT LENGTH(REPEAT('xy', 524289))", "Output of REPEAT exceeds max allowed output size of 1MB", false},
		{"SELECT LENGTH(REPEAT('x', 1048576))", "1048576", false},
		{"SELECT REPEAT('abc', -15)", "Second argument (repeat count) for REPEAT cannot be negative", false},
		{"SELECT REPEAT('ab', 3)", "ababab", false},
		{"SELECT REPEAT(NULL, -1) IS NULL", "true", false},
		{"SELECT REPEAT(REPEAT(REPEAT(REPEAT('a', 2), 2), 2), 2)", "aaaaaaaaaaaaaaaa", false},
		// A correlated argument inside a lateral UNNEST (DuckDB's lambdas
		// cannot bind there: the checks use none).
		{"WITH t AS (SELECT 'ab' AS x) SELECT m.v FROM t AS s, UNNEST([STRUCT(1 AS n, REPEAT(s.x, 2) AS v)]) AS m", "abab", false},
		{"WITH t AS (SELECT 1.5 AS x) SELECT m.v FROM t AS s, UNNEST([STRUCT(1 AS n, FORMAT('%.2f', s.x) AS v)]) AS m", "1.50", false},
		{"SELECT LENGTH(LPAD('x', 2000000000, 'y'))", "Output of LPAD/RPAD exceeds max allowed output size of 1MB", false},
		{"SELECT RPAD('abc', 1000000000)", "Output of LPAD/RPAD exceeds max allowed output size of 1MB", false},
		{"SELECT LPAD('x', 3, 'y')", "yyx", false},
		{"SELECT LENGTH(FORMAT('%2000000000d', 1))", "Width 2000000000 exceeds the maximum supported output width of FORMAT. Limit: 1048576", false},
		{"SELECT FORMAT('%.1048577f', 1.5)", "Precision 1048577 exceeds the maximum supported output width of FORMAT. Limit: 1048576", false},
		{"SELECT FORMAT('%5d|%.2f', 42, 3.14159)", "   42|3.14", false},
		{"SELECT REPEAT(b'\\x00\\xff', 2) = b'\\x00\\xff\\x00\\xff'", "true", false},
		{"SELECT LENGTH(REPEAT('é', 524288))", "524288", false},
		{"SELECT LENGTH(REPEAT('é', 524289))", "Output of REPEAT exceeds max allowed output size of 1MB", false},
		{"SELECT ARRAY_LENGTH(GENERATE_ARRAY(1, 100000000))", "unsupported in the embedded engine: GENERATE_ARRAY of more than 10000000 elements is not supported by the embedded engine", true},
		{"SELECT ARRAY_LENGTH(GENERATE_ARRAY(0, 2000000000, 100))", "unsupported in the embedded engine: GENERATE_ARRAY of more than 10000000 elements is not supported by the embedded engine", true},
		{"SELECT ARRAY_LENGTH(GENERATE_ARRAY(1, 1000000))", "1000000", false},
		{"SELECT ARRAY_TO_STRING(ARRAY(SELECT CAST(x AS STRING) FROM UNNEST(GENERATE_ARRAY(10, 1, -4)) x), ',')", "10,6,2", false},
		{"SELECT GENERATE_ARRAY(1, 5, 0)", "Sequence step cannot be 0.", false},
	}
	for _, c := range cases {
		q, err := Translate(c.sql)
		if err != nil {
			t.Errorf("%s: translate: %v", c.sql, err)
			continue
		}
		rows, err := queryRows(ctx, db, q)
		got, unsupported := "", false
		if err != nil {
			got, unsupported = Explain(strings.TrimPrefix(err.Error(), "database/sql/driver: "))
		} else {
			got = rows[0][0]
		}
		if got != c.want || unsupported != c.unsupported {
			t.Errorf("%s:\n got %q (unsupported %v)\nwant %q (unsupported %v)", c.sql, got, unsupported, c.want, c.unsupported)
		}
	}
}

// REPEAT's signatures are (STRING, INT64) and (BYTES, INT64), STRING first
// (string functions reference); an untyped NULL matches both, and
// GoogleSQL takes the first: REPEAT(NULL, n) is a NULL STRING. DuckDB
// alone would choose its BLOB overload, a BYTES column.
func TestRepeatOfNull(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "untyped NULL is a STRING", bq: `SELECT REPEAT(NULL, 10), REPEAT('ab', NULL), REPEAT(NULL, NULL)`,
			want: "NULL | NULL | NULL", types: "VARCHAR | VARCHAR | VARCHAR"},
		{name: "typed operands keep their type", bq: `SELECT REPEAT(CAST(NULL AS BYTES), 2), REPEAT(b'ab', 2), REPEAT('ab', 2)`,
			types: "BLOB | BLOB | VARCHAR", want: "NULL | b\"abab\" | abab"},
	})
}
