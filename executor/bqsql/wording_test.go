package bqsql

import "testing"

// DuckDB's errors that model queries meet are worded as BigQuery words the
// same mistake (the BigQuery side of each pair is its recorded error for a
// released query that made it), without DuckDB's quotation of the
// translated SQL.
func TestBigQueryWording(t *testing.T) {
	for _, c := range []struct{ duck, want string }{
		{"Binder Error: Referenced column \"admittime\" not found in FROM clause!\nCandidate bindings: \"a.admittime\"\n\nLINE 3: WHERE admittime > 1\n              ^", "Unrecognized name: admittime"},
		{"Binder Error: Referenced table \"icustays\" not found!\nCandidate tables: \"x\"", "Unrecognized name: icustays"},
		{"Catalog Error: Table with name admissions does not exist!\nDid you mean \"mimiciv_3_1_hosp.admissions\"?\n\nLINE 1: …", `Table "admissions" must be qualified with a dataset (e.g. dataset.table).`},
		{"Binder Error: Table \"a\" does not have a column named \"gender\"\n\nCandidate bindings: …", "Name gender not found inside a"},
		{"Binder Error: Values list \"v\" does not have a column named \"x\"", "Name x not found inside v"},
		{"Binder Error: Ambiguous reference to column name \"subject_id\" (use: \"a.subject_id\" or \"b.subject_id\")", "Column name subject_id is ambiguous"},
		{"Binder Error: column \"n_patients\" must appear in the GROUP BY clause or must be part of an aggregate function.\nEither add it to the GROUP BY list, or use \"ANY_VALUE(n_patients)\" if the exact value of \"n_patients\" is not important.", "SELECT list expression references column n_patients which is neither grouped nor aggregated"},
		{"Binder Error: aggregate function calls cannot contain window function calls", "Analytic functions cannot be arguments to aggregate functions"},
		{"Invalid Input Error: More than one row returned by a subquery used as an expression - scalar subqueries can only return a single row.", "Scalar subquery produced more than one element"},
		{"Parser Error: syntax error at or near \"AND\"\n\nLINE 4: …", "Syntax error: Unexpected keyword AND"},
		{"Parser Error: syntax error at or near \"diagnosis\"", `Syntax error: Unexpected identifier "diagnosis"`},
		{"Parser Error: syntax error at or near \")\"", `Syntax error: Unexpected ")"`},
		{"Conversion Error: Could not convert string 'F' to INT64", "Bad int64 value: F"},
		{"Binder Error: No function matches the given name and argument types 'lower(BIGINT)'. You might need to add explicit type casts.\n\tCandidate functions:\n\tlower(VARCHAR) -> VARCHAR", "No matching signature for function LOWER for argument types: INT64"},
		{"Binder Error: something new\n\nLINE 1: SELECT bq_div(1, 2)", "something new"},
		// RE2's parse errors as DuckDB passes them on, from regexp_matches
		// and regexp_replace, and from regexp_extract_all.
		{"Invalid Input Error: missing ): (trimethoprim|sulfamethoxazole", "Cannot parse regular expression: missing ): (trimethoprim|sulfamethoxazole"},
		{"Invalid Input Error: missing ]: [a", "Cannot parse regular expression: missing ]: [a"},
		{"Invalid Input Error: Pattern failed to parse, error: 'unexpected ): a)'", "Cannot parse regular expression: unexpected ): a)"},
		{"Invalid Input Error: trailing \\", "Cannot parse regular expression: trailing \\"},
	} {
		if got, unsupported := Explain(c.duck); got != c.want || unsupported {
			t.Errorf("Explain(%q) = %q, %v; want %q", c.duck, got, unsupported, c.want)
		}
	}
}
