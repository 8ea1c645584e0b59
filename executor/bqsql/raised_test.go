package bqsql

import "testing"

func TestExplain(t *testing.T) {
	cases := []struct {
		in, want    string
		unsupported bool
	}{
		{`Conversion Error: Could not convert string 'division by zero: 1 / 0' to DOUBLE`, "division by zero: 1 / 0", false},
		{`Conversion Error: Could not convert string 'division by zero: MOD(21, 0)' to INT64`, "division by zero: MOD(21, 0)", false},
		{`Conversion Error: Could not convert string 'Third argument in SUBSTR() cannot be negative' to INT64`, "Third argument in SUBSTR() cannot be negative", false},
		{`Conversion Error: Could not convert string 'Bad int64 value: x' to INT64`, "Bad int64 value: x", false},
		{`Conversion Error: invalid date field format: "No matching signature for function DATE for argument types: INTEGER", expected format is (YYYY-MM-DD)`,
			"No matching signature for function DATE for argument types: INTEGER", false},
		// Any other error, a conversion of the model's own included, is kept.
		{`Conversion Error: Could not convert string 'abc' to INT32`, `Conversion Error: Could not convert string 'abc' to INT32`, false},
		{`Binder Error: Referenced column "x" not found`, `Binder Error: Referenced column "x" not found`, false},
		// The bridge's limit: not the query's fault.
		{"Binder Error: Macro bq_date_add_day() has multiple overloads that match the supplied arguments.\nIn order to select one...",
			"DATE_ADD on a column of an outer query (a correlated reference) is not supported by the embedded engine: " +
				"it cannot tell whether the column is a DATE or a DATETIME (Binder Error: Macro bq_date_add_day() has multiple overloads that match the supplied arguments.)", true},
	}
	for _, c := range cases {
		if got, unsupported := Explain(c.in); got != c.want || unsupported != c.unsupported {
			t.Errorf("Explain(%q) = %q, %v; want %q, %v", c.in, got, unsupported, c.want, c.unsupported)
		}
	}
}
