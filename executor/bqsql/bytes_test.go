package bqsql

import (
	"strings"
	"testing"
)

// TestBytesArgumentRules: STRING_AGG and LENGTH take BYTES as well as
// STRING (GoogleSQL reference, string functions; compliance cases
// aggregation_14 and string_agg_BYTES_analytic_*).
func TestBytesArgumentRules(t *testing.T) {
	const elems = ` FROM (SELECT b'a\xcf\x83' AS e UNION ALL SELECT b'bc' UNION ALL SELECT b'' UNION ALL SELECT NULL) `
	runRuleCases(t, []ruleCase{
		{name: "LENGTH counts bytes of BYTES, characters of STRING",
			bq: `SELECT LENGTH(b'a\xcf\x83'), LENGTH('aσ'), LENGTH(CAST(NULL AS BYTES))`, want: "3 | 2 | NULL"},
		{name: "LENGTH of an array is a signature error", bq: `SELECT LENGTH([1])`, err: errRuntime},
		{name: "STRING_AGG of BYTES is BYTES",
			bq: `SELECT STRING_AGG(e, b'-' ORDER BY e) = b'-a\xcf\x83-bc', LENGTH(STRING_AGG(e ORDER BY e))` + elems, want: "true | 7"},
		{name: "STRING_AGG over no rows is NULL for STRING and BYTES",
			bq: `SELECT STRING_AGG(c), STRING_AGG(d, b", ") IS NULL FROM (SELECT 'foo' AS c, b"bar" AS d) WHERE FALSE`, want: "NULL | true"},
		{name: "analytic STRING_AGG of BYTES",
			bq:   `SELECT LENGTH(e), STRING_AGG(e) OVER (ORDER BY e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) = b',a\xcf\x83'` + elems + `ORDER BY e`,
			want: "NULL | NULL\n0 | NULL\n3 | false\n2 | true"},
		{name: "STRING_AGG of INT64 is a signature error", bq: `SELECT STRING_AGG(x) FROM UNNEST([1, 2]) AS x`, err: errRuntime},
	})
}

// TestBytesLengthAndPosition: BYTE_LENGTH, OCTET_LENGTH and STRPOS take
// BYTES too (compliance cases diff_strings_and_bytes_8 and _10,
// octet_length); DuckDB's strlen and strpos take only VARCHAR, and the
// query failed as the model's error.
func TestBytesLengthAndPosition(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "BYTE_LENGTH of STRING and BYTES",
			bq: `SELECT BYTE_LENGTH('\u20ac'), BYTE_LENGTH(b'\xe2\x82\xac'), OCTET_LENGTH(b'a'), BYTE_LENGTH(CAST(NULL AS BYTES))`, want: "3 | 3 | 1 | NULL"},
		{name: "BYTE_LENGTH of INT64 is a signature error", bq: `SELECT BYTE_LENGTH(1)`, err: errRuntime},
		{name: "STRPOS counts bytes in BYTES",
			bq: `SELECT STRPOS(b'\xe2\x82\xac', b'\x82'), STRPOS(b'a\x00b', b'b'), STRPOS(b'abc', b'd'), STRPOS(b'abc', NULL)`, want: "2 | 3 | 0 | NULL"},
		{name: "STRPOS counts characters in STRING", bq: `SELECT STRPOS('\u20acb', 'b')`, want: "2"},
		{name: "STRPOS of BYTES in STRING is a signature error", bq: `SELECT STRPOS('abc', b'b')`, err: errRuntime},
	})
}

// TestBytesLike: LIKE matches BYTES against BYTES patterns byte by byte
// (compliance files like_any.test and like_all.test, *_bytes_*); DuckDB
// has no LIKE over BLOB, and the engine reported it unsupported.
func TestBytesLike(t *testing.T) {
	const kv = `WITH kv AS (SELECT b'Value1' AS v UNION ALL SELECT b'Value2' UNION ALL SELECT NULL) `
	runRuleCases(t, []ruleCase{
		{name: "a bytes pattern", bq: `SELECT b'Value1' LIKE b'Val%1', b'\xe2\x82\xac' LIKE b'_\x82_', b'ab' LIKE b'_'`, want: "true | true | false"},
		{name: "NOT LIKE", bq: `SELECT b'abc' NOT LIKE b'a%'`, want: "false"},
		{name: "the backslash escapes", bq: `SELECT b'a%' LIKE b'a\\%', b'ab' LIKE b'a\\%'`, want: "true | false"},
		{name: "a NUL byte", bq: `SELECT b'a\x00b' LIKE b'a_b', b'a\x00b' LIKE b'a\x00%'`, want: "true | true"},
		{name: "a CTE column", bq: kv + `SELECT v LIKE b'%2' FROM kv ORDER BY v`, want: "NULL\nfalse\ntrue"},
		{name: "LIKE ANY over a list", bq: kv + `SELECT v LIKE ANY (b'x', b'V%1', NULL) FROM kv ORDER BY v`, want: "NULL\ntrue\nNULL"},
		{name: "LIKE ALL over UNNEST", bq: kv + `SELECT v LIKE ALL UNNEST([b'V%', b'%1']) FROM kv ORDER BY v`, want: "NULL\ntrue\nfalse"},
		{name: "NOT LIKE ANY over a subquery", bq: kv + `SELECT v NOT LIKE ANY (SELECT p FROM UNNEST([b'%1', b'%2']) AS p) FROM kv ORDER BY v`, want: "NULL\ntrue\ntrue"},
		// A parenthesized CTE body types its columns from every branch.
		{name: "a CTE of a parenthesized UNION with NULL", bq: `WITH kv AS ((SELECT NULL AS v UNION ALL SELECT b'ab')) SELECT v LIKE ANY (NULL, b'a_') FROM kv ORDER BY v`, want: "NULL\ntrue"},
		{name: "STRING LIKE is unchanged", bq: `SELECT 'a\u20ac' LIKE 'a_'`, want: "true"},
	})
}

// TestConcatOfText: CONCAT passes text arguments through unwrapped. DuckDB
// expands bq_to_string in place with its argument written many times over,
// so wrapping every argument made four nested CONCATs of a SUBSTR take
// minutes to bind; BYTES arguments were joined as their escaped text.
func TestConcatOfText(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "nested CONCATs of a SUBSTR",
			bq:   `SELECT CONCAT(CONCAT(CONCAT(CONCAT(CONCAT(SUBSTR(CAST(1.5 AS STRING), 0, 3), '%'), 'a'), 'b'), 'c'), LOWER('D'))`,
			want: "1.5%abcd"},
		{name: "numbers are still formatted", bq: `SELECT CONCAT('x', 1.5, '-', 2, '-', CAST(NULL AS STRING))`, want: "NULL"},
		{name: "a FLOAT64 the BigQuery way", bq: `SELECT CONCAT('x', 1e20)`, want: "x1e+20"},
		{name: "BYTES join as bytes", bq: `SELECT CONCAT(b'\xe2', SUBSTR(b'\x82\xac', 1)) = b'\xe2\x82\xac'`, want: "true"},
	})
	sql, err := Translate(`SELECT CONCAT(CONCAT(SUBSTR('abc', 1), 'x'), UPPER('y'))`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sql, "bq_to_string") {
		t.Errorf("text arguments wrapped in bq_to_string: %s", sql)
	}
}
