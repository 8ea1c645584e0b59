package bqsql

import (
	"fmt"
	"strconv"
)

// PERCENTILE_CONT over FLOAT64 follows ZetaSQL's PercentileEvaluator: the
// values are sorted NULL < NaN < -inf < … < +inf, NULLs dropped (IGNORE
// NULLS, the default) or kept in front (RESPECT NULLS); with m values the
// result sits at position (m-1)·p, index i = floor and weight r = the
// fraction, and is v[i]·(1-r) + v[i+1]·r. DuckDB's quantile_cont sorts NaN
// above +inf, interpolates to NaN next to an infinity (-inf and a value, two
// equal infinities) and cannot count NULLs. So the engine
// computes DuckDB's quantile over a key that keeps every position where
// BigQuery has it: NULL (when respected), NaN and -inf become -DBL_MAX, +inf
// +DBL_MAX. Where the two neighbours are finite that quantile is BigQuery's
// value; the counts of NULLs, NaNs and infinities in the window say where
// they are not, and bq_percentile_cont answers those from the counts alone.

// percentileContFloat renders PERCENTILE_CONT(x, p) for an argument that is
// FLOAT64, INT64 (FLOAT64 in BigQuery too) or of unknown type (a NUMERIC
// the bridge cannot type comes back FLOAT64).
func percentileContFloat(c *call, p float64) string {
	over := c.window()
	x := c.arg(0)
	respect := c.nulls == "RESPECT"
	ps := strconv.FormatFloat(p, 'g', -1, 64)
	nulls := "0"
	m := "count(" + x + ")" + over
	if respect {
		nulls = "count(*)" + over + " - count(" + x + ")" + over
		m = "count(*)" + over
	}
	return fmt.Sprintf("bq_percentile_cont(quantile_cont(bq_percentile_key(%s, %t), %s)%s, %s, %s, "+
		"count_if(isnan(bq_float(%s)))%s, count_if(bq_float(%s) = '-inf')%s, count_if(bq_float(%s) = 'inf')%s, min(bq_float(%s))%s, %s)",
		x, respect, ps, over, m, nulls, x, over, x, over, x, over, x, over, ps)
}

// exactNumeric reports whether items are known to be NUMERIC or BIGNUMERIC
// (a typed column or a CAST to one), whose percentiles DuckDB computes as
// BigQuery does and in the same type.
func exactNumeric(e *emitter, items []*item) bool {
	switch baseType(e.exprType(items)) {
	case "NUMERIC", "BIGNUMERIC":
		return true
	}
	if len(items) == 2 && (items[0].is("CAST") || items[0].is("SAFE_CAST")) && items[1].isGroup("(") {
		k := items[1].kids
		if n := len(k); n >= 2 && k[n-2].is("AS") {
			switch k[n-1].upper() {
			case "NUMERIC", "BIGNUMERIC", "DECIMAL", "BIGDECIMAL":
				return true
			}
		}
	}
	return false
}
