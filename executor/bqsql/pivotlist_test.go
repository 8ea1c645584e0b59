package bqsql

import "testing"

// PIVOT aggregates DuckDB's PIVOT refuses (the HAVING MAX/MIN modifier, a
// subquery inside) are pivoted as lists of rows and aggregated per cell
// (were unsupported); the cases follow pivot.test's having_in_aggregate_fn_call,
// having_min_with_reference and pivot_subquery_in_pivot_expr on data of our
// own.
func TestPivotListAggregateRules(t *testing.T) {
	const t1 = `WITH t1 AS (SELECT * FROM UNNEST([STRUCT(1 AS x, 100 AS y, 1000 AS z),
		(1, 101, 1002), (1, 101, 1001), (2, NULL, 1002), (2, 103, 1003), (2, 100, 1000)])) `
	runRuleCases(t, []ruleCase{
		{name: "HAVING MAX",
			bq:   t1 + `SELECT * FROM (SELECT x, y FROM t1) PIVOT(MAX(y HAVING MAX x) FOR x IN (1, 2))`,
			want: "101 | 103"},
		{name: "HAVING MIN and an empty cell",
			bq:   t1 + `SELECT * FROM (SELECT x, y, z FROM t1) PIVOT(SUM(z HAVING MIN y) AS s, COUNT(* HAVING MIN y) AS c FOR x IN (1, 3))`,
			want: "1000 | 1 | NULL | 0"},
		{name: "COUNT HAVING over no rows is 0",
			bq:   t1 + `SELECT * FROM (SELECT 1.2 AS a) PIVOT(COUNT(* HAVING MIN (SELECT 1.2 FROM t1 LIMIT 1)) AS c FOR a IN (1.3 AS n))`,
			want: "0"},
		{name: "a subquery in the aggregate",
			bq:   t1 + `SELECT * FROM (SELECT x, y FROM t1) PIVOT(SUM((SELECT SUM(z) FROM t1)) FOR x IN (1, 9)) ORDER BY y NULLS FIRST`,
			want: "NULL | NULL | NULL\n100 | 6008 | NULL\n101 | 12016 | NULL\n103 | NULL | NULL"},
	})
}

// COUNT(… HAVING MAX|MIN k) of no rows is 0, as COUNT is (was NULL).
func TestHavingCountOfNoRowsRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "no rows", bq: `SELECT COUNT(x HAVING MAX x), COUNT(* HAVING MIN x) FROM UNNEST([1]) AS x WHERE x > 5`, want: "0 | 0"},
	})
}
