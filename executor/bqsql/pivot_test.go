package bqsql

import "testing"

// TestPivotRules checks PIVOT against BigQuery's documented semantics (the
// operator reference's Produce example) and the naming and NULL rules of
// GoogleSQL's compliance tests (pivot.test), on data of our own.
func TestPivotRules(t *testing.T) {
	const produce = `WITH Produce AS (
		SELECT 'Kale' AS product, 51 AS sales, 'Q1' AS quarter UNION ALL SELECT 'Kale', 23, 'Q2'
		UNION ALL SELECT 'Kale', 45, 'Q3' UNION ALL SELECT 'Kale', 3, 'Q4'
		UNION ALL SELECT 'Apple', 77, 'Q1' UNION ALL SELECT 'Apple', 0, 'Q2'
		UNION ALL SELECT 'Apple', 25, 'Q3' UNION ALL SELECT 'Apple', 2, 'Q4') `
	const t1 = `WITH t1 AS (SELECT * FROM UNNEST([STRUCT(1 AS x, 100 AS y, 1000 AS z),
		(1, 100, 1002), (1, 101, 1001), (2, NULL, 1002), (2, NULL, 1003), (2, 100, 1000)])) `
	runRuleCases(t, []ruleCase{
		// DuckDB's PIVOT takes one aggregate call: MIN (two calls elsewhere,
		// for NaN) is one here; STDDEV over FLOAT64, several, is refused as
		// the engine's limit, never the model's error.
		{name: "MIN and MAX of an expression in one PIVOT",
			bq:   t1 + `SELECT x, pmin_100, pmax_100 FROM (SELECT x, y, z FROM t1) PIVOT(MIN(z - 1000) AS pmin, MAX(z - 1000) AS pmax FOR y IN (100)) ORDER BY x`,
			want: "1 | 0 | 2\n2 | 0 | 0"},
		{name: "STDDEV of FLOAT64 in a PIVOT (pivoted as lists, see pivotlist.go)",
			bq:   t1 + `SELECT ROUND(_100, 6) FROM (SELECT y, CAST(z AS FLOAT64) AS f FROM t1) PIVOT(STDDEV(f) FOR y IN (100))`,
			want: "1.154701"},
		{name: "documented example: other columns group, values name the columns",
			bq:   produce + `SELECT product, Q1, Q2, Q3, Q4 FROM Produce PIVOT(SUM(sales) FOR quarter IN ('Q1', 'Q2', 'Q3', 'Q4')) ORDER BY product`,
			want: "Apple | 77 | 0 | 25 | 2\nKale | 51 | 23 | 45 | 3"},
		{name: "grouping columns first, an integer value alone is _N, NULL collects the NULL rows",
			bq:   t1 + `SELECT * FROM (SELECT x, y, z FROM t1) PIVOT(SUM(z - 1000) FOR y IN (100, 101, 103, NULL)) ORDER BY x`,
			want: "1 | 2 | 1 | NULL | NULL\n2 | 0 | NULL | NULL | 5"},
		{name: "an unaliased integer value named through _N",
			bq:   t1 + `SELECT x, z, _100, _101 FROM (SELECT x, y, z FROM t1) PIVOT(COUNT(*) FOR y IN (100, 101)) ORDER BY x, z`,
			want: "1 | 1000 | 1 | 0\n1 | 1001 | 0 | 1\n1 | 1002 | 1 | 0\n2 | 1000 | 1 | 0\n2 | 1002 | 0 | 0\n2 | 1003 | 0 | 0"},
		{name: "aggregate aliases prefix the value name; a value may be listed twice",
			bq: t1 + `SELECT x, c_100, m_100, c_NULL, m_NULL, c_n, m_n FROM (SELECT x, y, z FROM t1)
				PIVOT(COUNT(z) AS c, MAX(z) AS m FOR y IN (100, NULL, NULL AS n)) ORDER BY x`,
			want: "1 | 2 | 1002 | 0 | NULL | 0 | NULL\n2 | 1 | 1000 | 2 | 1003 | 2 | 1003"},
		{name: "no grouping column and no rows give one row",
			bq:   t1 + `SELECT * FROM (SELECT y, z FROM t1 WHERE FALSE) PIVOT(COUNT(z) AS c, ANY_VALUE(z) AS a FOR y IN (100, 101 AS b))`,
			want: "0 | NULL | 0 | NULL"},
		{name: "the pivot output takes an alias",
			bq:   t1 + `SELECT p._100 FROM (SELECT y, z FROM t1) AS s PIVOT(MIN(z) FOR y IN (100)) AS p`,
			want: "1000"},
		{name: "a FOR expression is unsupported",
			bq:  t1 + `SELECT * FROM t1 PIVOT(COUNT(*) FOR (y > 100) IN (TRUE, FALSE))`,
			err: ErrUnsupported},
		// Evaluated per aggregate and per value, once for a value listed
		// twice (pivot.test's pivot_nondeterministic_pivot_expr).
		{name: "a non-deterministic aggregate",
			bq: t1 + `SELECT a_1 = a_n, b_1 = b_n, a_1 != b_1, a_1 != a_2, a_1 BETWEEN 0 AND 3 FROM (SELECT x FROM t1)
				PIVOT(SUM(RAND()) AS a, SUM(RAND()) AS b FOR x IN (1, 1 AS n, 2))`,
			want: "true | true | true | true | true"},
		{name: "an unaliased FLOAT64 value is unsupported",
			bq:  t1 + `SELECT * FROM t1 PIVOT(COUNT(*) FOR y IN (1.5))`,
			err: ErrUnsupported},
	})
}
