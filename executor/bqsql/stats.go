package bqsql

// BigQuery's STDDEV and VARIANCE families over FLOAT64 give NaN when an
// input is NaN or infinite (and there are enough rows for a value at all:
// two for the sample forms, one for the population forms); DuckDB's raise
// "out of range" instead, or give 0 for one infinite row. So the engine
// aggregates only the finite values and lets bq_stat_nan decide from the
// counts: fewer rows than the form needs is NULL, a non-finite input NaN,
// otherwise DuckDB's value. CORR and the covariances do the same over
// pairs.

// Both rules combine several DuckDB aggregates, which DuckDB's PIVOT refuses
// (it takes one aggregate call): inside a PIVOT they are unsupported.

// statNaN returns the rule for a one-argument statistical aggregate whose
// DuckDB name is duck and which needs at least minRows rows.
func statNaN(duck, minRows string) func(c *call) string {
	return func(c *call) string {
		if c.e.inPivotAgg {
			c.e.unsupported(c.it, "PIVOT of %s is not supported", c.name)
			return ""
		}
		over := c.window()
		x := c.arg(0)
		d := ""
		if c.distinct {
			d = "DISTINCT "
		}
		v := "bq_stat_nan(" + duck + "(" + d + "bq_finite(" + x + "))" + over + ", count(" + c.distinctArg(0) + ")" + over +
			", count_if(NOT isfinite(TRY_CAST(" + x + " AS DOUBLE)))" + over + ", " + minRows + ")"
		if t := baseType(c.e.exprType(c.args[0])); t == "NUMERIC" || t == "BIGNUMERIC" {
			// BigQuery computes these exactly over NUMERIC, DuckDB in
			// FLOAT64: values that agree to 7 significant digits leave
			// too few for a FLOAT64 spread, so the engine refuses them.
			v = "bq_stat_precise(" + v + ", min(" + x + ")" + over + ", max(" + x + ")" + over + ", '" + c.name + " of " + t + "')"
		}
		return v
	}
}

// pairStatNaN returns the rule for CORR, COVAR_POP and COVAR_SAMP (DuckDB
// name duck), which need at least minPairs non-NULL pairs: NULL for fewer
// (DuckDB's NaN for CORR), NaN when a pair holds a NaN or an infinity
// (DuckDB's "out of range", or ±inf for a covariance), DuckDB's value over
// the finite pairs otherwise.
func pairStatNaN(duck, minPairs string) func(c *call) string {
	return func(c *call) string {
		if c.distinct {
			return c.e.plainCall(c, fnSpec{min: 2, max: 2, agg: true, duck: duck})
		}
		if c.e.inPivotAgg {
			c.e.unsupported(c.it, "PIVOT of %s is not supported", c.name)
			return ""
		}
		over := c.window()
		y, x := c.arg(0), c.arg(1)
		return "bq_stat_nan(" + duck + "(bq_finite_pair(" + y + ", " + x + "), bq_finite_pair(" + x + ", " + y + "))" + over +
			", regr_count(" + y + ", " + x + ")" + over +
			", count_if(" + y + " IS NOT NULL AND " + x + " IS NOT NULL AND bq_finite_pair(" + y + ", " + x + ") IS NULL)" + over + ", " + minPairs + ")"
	}
}

// window renders the call's OVER clause (" OVER w", or "" for an aggregate)
// for a rule that writes it after each aggregate it combines, and marks it
// written.
func (c *call) window() string {
	if c.over == nil {
		return ""
	}
	c.overDone = true
	return " OVER " + c.e.text(c.over[1:])
}

// distinctArg is argument k, after DISTINCT when the call has it.
func (c *call) distinctArg(k int) string {
	if c.distinct {
		return "DISTINCT " + c.arg(k)
	}
	return c.arg(k)
}
