package bqsql

import "testing"

// FLOAT64 overflow and special values where BigQuery and DuckDB differ.
func TestFloatSpecialRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// GoogleSQL compliance arithmetic_functions_14_safe_divide: a
		// quotient that overflows is NULL, like division by zero; an
		// infinite operand still gives its infinity or NaN.
		{name: "SAFE_DIVIDE overflow is NULL", bq: `SELECT SAFE_DIVIDE(1e300, 1e-300), SAFE_DIVIDE(-1e300, 1e-300), SAFE_DIVIDE(CAST('inf' AS FLOAT64), 2),
			SAFE_DIVIDE(CAST('nan' AS FLOAT64), 1), SAFE_DIVIDE(7, 2), SAFE_DIVIDE(1, 0)`,
			want: "NULL | NULL | inf | NaN | 3.5 | NULL"},
	})
}

// BigQuery's STDDEV, VARIANCE and CORR over FLOAT64 are NaN when an input
// is NaN or infinite and there are enough rows for a value (GoogleSQL
// compliance stddev_samp_nan, stddev_pop_single_row_positive_inf,
// corr_nan); DuckDB raised "out of range" or gave 0.
func TestStatNaNRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "NaN and infinite inputs", bq: `SELECT STDDEV_SAMP(IF(x = 1, CAST('nan' AS FLOAT64), x)), STDDEV_POP(IF(x = 1, CAST('inf' AS FLOAT64), x)),
			VAR_SAMP(IF(x = 2, CAST('-inf' AS FLOAT64), x)), VARIANCE(x), STDDEV(x), VAR_POP(x) FROM UNNEST([1, 2, 3]) AS x`,
			want: "NaN | NaN | NaN | 1 | 1 | 0.6666666666666666"},
		{name: "one row", bq: `SELECT STDDEV_SAMP(CAST('inf' AS FLOAT64)), STDDEV_POP(CAST('inf' AS FLOAT64)), STDDEV_POP(2.5), VAR_POP(CAST('nan' AS FLOAT64)) FROM UNNEST([1]) AS x`,
			want: "NULL | NaN | 0 | NaN"},
		{name: "analytic", bq: `SELECT x, STDDEV_POP(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM UNNEST([1.0, 3.0, CAST('inf' AS FLOAT64)]) AS x ORDER BY x`,
			want: "1 | 0\n3 | 1\ninf | NaN"},
		{name: "CORR", bq: `SELECT CORR(y, x), CORR(IF(y = 2, CAST('nan' AS FLOAT64), y), x), CORR(y, IF(x = 1, CAST('inf' AS FLOAT64), x)), CORR(y, IF(x = 1, x, NULL))
			FROM UNNEST([STRUCT(1.0 AS y, 1.0 AS x), (2.0, 2.0), (3.0, 3.0)])`,
			want: "1 | NaN | NaN | NULL"},
		{name: "CORR OVER", bq: `SELECT x, CORR(y, x) OVER (ORDER BY x) FROM UNNEST([STRUCT(1.0 AS y, 1.0 AS x), (2.0, 2.0), (CAST('nan' AS FLOAT64), 3.0)]) ORDER BY x`,
			want: "1 | NULL\n2 | 1\n3 | NaN"},
	})
}

