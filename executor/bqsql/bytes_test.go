package bqsql

import "testing"

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
