package bqsql

import "testing"

func TestRaisedMessage(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{`Conversion Error: Could not convert string 'division by zero: 1 / 0' to DOUBLE`, "division by zero: 1 / 0", true},
		{`Conversion Error: Could not convert string 'division by zero: MOD(21, 0)' to INT64`, "division by zero: MOD(21, 0)", true},
		{`Conversion Error: Could not convert string 'Third argument in SUBSTR() cannot be negative' to INT64`, "Third argument in SUBSTR() cannot be negative", true},
		{`Conversion Error: Could not convert string 'Bad int64 value: x' to INT64`, "Bad int64 value: x", true},
		{`Conversion Error: invalid date field format: "No matching signature for function DATE for argument types: INTEGER", expected format is (YYYY-MM-DD)`,
			"No matching signature for function DATE for argument types: INTEGER", true},
		// A real conversion error of the model's own is left alone.
		{`Conversion Error: Could not convert string 'abc' to INT32`, "", false},
		{`Binder Error: Referenced column "x" not found`, "", false},
	}
	for _, c := range cases {
		got, ok := RaisedMessage(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("RaisedMessage(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
