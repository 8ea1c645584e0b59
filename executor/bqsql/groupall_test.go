package bqsql

import "testing"

// TestGroupByAllQualifyRules: GROUP BY ALL groups by the SELECT items with
// no aggregate, window function or constant (GoogleSQL reference, GROUP BY
// ALL; compliance cases group_by_all_window_function_*), also where the
// block filters with QUALIFY.
func TestGroupByAllQualifyRules(t *testing.T) {
	const rows = ` FROM UNNEST([STRUCT(1 AS d, 2 AS x), (1, 3), (2, 5)]) `
	runRuleCases(t, []ruleCase{
		{name: "QUALIFY on a window over the groups",
			bq: `SELECT d, SUM(x), ROW_NUMBER() OVER (ORDER BY d) AS a` + rows + `WHERE TRUE GROUP BY ALL QUALIFY a = 1`, want: "1 | 5 | 1"},
		{name: "constants and aggregates are not keys",
			bq:   `SELECT 'k' AS c, d + 1 AS e, SUM(x) AS s, ROW_NUMBER() OVER (ORDER BY d + 1 DESC) AS a` + rows + `GROUP BY ALL QUALIFY a <= 2 ORDER BY a`,
			want: "k | 3 | 5 | 1\nk | 2 | 5 | 2"},
		{name: "no key: one group",
			bq: `SELECT SUM(x) AS s, ROW_NUMBER() OVER () AS a` + rows + `GROUP BY ALL QUALIFY a = 1`, want: "10 | 1"},
	})
}
