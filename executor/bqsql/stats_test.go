package bqsql

import "testing"

// TestStatOfPreciseNumeric: BigQuery computes STDDEV and VARIANCE of
// NUMERIC exactly, the engine in FLOAT64; values that agree to 7
// significant digits are refused (compliance cases
// stddev_samp_numeric_high_prec_values and kin gave 0 for 0.0707…).
func TestStatOfPreciseNumeric(t *testing.T) {
	const near = `WITH t AS (SELECT CAST('1000000000000000000000000.1' AS NUMERIC) AS x UNION ALL SELECT CAST('1000000000000000000000000.2' AS NUMERIC)) `
	runRuleCases(t, []ruleCase{
		{name: "close NUMERIC values", bq: near + `SELECT STDDEV_SAMP(x) FROM t`, err: errRuntime},
		{name: "close BIGNUMERIC values", bq: `WITH t AS (SELECT CAST('1.0000000000000001' AS BIGNUMERIC) AS x UNION ALL SELECT CAST('1.00000000000000001' AS BIGNUMERIC)) SELECT VAR_POP(x) FROM t`, err: errRuntime},
		{name: "analytic", bq: near + `SELECT STDDEV_POP(x) OVER () FROM t`, err: errRuntime},
		{name: "spread NUMERIC values", bq: `WITH t AS (SELECT CAST(1 AS NUMERIC) AS x UNION ALL SELECT CAST(3 AS NUMERIC)) SELECT VARIANCE(x), STDDEV_POP(x) FROM t`, want: "2 | 1"},
		{name: "spread NUMERIC values, analytic", bq: `WITH t AS (SELECT CAST(1 AS NUMERIC) AS x UNION ALL SELECT CAST(3 AS NUMERIC)) SELECT STDDEV_POP(x) OVER () FROM t`, want: "1\n1"},
		{name: "equal NUMERIC values", bq: `WITH t AS (SELECT CAST(5 AS NUMERIC) AS x UNION ALL SELECT CAST(5 AS NUMERIC)) SELECT STDDEV(x) FROM t`, want: "0"},
	})
}

// TestBigNumericDecimals: a BIGNUMERIC literal or CAST with more than 18
// decimals is refused (compliance case array_agg_BIGNUMERIC_basic): the
// engine's DECIMAL(38, 18) rounded 1.000…0001 to 1.
func TestBigNumericDecimals(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a typed literal", bq: `SELECT BIGNUMERIC '1.00000000000000000000000000000000000001'`, err: ErrUnsupported},
		{name: "a CAST of a string", bq: `SELECT CAST('0.0000000000000000001' AS BIGNUMERIC)`, err: ErrUnsupported},
		{name: "a CAST of a number", bq: `SELECT CAST(0.1234567890123456789 AS BIGNUMERIC)`, err: ErrUnsupported},
		{name: "a CAST of a number with an exponent", bq: `SELECT CAST(1e-29 AS BIGNUMERIC)`, err: ErrUnsupported},
		{name: "an exponent within 18 decimals", bq: `SELECT CAST(CAST(1.5e-3 AS BIGNUMERIC) AS STRING)`, want: "0.0015"},
		{name: "18 decimals and trailing zeros", bq: `SELECT CAST(BIGNUMERIC '0.123456789012345678000' AS STRING)`, want: "0.123456789012345678"},
		{name: "NUMERIC rounds as BigQuery does", bq: `SELECT CAST(NUMERIC '1.0000000005' AS STRING)`, want: "1.000000001"},
	})
}

// TestBigNumericTooPreciseBounded: the check reads model text, so a huge
// exponent is not expanded (big.Rat would compute 10^999999999).
func TestBigNumericTooPreciseBounded(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"1e-999999999", false}, {"1e999999999", false}, {"1e-19", true}, {"1e-18", false},
		{"0.1234567890123456789", true}, {"12.50", false}, {"x", false},
	} {
		if got := bigNumericTooPrecise(c.v); got != c.want {
			t.Errorf("bigNumericTooPrecise(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestSetOpOfStructNames: BigQuery keeps the first branch's STRUCT field
// names and matches fields by position; DuckDB unions STRUCTs by name
// (compliance case struct_union_different_names gave other rows).
func TestSetOpOfStructNames(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "different names", bq: `SELECT STRUCT('abc' AS a, 3 AS b) UNION ALL SELECT STRUCT('def' AS c, 5 AS d)`, err: ErrUnsupported},
		{name: "the same names", bq: `SELECT s.b FROM (SELECT STRUCT('abc' AS a, 3 AS b) AS s UNION ALL SELECT STRUCT('def' AS a, 5 AS B)) ORDER BY 1`, want: "3\n5"},
		{name: "unnamed against named fields", bq: `SELECT STRUCT('abc', 3) AS s UNION ALL SELECT STRUCT('def' AS c, 5 AS d)`, err: ErrUnsupported},
		// Field names as the statement model types them, wherever the STRUCT
		// comes from (a CTE's column here).
		{name: "different names through a CTE", bq: `WITH a AS (SELECT STRUCT(1 AS x) AS s) SELECT s FROM a UNION ALL SELECT STRUCT(2 AS y)`, err: ErrUnsupported},
		// STRUCT(col) names its field after the column (a released
		// gpt-4.1 answer, which BigQuery ran).
		{name: "fields named after columns", bq: `SELECT v.n FROM (SELECT STRUCT(CAST(NULL AS INT64) AS n) AS v UNION ALL SELECT STRUCT(n) FROM (SELECT 2 AS n)) ORDER BY 1`, want: "NULL\n2"},
		{name: "a STRUCT against a column", bq: `SELECT s.a FROM (SELECT STRUCT('abc' AS a) AS s UNION ALL SELECT t FROM (SELECT STRUCT('def' AS a) AS t)) ORDER BY 1`, want: "abc\ndef"},
	})
}

// TestAvgOfBigNumeric: BigQuery's AVG of BIGNUMERIC keeps 38 decimals
// (aggregate functions reference: AVG returns BIGNUMERIC for BIGNUMERIC);
// the engine's BIGNUMERIC holds 18, so a mean that needs more is refused as
// the engine's limit (unsupported, listed in the README), and one that fits
// is exact.
func TestAvgOfBigNumeric(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a mean within 18 decimals", bq: `SELECT CAST(AVG(CAST(x AS BIGNUMERIC)) AS STRING) FROM UNNEST([1, 0, 0, 0]) AS x`, want: "0.25"},
	})
	db := openDuck(t)
	msg, unsupported := explainedError(t, db, `SELECT AVG(CAST(x AS BIGNUMERIC)) FROM UNNEST([1, 0, 0]) AS x`)
	if want := ErrUnsupported.Error() + ": AVG of BIGNUMERIC values whose mean has more than 18 decimals is not supported"; msg != want || !unsupported {
		t.Errorf("Explain = %q, %v; want %q, unsupported", msg, unsupported, want)
	}
}
