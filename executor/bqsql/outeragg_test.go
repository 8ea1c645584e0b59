package bqsql

import "testing"

// An aggregate in a subquery aggregates that subquery's rows, even when its
// arguments name only outer columns (GoogleSQL compliance tests,
// array_aggregation array_agg_with_correlated_column_and_limit).
func TestOuterColumnAggregateRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "in WHERE", bq: `SELECT w FROM UNNEST([1, 2, 3]) AS w
			WHERE ((SELECT ARRAY_AGG(w IGNORE NULLS LIMIT 100) FROM (SELECT 1)) IS NOT NULL) ORDER BY w`, want: "1\n2\n3"},
		{name: "with ORDER BY", bq: `SELECT w FROM UNNEST([1, 2, 3]) AS w
			WHERE ((SELECT ARRAY_AGG(w IGNORE NULLS ORDER BY w LIMIT 100) FROM (SELECT 1)) IS NOT NULL) ORDER BY w`, want: "1\n2\n3"},
		{name: "per outer row, in the SELECT list", bq: `SELECT w, (SELECT COUNT(w) FROM UNNEST([7, 8, 9]) AS y) FROM UNNEST([1, 2]) AS w ORDER BY w`,
			want: "1 | 3\n2 | 3"},
		{name: "without FROM", bq: `SELECT x, (SELECT ARRAY_LENGTH(a) FROM (SELECT ARRAY_AGG(x) AS a)) FROM UNNEST([1, 2]) AS x ORDER BY x`,
			want: "1 | 1\n2 | 1"},
		{name: "inner and outer columns", bq: `SELECT w, (SELECT SUM(w * y) FROM UNNEST([1, 2]) AS y) FROM UNNEST([10]) AS w`, want: "10 | 30"},
		{name: "an ungrouped outer column is an error", bq: `SELECT g, (SELECT SUM(v) FROM (SELECT 1)) FROM (SELECT 1 AS g, 2 AS v) GROUP BY g`,
			err: errRuntime},
	})
}
