package bqsql

import "testing"

// A subquery in HAVING may read a SELECT alias of an aggregate
// (GoogleSQL compliance tests, exists_functions having_correlated_unnest).
func TestHavingSubqueryAliasRules(t *testing.T) {
	const rows = `(SELECT 3 AS g, 300 AS v UNION ALL SELECT 2, 201 UNION ALL SELECT 2, 5 UNION ALL SELECT 1, 7)`
	runRuleCases(t, []ruleCase{
		{name: "EXISTS over UNNEST of an ARRAY_AGG alias",
			bq:   `SELECT g, SUM(v), ARRAY_LENGTH(ARRAY_AGG(v)) n, ARRAY_AGG(v ORDER BY v) aa FROM ` + rows + ` GROUP BY g HAVING EXISTS (SELECT * FROM UNNEST(aa) a WHERE a > 200) ORDER BY g DESC`,
			want: "3 | 300 | 1 | [300]\n2 | 206 | 2 | [5, 201]"},
		{name: "scalar subquery over the alias", bq: `SELECT g, SUM(v) AS s FROM ` + rows + ` GROUP BY g HAVING (SELECT s) > 10 ORDER BY g`,
			want: "2 | 206\n3 | 300"},
		{name: "the UNNEST alias hides the SELECT alias", bq: `SELECT g, MAX(v) AS a FROM ` + rows + ` GROUP BY g HAVING EXISTS (SELECT a FROM UNNEST([1]) a WHERE a > 1) ORDER BY g`,
			want: ""},
	})
}
