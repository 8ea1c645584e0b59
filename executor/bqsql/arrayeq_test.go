package bqsql

import (
	"errors"
	"testing"
)

// BigQuery refuses = and != between ARRAYs ("Equality is not defined for
// arguments of type ARRAY<INT64>", its reply to SELECT [1,2] = [1,2] quoted
// in jOOQ issue 17056); DuckDB answered TRUE, also where an element is NULL.
func TestArrayEqualityRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "array literals", bq: `SELECT [1, NULL] = [1, NULL]`, err: ErrInvalid},
		{name: "intervals", bq: `SELECT [INTERVAL -1 DAY, NULL] = [INTERVAL -1 DAY, NULL]`, err: ErrInvalid},
		{name: "not equal", bq: `SELECT 1 FROM UNNEST([1]) x WHERE [x] != [2]`, err: ErrInvalid},
		{name: "typed literal and CAST", bq: `SELECT ARRAY<INT64>[] <> CAST(NULL AS ARRAY<INT64>)`, err: ErrInvalid},
		{name: "ARRAY subquery", bq: `SELECT ARRAY(SELECT 1) = [1]`, err: ErrInvalid},
		// Elements and lengths of arrays still compare.
		{name: "elements", bq: `SELECT [1, 2][OFFSET(1)] = 2, ARRAY_LENGTH([1, 2]) = 2, 2 = [1, 2][ORDINAL(2)]`, want: "true | true | true"},
	})
	for _, c := range []struct{ bq, msg string }{
		{`SELECT [1, 2] = [1, 2]`, "Equality is not defined for arguments of type ARRAY<INT64>"},
		{`SELECT [] = CAST(NULL AS ARRAY<STRING>)`, "Equality is not defined for arguments of type ARRAY<STRING>"},
		{`SELECT [INTERVAL 1 DAY] = [INTERVAL 24 HOUR]`, "Equality is not defined for arguments of type ARRAY<INTERVAL>"},
	} {
		_, err := Translate(c.bq)
		var e *Error
		if !errors.As(err, &e) || e.Msg != c.msg {
			t.Errorf("Translate(%s): %v; want %q", c.bq, err, c.msg)
		}
	}
}
