package bqsql

import "testing"

// TestHavingModifierRules: AGG(x HAVING MAX|MIN k) aggregates only the rows
// whose k is the group's extreme; NULL keys never qualify (GoogleSQL
// reference, aggregate function calls; compliance file
// aggregation_having_modifier_queries.test).
func TestHavingModifierRules(t *testing.T) {
	const bools = ` FROM UNNEST([STRUCT(false AS f), STRUCT(true AS f), STRUCT(NULL AS f), STRUCT(true AS f),
		STRUCT(true AS f), STRUCT(NULL AS f), STRUCT(false AS f)]) AS a`
	runRuleCases(t, []ruleCase{
		{name: "COUNT(*) over the rows of the extreme key", bq: `SELECT COUNT(* HAVING MIN a.f), COUNT(* HAVING MAX a.f)` + bools, want: "2 | 3"},
		{name: "disqualified rows are not summed",
			bq:   `SELECT SUM(val HAVING MAX key) FROM (SELECT 1 AS key, 9223372036854775807 AS val UNION ALL SELECT 1, 9223372036854775807 UNION ALL SELECT 2, 2 UNION ALL SELECT 2, 2)`,
			want: "4"},
		{name: "per group; a group of NULL keys has no qualifying row",
			bq:   `SELECT k, MAX(y HAVING MIN x), AVG(y HAVING MAX x), COUNT(y HAVING MAX x) FROM UNNEST([STRUCT(1 AS k, 1 AS x, 5 AS y), (1, 1, 7), (1, 2, 9), (2, NULL, 3)]) GROUP BY k ORDER BY k`,
			want: "1 | 7 | 9 | 1\n2 | NULL | NULL | 0"},
		{name: "another aggregate is unsupported", bq: `SELECT STRING_AGG(s HAVING MAX s) FROM UNNEST(['a']) AS s`, err: ErrUnsupported},
	})
}
