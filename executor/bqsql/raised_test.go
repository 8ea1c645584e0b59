package bqsql

import (
	"context"
	"strings"
	"testing"
)

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
			"No matching signature for function DATE for argument types: INT64", false},
		{`Conversion Error: invalid date field format: "DATETIME_ADD causes overflow: 10000-01-01 00:00:00 is outside 0001-01-01 to 9999-12-31", expected format is (YYYY-MM-DD)`,
			"DATETIME_ADD causes overflow: 10000-01-01 00:00:00 is outside 0001-01-01 to 9999-12-31", false},
		// Any other error, a conversion of the model's own included, is kept,
		// in BigQuery's type names and wording, without DuckDB's "… Error: ".
		{`Conversion Error: Could not convert string 'abc' to INT32`, `Bad int64 value: abc`, false},
		{`Binder Error: No function matches the given name and argument types 'length(BIGINT)'. You might need to add explicit type casts.`,
			`No matching signature for function LENGTH for argument types: INT64`, false},
		{`Binder Error: No function matches the given name and argument types '~~(BLOB, VARCHAR)'. You might need to add explicit type casts.`,
			`No matching signature for operator LIKE for argument types: BYTES, STRING`, false},
		{`Binder Error: No function matches the given name and argument types '+(DATE, TIMESTAMP WITH TIME ZONE)'. You might need to add explicit type casts.`,
			`No matching signature for operator + for argument types: DATE, TIMESTAMP`, false},
		{`Binder Error: Macro bq_substr() does not support the supplied arguments. You might need to add explicit type casts.`,
			`No matching signature for function SUBSTR for the argument types given`, false},
		{`Conversion Error: Could not convert string "1.2.3" to DECIMAL(38,9)`, `Could not convert string "1.2.3" to NUMERIC`, false},
		{`Binder Error: Cannot compare values of type VARCHAR[] and DOUBLE`, `Cannot compare values of type ARRAY<STRING> and FLOAT64`, false},
		{`Conversion Error: Could not convert string 'x' to TIMESTAMP`, `Could not convert string 'x' to DATETIME`, false},
		{`Binder Error: Referenced column "x" not found`, `Unrecognized name: x`, false},
		// The bridge's limits: not the query's fault.
		{`Binder Error: No function matches the given name and argument types 'bit_xor(BLOB)'. You might need to add explicit type casts.`,
			"unsupported in the embedded engine: BIT_XOR of BYTES is not supported", true},
		{`Binder Error: Combining QUALIFY with GROUP BY ALL is not supported yet`, "unsupported in the embedded engine: QUALIFY with GROUP BY ALL is not supported", true},
		{`Conversion Error: Could not convert string "578960446186580977117854925043439539266.5" to DECIMAL(38,18)`,
			"unsupported in the embedded engine: BIGNUMERIC values of more than 20 integer digits are not supported", true},
		{`Conversion Error: Could not convert string "AVG of NUMERIC values whose sum exceeds 1.5e29 is not supported" to DECIMAL(38,9)`,
			"unsupported in the embedded engine: AVG of NUMERIC values whose sum exceeds 1.5e29 is not supported", true},
		{`Conversion Error: Could not convert string 'STDDEV_SAMP of NUMERIC values that agree to 7 significant digits is not supported' to DOUBLE`,
			"unsupported in the embedded engine: STDDEV_SAMP of NUMERIC values that agree to 7 significant digits is not supported", true},
		{`Conversion Error: Could not convert string "AVG of BIGNUMERIC values whose mean has more than 18 decimals is not supported" to DECIMAL(38,18)`,
			"unsupported in the embedded engine: AVG of BIGNUMERIC values whose mean has more than 18 decimals is not supported", true},
		// Valid BigQuery that DuckDB's PIVOT or LIKE refuses (these were
		// the model's errors).
		{`Binder Error: Pivot expression cannot contain subqueries`,
			"unsupported in the embedded engine: PIVOT of an aggregate with a subquery or the HAVING modifier is not supported", true},
		{`Binder Error: Columns can only be referenced within the aggregate of a PIVOT expression`,
			"unsupported in the embedded engine: PIVOT of an aggregate with a subquery or the HAVING modifier is not supported", true},
		{`Binder Error: No function matches the given name and argument types '~~(BLOB, BLOB)'. You might need to add explicit type casts.`,
			"unsupported in the embedded engine: LIKE on BYTES is not supported", true},
		{`Binder Error: No function matches the given name and argument types 'like_escape(BLOB, BLOB, STRING_LITERAL)'. You might need to add explicit type casts.`,
			"unsupported in the embedded engine: LIKE on BYTES is not supported", true},
		// A BLOB against a pattern whose type the bridge could not tell,
		// escaped as text (bq_like_any_pattern): it may be BYTES too.
		{`Binder Error: No function matches the given name and argument types 'like_escape(BLOB, VARCHAR, STRING_LITERAL)'. You might need to add explicit type casts.`,
			"unsupported in the embedded engine: LIKE on BYTES is not supported", true},
		// The bridge's own report of a BYTES pattern value it could not
		// type; another type is BigQuery's signature error.
		{`Conversion Error: Could not convert string 'LIKE with a BYTES pattern whose type the bridge cannot tell is not supported' to INT64`,
			"unsupported in the embedded engine: LIKE with a BYTES pattern whose type the bridge cannot tell is not supported", true},
		{`Conversion Error: Could not convert string 'No matching signature for operator LIKE for argument types: STRING, INTEGER' to INT64`,
			"No matching signature for operator LIKE for argument types: STRING, INT64", false},
		// BigQuery sums INTERVALs (this was the model's error).
		{`Binder Error: No function matches the given name and argument types 'sum(INTERVAL)'. You might need to add explicit type casts.`,
			"unsupported in the embedded engine: SUM of INTERVAL values is not supported", true},
		// A NUMERIC past 20 integer digits made BIGNUMERIC (by the query or
		// the bridge's exact aggregates): BigQuery's BIGNUMERIC holds 38.
		{`Conversion Error: Casting value "99999999999999999999999999999.999999999" to type DECIMAL(38,18) failed: value is out of range!`,
			"unsupported in the embedded engine: BIGNUMERIC values of more than 20 integer digits are not supported", true},
		{`Conversion Error: Could not convert string "12x" to DECIMAL(38,18)`, `Could not convert string "12x" to BIGNUMERIC`, false},
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

