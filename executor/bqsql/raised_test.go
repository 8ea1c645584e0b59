package bqsql

import "testing"

func TestMessage(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{`Conversion Error: Could not convert string 'division by zero: 1 / 0' to DOUBLE`, "division by zero: 1 / 0"},
		{`Conversion Error: Could not convert string 'division by zero: MOD(21, 0)' to INT64`, "division by zero: MOD(21, 0)"},
		{`Conversion Error: Could not convert string 'Third argument in SUBSTR() cannot be negative' to INT64`, "Third argument in SUBSTR() cannot be negative"},
		{`Conversion Error: Could not convert string 'Bad int64 value: x' to INT64`, "Bad int64 value: x"},
		{`Conversion Error: invalid date field format: "No matching signature for function DATE for argument types: INTEGER", expected format is (YYYY-MM-DD)`,
			"No matching signature for function DATE for argument types: INTEGER"},
		// Any other error, a conversion of the model's own included, is kept.
		{`Conversion Error: Could not convert string 'abc' to INT32`, `Conversion Error: Could not convert string 'abc' to INT32`},
		{`Binder Error: Referenced column "x" not found`, `Binder Error: Referenced column "x" not found`},
	}
	for _, c := range cases {
		if got := Message(c.in); got != c.want {
			t.Errorf("Message(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