// A FLOAT64 literal beside a NUMERIC in one set-operation column or one
// array literal is coerced to NUMERIC (GoogleSQL compliance
// analytic_any_value_numeric, unnest_numeric); the engine made the column
// FLOAT64.
func TestNumericLiteralRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "UNION ALL column", bq: `SELECT v FROM (SELECT CAST(NULL AS NUMERIC) v UNION ALL SELECT 0.01 UNION ALL SELECT -1.230000001 UNION ALL SELECT 2) ORDER BY v`,
			want: "NULL\n-1.230000001\n0.01\n2", types: "DECIMAL(38,9)"},
		{name: "BIGNUMERIC column of a CTE", bq: `WITH t AS (SELECT 1.000000000000000001 AS v UNION ALL SELECT CAST(2 AS BIGNUMERIC) UNION ALL SELECT +0.5) SELECT v FROM t ORDER BY v`,
			want: "0.5\n1.000000000000000001\n2", types: "DECIMAL(38,18)"},
		{name: "INTERSECT column", bq: `SELECT 0.1 AS v INTERSECT DISTINCT SELECT CAST(0.1 AS NUMERIC) INTERSECT DISTINCT SELECT 0.10`,
			want: "0.1", types: "DECIMAL(38,9)"},
		// The statement model cannot read this query (QUALIFY without
		// WHERE): the scan of the items decides.
		{name: "UNION ALL column the model cannot read", bq: `SELECT v FROM (SELECT CAST(NULL AS NUMERIC) v UNION ALL SELECT 0.01) QUALIFY ROW_NUMBER() OVER (ORDER BY v) = 2`,
			want: "0.01", types: "DECIMAL(38,9)"},
		// A non-literal FLOAT64 makes the column FLOAT64; a literal with
		// more decimals than NUMERIC holds is left alone.
		{name: "FLOAT64 set operation columns", bq: `SELECT CAST(0.5 AS FLOAT64) AS v UNION ALL SELECT CAST(1 AS NUMERIC) UNION ALL SELECT 2.5`,
			want: "0.5\n1\n2.5", types: "DOUBLE"},
		{name: "array literal", bq: `SELECT x FROM UNNEST([CAST(3.14159 AS NUMERIC), 1.2345]) AS x ORDER BY x`,
			want: "1.2345\n3.14159", types: "DECIMAL(38,9)"},
		{name: "BIGNUMERIC", bq: `SELECT [1.5, CAST(2 AS BIGNUMERIC)]`, want: "[1.5, 2]", types: "DECIMAL(38,18)[]"},
		// GoogleSQL compliance in_clause_unnest_in_select_bignumeric: the
		// typed array's elements keep their 18 decimals.
		{name: "typed array literal", bq: `SELECT CAST(1.234567890123456789 AS BIGNUMERIC) IN UNNEST(ARRAY<BIGNUMERIC>[1, 3.25, 1.234567890123456789])`,
			want: "true"},
		// FLOAT64 stays FLOAT64 where nothing is NUMERIC, or a
		// non-literal FLOAT64 makes the column FLOAT64 in BigQuery too.
		{name: "FLOAT64 columns", bq: `SELECT [1.5, 2], [CAST(1 AS NUMERIC), CAST(0.5 AS FLOAT64), 2.5]`, want: "[1.5, 2] | [1, 0.5, 2.5]", types: "DOUBLE[] | DOUBLE[]"},
	})
}

// GoogleSQL compliance covar_pop_positive_inf: a covariance over an
// infinite input is NaN (DuckDB gave ±inf); one pair suffices for
// COVAR_POP, COVAR_SAMP needs two.
func TestCovarNaNRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "COVAR", bq: `SELECT COVAR_POP(y, x), COVAR_POP(y, IF(x = 1, CAST('inf' AS FLOAT64), x)), COVAR_SAMP(y, x), COVAR_SAMP(IF(y = 2, CAST('-inf' AS FLOAT64), y), x)
			FROM UNNEST([STRUCT(1.0 AS y, 1.0 AS x), (2.0, 2.0), (3.0, 3.0)])`,
			want: "0.6666666666666666 | NaN | 1 | NaN"},
		{name: "two pairs", bq: `SELECT COVAR_POP(y, x), COVAR_SAMP(x, y) FROM UNNEST([STRUCT(1.0 AS y, 2.0 AS x), (3.0, CAST('inf' AS FLOAT64))])`,
			want: "NaN | NaN"},
		{name: "one pair", bq: `SELECT COVAR_POP(1.0, 2.0), COVAR_SAMP(1.0, 2.0), COVAR_POP(CAST('inf' AS FLOAT64), 2.0)`,
			want: "0 | NULL | NaN"},
	})
}

