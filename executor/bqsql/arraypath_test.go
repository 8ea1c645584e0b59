package bqsql

import "testing"

// TestArrayPathRules: a FROM item that is a path through a range variable
// is an implicit UNNEST (GoogleSQL reference, FROM clause, correlated
// join; compliance cases cross_apply_limit_* and
// group_by_all_implicit_unnest_table_array_path_regression_test).
func TestArrayPathRules(t *testing.T) {
	const t1 = `WITH Table1 AS (SELECT 1 AS key, ['b', 'a'] AS vals UNION ALL SELECT 2, CAST([] AS ARRAY<STRING>)) `
	runRuleCases(t, []ruleCase{
		{name: "a correlated array path in a subquery",
			bq: t1 + `SELECT key, ARRAY_LENGTH(ARRAY(SELECT v FROM t.vals v ORDER BY v LIMIT 1)) FROM Table1 t ORDER BY key`, want: "1 | 1\n2 | 0"},
		{name: "a comma join to an array path",
			bq: t1 + `SELECT t.key, STRING_AGG(v, '' ORDER BY v) FROM Table1 AS t, t.vals AS v GROUP BY t.key`, want: "1 | ab"},
		{name: "JOIN to an array path",
			bq: t1 + `SELECT t.key, v FROM Table1 AS t JOIN t.vals AS v ON v > 'a'`, want: "1 | b"},
	})
}
