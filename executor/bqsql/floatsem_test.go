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