// CAST(FLOAT64 AS NUMERIC) is the double's exact value rounded half away
// from zero to 9 decimals (conversion rules), NUMERIC(P, S) that value
// rounded to S; NaN, ±inf and values past 29 integer digits are errors
// (SAFE_CAST: NULL). DuckDB's own conversion scales in floating point and
// went wrong past about 9e6 (1e26 came back as …996863366107.9).
func TestFloatToNumericRules(t *testing.T) {
	const xs = `FROM UNNEST([123456789012.345678, 1e26, 0.0009765625, -2.675, 1e29]) AS x WITH OFFSET o ORDER BY o`
	runRuleCases(t, []ruleCase{
		{name: "exact value, half away from zero", bq: `SELECT CAST(CAST(x AS NUMERIC) AS STRING), CAST(CAST(x AS NUMERIC(38, 2)) AS STRING) ` + xs,
			want: "123456789012.345672607 | 123456789012.35\n100000000000000004764729344 | 100000000000000004764729344\n0.000976563 | 0\n-2.675 | -2.68\n99999999999999991433150857216 | 99999999999999991433150857216"},
		{name: "SAFE_CAST of what NUMERIC cannot hold", bq: `SELECT SAFE_CAST(x AS NUMERIC) FROM UNNEST([1e30, CAST('nan' AS FLOAT64), CAST('-inf' AS FLOAT64), 0.5]) AS x WITH OFFSET o ORDER BY o`,
			want: "NULL\nNULL\nNULL\n0.5"},
		{name: "past 29 integer digits", bq: `SELECT CAST(x AS NUMERIC) FROM UNNEST([1e30]) AS x`, err: errRuntime},
		{name: "NaN", bq: `SELECT CAST(x AS NUMERIC) FROM UNNEST([CAST('nan' AS FLOAT64)]) AS x`, err: errRuntime},
		{name: "an aggregate's result", bq: `SELECT CAST(CAST(AVG(x) AS NUMERIC) AS STRING) FROM UNNEST([123456789012.345678, 123456789012.345678]) AS x`,
			want: "123456789012.345672607"},
	})
}

// CAST(FLOAT64 AS INT64) is the closest INT64, halfway cases away from
// zero (conversion rules: "Halfway cases such as 1.5 or -0.5 round away
// from zero"); DuckDB alone rounds them to even. SAFE_CAST too; a value
// past INT64 is the error (SAFE_CAST: NULL).
func TestFloatToInt64Rules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "halfway cases", bq: `SELECT CAST(x AS INT64), SAFE_CAST(x AS INT64) FROM UNNEST([2.5, 3.5, -0.5, -2.5, 1.4999999999999998, 0.0]) AS x WITH OFFSET o ORDER BY o`,
			want: "3 | 3\n4 | 4\n-1 | -1\n-3 | -3\n1 | 1\n0 | 0"},
		{name: "an aggregate's mean", bq: `SELECT CAST(AVG(x) AS INT64) FROM UNNEST([1, 2]) AS x`, want: "2"},
		{name: "past INT64", bq: `SELECT SAFE_CAST(x AS INT64) FROM UNNEST([1e30, CAST('nan' AS FLOAT64)]) AS x WITH OFFSET o ORDER BY o`, want: "NULL\nNULL"},
		{name: "past INT64 fails", bq: `SELECT CAST(x AS INT64) FROM UNNEST([1e30]) AS x`, err: errRuntime},
		{name: "NUMERIC halfway", bq: `SELECT CAST(CAST('-2.5' AS NUMERIC) AS INT64), CAST(CAST('2.5' AS NUMERIC) AS INT64)`, want: "-3 | 3"},
	})
}
