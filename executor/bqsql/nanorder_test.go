package bqsql

import "testing"

// floats is a FLOAT64 column holding NULL, NaN and both infinities, for the
// FLOAT64 semantics rules.
const floats = `UNNEST([CAST('nan' AS FLOAT64), 1, NULL, CAST('-inf' AS FLOAT64), CAST('inf' AS FLOAT64)]) AS x`

// BigQuery orders FLOAT64 NULL < NaN < -inf < … < +inf ("Data types:
// Floating point semantics", and the GoogleSQL compliance cases
// ntile_double, percent_rank_double, orderby_float_4); DuckDB put NaN above
// +inf.
func TestNaNOrderRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "query ORDER BY", bq: `SELECT x FROM ` + floats + ` ORDER BY x`,
			want: "NULL\nNaN\n-Inf\n1\ninf"},
		// A key the statement model types as other than FLOAT64 gets no
		// extra key: written inside bq_nan_order, a name DuckDB resolves
		// to the output column of a.* would be resolved among the FROM
		// items' columns, where it is ambiguous (a released query BigQuery
		// ran failed so).
		{name: "an INT64 output column named in ORDER BY", bq: `WITH a AS (SELECT 2 AS k, 20 AS v UNION ALL SELECT 1, 10), b AS (SELECT 1 AS k UNION ALL SELECT 2) SELECT a.* FROM a JOIN b ON a.k = b.k ORDER BY k`,
			want: "1 | 10\n2 | 20"},
		// A FLOAT64 one gets the extra key; BigQuery resolves the name to
		// the output column of a.* (ORDER BY sees the select list's names
		// first, query syntax reference), so the key names a's column.
		{name: "a FLOAT64 output column of a.* named in ORDER BY", bq: `WITH a AS (SELECT 2.5 AS k, 20 AS v UNION ALL SELECT CAST('nan' AS FLOAT64), 0 UNION ALL SELECT 1.5, 10), b AS (SELECT 1.5 AS k UNION ALL SELECT 2.5 UNION ALL SELECT CAST('nan' AS FLOAT64))
			SELECT a.*, b.k AS bk FROM a JOIN b ON a.k = b.k OR (IS_NAN(a.k) AND IS_NAN(b.k)) ORDER BY k DESC, ` + "`v`",
			want: "2.5 | 20 | 2.5\n1.5 | 10 | 1.5\nNaN | 0 | NaN"},
		{name: "a FLOAT64 output column of a.* in a grouped query", bq: `WITH a AS (SELECT 2.5 AS k UNION ALL SELECT CAST('nan' AS FLOAT64)), b AS (SELECT 2.5 AS k UNION ALL SELECT CAST('nan' AS FLOAT64))
			SELECT a.* FROM a JOIN b ON a.k = b.k OR (IS_NAN(a.k) AND IS_NAN(b.k)) GROUP BY a.k ORDER BY k`,
			want: "NaN\n2.5"},
		{name: "query ORDER BY DESC", bq: `SELECT x AS y FROM ` + floats + ` ORDER BY y DESC`,
			want: "inf\n1\n-Inf\nNaN\nNULL"},
		{name: "query ORDER BY NULLS LAST", bq: `SELECT x FROM ` + floats + ` ORDER BY x NULLS LAST`,
			want: "NaN\n-Inf\n1\ninf\nNULL"},
		{name: "query ORDER BY an expression", bq: `SELECT x FROM ` + floats + ` ORDER BY -x DESC`,
			want: "-Inf\n1\ninf\nNaN\nNULL"},
		{name: "window ORDER BY", bq: `SELECT x, NTILE(5) OVER (ORDER BY x), RANK() OVER (ORDER BY x DESC), ROW_NUMBER() OVER w FROM ` + floats +
			` WINDOW w AS (ORDER BY x) ORDER BY x`,
			want: "NULL | 1 | 5 | 1\nNaN | 2 | 4 | 2\n-Inf | 3 | 3 | 3\n1 | 4 | 2 | 4\ninf | 5 | 1 | 5"},
		{name: "NaNs are peers", bq: `SELECT x, RANK() OVER (ORDER BY x), PERCENT_RANK() OVER (ORDER BY x) FROM UNNEST([CAST('nan' AS FLOAT64), CAST('nan' AS FLOAT64), 0]) AS x ORDER BY x`,
			want: "NaN | 1 | 0\nNaN | 1 | 0\n0 | 3 | 1"},
		{name: "ordered aggregate", bq: `SELECT ARRAY_AGG(x ORDER BY x), STRING_AGG(CAST(x AS STRING) ORDER BY x DESC) FROM ` + floats,
			want: "[NULL, NaN, -Inf, 1, inf] | inf,1,-inf,nan"},
		{name: "UNION ALL ORDER BY", bq: `SELECT 1.5 AS x UNION ALL SELECT CAST('nan' AS FLOAT64) ORDER BY x`,
			want: "NaN\n1.5"},
		// Keys of other types keep their order.
		{name: "STRING and grouped keys", bq: `SELECT s, COUNT(*) AS c FROM UNNEST(['b', 'a', 'b', NULL]) AS s GROUP BY s ORDER BY c DESC, s`,
			want: "b | 2\nNULL | 1\na | 1"},
		{name: "RANGE frame keeps one key", bq: `SELECT x, SUM(x) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM UNNEST([1.0, 2.0, 4.0]) AS x ORDER BY x`,
			want: "1 | 1\n2 | 3\n4 | 4"},
		{name: "DISTINCT aggregate", bq: `SELECT ARRAY_AGG(DISTINCT x ORDER BY x) FROM UNNEST([2, 1, 2]) AS x`,
			want: "[1, 2]"},
	})
}

