package bqsql

import "testing"

// JOIN UNNEST(…) without ON or USING, which BigQuery accepts: every element
// pairs with its row, and LEFT JOIN keeps a row whose array is empty
// (GoogleSQL reference, UNNEST operator and correlated joins).
func TestJoinUnnestWithoutConditionRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "join", bq: `SELECT a, b FROM UNNEST([1, 2]) a JOIN UNNEST(['a', 'b']) b ORDER BY a, b`, want: "1 | a\n1 | b\n2 | a\n2 | b"},
		{name: "inner join of an empty array", bq: `SELECT a, b FROM UNNEST(ARRAY<INT64>[]) a INNER JOIN UNNEST(['a']) b`, want: ""},
		{name: "correlated", bq: `SELECT x FROM (SELECT [3, 5] arr) t JOIN UNNEST(t.arr) x ORDER BY x`, want: "3\n5"},
		{name: "correlated with offset", bq: `SELECT x, p FROM (SELECT [3, 5] arr) t JOIN UNNEST(t.arr) x WITH OFFSET p ORDER BY p`, want: "3 | 0\n5 | 1"},
		{name: "left join keeps an empty array's row", bq: `SELECT t.k, x FROM (SELECT 1 AS k, ARRAY<INT64>[] AS arr) t LEFT OUTER JOIN UNNEST(t.arr) x`, want: "1 | NULL"},
		{name: "with a condition", bq: `SELECT a, b FROM UNNEST([1, 2]) a JOIN UNNEST([1]) b ON a = b`, want: "1 | 1"},
	})
}