// RelaxDivision's redefinitions give NULL for every division by zero the
// prelude raises (a / b, MOD, DIV), leave other divisions alone, and are
// offered only BigQuery's division-by-zero message.
func TestRelaxDivision(t *testing.T) {
	ctx := context.Background()
	db := openDuck(t)
	db.SetMaxOpenConns(1) // the redefinition is per connection
	q, err := Translate(`SELECT 7 / 0 AS a, MOD(7, 0) AS b, DIV(7, 0) AS c, 7 / 2 AS d, MOD(7, 2) AS e, DIV(7, 2) AS f, NULL / 0 AS g`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = queryRows(ctx, db, q)
	if err == nil {
		t.Fatal("division by zero ran under the strict prelude")
	}
	msg, _ := Explain(err.Error())
	redefine, warning, ok := RelaxDivision(msg)
	if !ok || !strings.Contains(warning, "division by zero: 7 / 0") {
		t.Fatalf("RelaxDivision(%q) = %v, %q", msg, ok, warning)
	}
	if _, err := db.ExecContext(ctx, redefine); err != nil {
		t.Fatal(err)
	}
	rows, err := queryRows(ctx, db, q)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], " | "); got != "NULL | NULL | NULL | 3.5 | 1 | 3 | NULL" {
		t.Errorf("relaxed: %s", got)
	}
	for _, other := range []string{"Bad int64 value: x", "Third argument in SUBSTR() cannot be negative", "Binder Error: division by zero"} {
		if _, _, ok := RelaxDivision(other); ok {
			t.Errorf("RelaxDivision accepted %q", other)
		}
	}
}
