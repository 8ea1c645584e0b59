package bqsql

import "testing"

// A subscript on a typed array literal, ARRAY<T>[…][…], applies to the whole
// literal (GoogleSQL reference, array subscript operator).
func TestTypedArraySubscriptRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "ordinal of an array of NULLs", bq: `SELECT ARRAY<BOOL>[NULL][ORDINAL(1)]`, want: "NULL", types: "BOOLEAN"},
		{name: "offset", bq: `SELECT ARRAY<INT64>[1, 2][OFFSET(1)]`, want: "2", types: "BIGINT"},
		{name: "safe offset out of range", bq: `SELECT ARRAY<INT64>[1, 2][SAFE_OFFSET(5)]`, want: "NULL"},
		{name: "nested type", bq: `SELECT ARRAY<STRUCT<a INT64>>[STRUCT(5 AS a)][OFFSET(0)].a`, want: "5"},
		{name: "offset out of range", bq: `SELECT ARRAY<INT64>[1][OFFSET(1)]`, err: errRuntime},
		{name: "comparison before an array literal", bq: `SELECT 3 > [1][OFFSET(0)]`, want: "true"},
	})
}
