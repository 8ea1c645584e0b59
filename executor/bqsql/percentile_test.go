package bqsql

import "testing"

// pctValues holds NULL, NaN, both infinities and finite values past half
// of FLOAT64's range. Sorted the BigQuery way, the 9 non-NULL values are
// NaN, -inf, -1.0786e308, -400, -100, 0, 4.9e-324, 1.0786e308, +inf.
const pctValues = `UNNEST([NULL, CAST('inf' AS FLOAT64), CAST('-inf' AS FLOAT64), CAST('nan' AS FLOAT64),
	1.0786158809173895e+308, -1.0786158809173895e+308, 4.94065645841247e-324, 0, -100, -400]) AS x`

// PERCENTILE_CONT follows ZetaSQL's PercentileEvaluator
// (zetasql/public/functions/percentile.h): position (m-1)·p over the values
// in BigQuery's order, v[i]·(1-r) + v[i+1]·r; RESPECT NULLS counts NULLs
// in front and gives the smallest value between the last NULL and it.
func TestPercentileContRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "NaN first, infinities at the ends",
			bq: `SELECT DISTINCT PERCENTILE_CONT(x, 0) OVER (), PERCENTILE_CONT(x, 0.125) OVER (), PERCENTILE_CONT(x, 0.25) OVER (),
				PERCENTILE_CONT(x, 0.5) OVER (), PERCENTILE_CONT(x, 1) OVER () FROM ` + pctValues,
			want: "NaN | -Inf | -1.0786158809173895e+308 | -100 | inf"},
		// -inf·0.4 + -1.08e308·0.6 = -inf; 1.08e308·0.8 + inf·0.2 = +inf;
		// DuckDB's lo + (hi-lo)·r gave NaN for the first.
		{name: "interpolation next to an infinity",
			bq:   `SELECT DISTINCT PERCENTILE_CONT(x, 0.2) OVER (), PERCENTILE_CONT(x, 0.9) OVER () FROM ` + pctValues,
			want: "-Inf | inf"},
		{name: "between the two infinities", bq: `SELECT DISTINCT PERCENTILE_CONT(x, 0.5) OVER () FROM UNNEST([CAST('-inf' AS FLOAT64), CAST('inf' AS FLOAT64)]) AS x`,
			want: "NaN"},
		{name: "between two equal infinities", bq: `SELECT DISTINCT PERCENTILE_CONT(x, 0.75) OVER () FROM UNNEST([CAST('inf' AS FLOAT64), CAST('inf' AS FLOAT64), 1]) AS x`,
			want: "inf"},
		{name: "RESPECT NULLS", bq: `SELECT DISTINCT PERCENTILE_CONT(x, 0.5 RESPECT NULLS) OVER (), PERCENTILE_CONT(x, 0.05 RESPECT NULLS) OVER (),
				PERCENTILE_CONT(x, 0 RESPECT NULLS) OVER () FROM ` + pctValues,
			want: "-250 | NaN | NULL"},
		// Position 1.5 lies between the last NULL and the smallest value:
		// that value, not interpolated; position 2.25 is 1·0.75 + 3·0.25.
		{name: "RESPECT NULLS, finite", bq: `SELECT DISTINCT PERCENTILE_CONT(x, 0.5 RESPECT NULLS) OVER (), PERCENTILE_CONT(x, 0.75 RESPECT NULLS) OVER ()
				FROM UNNEST([NULL, NULL, 3.0, 1.0]) AS x`,
			want: "1 | 1.5"},
		{name: "partitions and plain values", bq: `SELECT k, PERCENTILE_CONT(x, 0.5) OVER (PARTITION BY k), PERCENTILE_CONT(x, 1) OVER (PARTITION BY k)
				FROM UNNEST([STRUCT(1 AS k, 1.0 AS x), (1, 2.0), (1, 4.0), (2, NULL), (2, CAST('nan' AS FLOAT64)), (2, 5.0)]) ORDER BY k, 2 LIMIT 4`,
			want: "1 | 2 | 4\n1 | 2 | 4\n1 | 2 | 4\n2 | NaN | 5"},
		{name: "INT64 with RESPECT NULLS", bq: `SELECT DISTINCT PERCENTILE_CONT(CAST(x AS INT64), 0.75 RESPECT NULLS) OVER () FROM UNNEST([NULL, NULL, 3, 1]) AS x`,
			want: "1.5", types: "DOUBLE"},
		{name: "INT64 and all NULL", bq: `SELECT DISTINCT PERCENTILE_CONT(x, 0.5) OVER (), PERCENTILE_CONT(CAST(NULL AS FLOAT64), 0.5) OVER () FROM UNNEST([1, 2, 3, 4]) AS x`,
			want: "2.5 | NULL", types: "DOUBLE | DOUBLE"},
		{name: "NUMERIC stays NUMERIC", bq: `SELECT DISTINCT PERCENTILE_CONT(CAST(x AS NUMERIC), 0.5) OVER () FROM UNNEST([1, 2]) AS x`,
			want: "1.5", types: "DECIMAL(38,9)"},
		// Neighbours of opposite sign past 8.9e307: the weighted sum stays
		// finite.
		{name: "extremes of opposite sign", bq: `SELECT DISTINCT PERCENTILE_CONT(x, 0.5) OVER () FROM UNNEST([-1.7e308, 1.7e308]) AS x`,
			want: "0"},
	})
}

// BigQuery's MIN and MAX of FLOAT64 are NaN when any input is NaN
// ("Aggregate functions: MIN"; GoogleSQL compliance
// analytic_min_float_double_2); DuckDB's min skipped NaN.
func TestMinMaxNaNRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "aggregate", bq: `SELECT MIN(x), MAX(x), MIN(DISTINCT x), MIN(IF(IS_NAN(x), 0, x)) FROM ` + floats,
			want: "NaN | NaN | NaN | -Inf"},
		{name: "analytic", bq: `SELECT r, MIN(x) OVER (ORDER BY r), MIN(x) OVER (ORDER BY r DESC) FROM UNNEST([STRUCT(1 AS r, 2.0 AS x), (2, CAST('nan' AS FLOAT64)), (3, CAST('-inf' AS FLOAT64))]) ORDER BY r`,
			want: "1 | 2 | NaN\n2 | NaN | NaN\n3 | NaN | -Inf"},
		{name: "other types", bq: `SELECT MIN(s), MIN(n), MIN(d) FROM UNNEST([STRUCT('b' AS s, 2 AS n, DATE '2020-01-02' AS d), ('a', 1, DATE '2020-01-01')])`,
			want: "a | 1 | 2020-01-01"},
	})
}