// The extra key is left out where DuckDB could not bind it.
func TestNaNOrderLeftAlone(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// GoogleSQL compliance analytic_avg_range_preceding_preceding_1.
		{name: "named window extended with a RANGE frame", bq: `SELECT x, SUM(x) OVER (w RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM UNNEST([1.0, 2.0, 4.0]) AS x WINDOW w AS (ORDER BY x) ORDER BY x`,
			want: "1 | 1\n2 | 3\n4 | 4"},
		// GoogleSQL compliance with_run_once2.
		{name: "ORDER BY a RAND alias", bq: `WITH q AS (SELECT k, RAND() r FROM UNNEST([1, 2, 3]) AS k ORDER BY r LIMIT 2)
			SELECT COUNT(*) FROM (SELECT * FROM q UNION ALL SELECT * FROM q)`,
			want: "4"},
	})
}

// BigQuery resolves a name in ORDER BY, alone or inside an expression,
// among the select list's output names first (query syntax reference,
// ORDER BY clause): a name of an output column a.* made is a's column, even
// where a joined table has a column of that name. DuckDB resolves a name
// inside an expression among the FROM items' columns, where it is
// ambiguous; the translation names a's column.
func TestOrderByStarColumnInExpression(t *testing.T) {
	const ab = `WITH a AS (SELECT 2 AS k, 20 AS v, DATE '2020-03-05' AS d, 7 AS month, STRUCT(2 AS f) AS s UNION ALL SELECT 1, 10, DATE '2020-01-09', 8, STRUCT(1 AS f)),
		b AS (SELECT 1 AS k, 1 AS v, 1 AS d, 1 AS month, 1 AS s UNION ALL SELECT 2, 2, 2, 2, 2) `
	const abf = `WITH a AS (SELECT 2.5 AS k, 20 AS v UNION ALL SELECT CAST('nan' AS FLOAT64), 0 UNION ALL SELECT 1.5, 10),
		b AS (SELECT 1.5 AS k UNION ALL SELECT 2.5 UNION ALL SELECT CAST('nan' AS FLOAT64)) `
	const join = ` FROM a JOIN b ON a.k = b.k`
	runRuleCases(t, []ruleCase{
		{name: "an INT64 column in an expression", bq: ab + `SELECT a.* EXCEPT (d, month, s)` + join + ` ORDER BY k + 1 DESC`,
			want: "2 | 20\n1 | 10"},
		{name: "a.* columns in an expression", bq: ab + `SELECT a.* EXCEPT (d, s)` + join + ` ORDER BY -k * v`,
			want: "2 | 20 | 7\n1 | 10 | 8"},
		{name: "a function of an a.* column", bq: ab + `SELECT a.*` + join + ` ORDER BY ABS(v) DESC`,
			want: "2 | 20 | 2020-03-05 | 7 | {f: 2}\n1 | 10 | 2020-01-09 | 8 | {f: 1}"},
		{name: "a field of an a.* STRUCT column", bq: ab + `SELECT a.*` + join + ` ORDER BY s.f DESC`,
			want: "2 | 20 | 2020-03-05 | 7 | {f: 2}\n1 | 10 | 2020-01-09 | 8 | {f: 1}"},
		// MONTH is a date part there, not the column month.
		{name: "a date part named like an a.* column", bq: ab + `SELECT a.*` + join + ` ORDER BY DATE_TRUNC(d, MONTH) DESC, month`,
			want: "2 | 20 | 2020-03-05 | 7 | {f: 2}\n1 | 10 | 2020-01-09 | 8 | {f: 1}"},
		// Inside a subquery the name is the subquery's own column.
		{name: "a subquery's own column", bq: ab + `SELECT a.* EXCEPT (v, d, month, s)` + join + ` ORDER BY (SELECT MAX(k) FROM b) + k`,
			want: "1\n2"},
		{name: "a FLOAT64 column in an expression", bq: abf + `SELECT a.*` + ` FROM a JOIN b ON a.k = b.k OR (IS_NAN(a.k) AND IS_NAN(b.k)) ORDER BY k + 1 DESC`,
			want: "2.5 | 20\n1.5 | 10\nNaN | 0"},
		{name: "a backticked name", bq: ab + `SELECT a.* EXCEPT (d, month, s)` + join + " ORDER BY `k` * -1",
			want: "2 | 20\n1 | 10"},
		{name: "in a grouped query", bq: ab + `SELECT a.* EXCEPT (v, d, month, s)` + join + ` GROUP BY a.k ORDER BY k * -1`,
			want: "2\n1"},
	})
}
