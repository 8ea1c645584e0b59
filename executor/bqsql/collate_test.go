package bqsql

import "testing"

// TestCollateRules: ORDER BY … COLLATE 'und:ci' orders and ties ignoring
// case in the Unicode root order (GoogleSQL reference, collation; compliance
// case orderby_collate_und_ci), 'binary' is byte order.
func TestCollateRules(t *testing.T) {
	const vals = ` FROM UNNEST(['A', 'e', 'a', 'b', 'C', 'd', 'A', 'é', 'f']) AS s `
	runRuleCases(t, []ruleCase{
		{name: "und:ci ignores case in a window and in the query",
			bq:   `SELECT s, RANK() OVER (ORDER BY s COLLATE "und:ci"), RANK() OVER (ORDER BY s COLLATE 'binary')` + vals + `WHERE s < 'Z' OR s IN ('a', 'b') ORDER BY s COLLATE 'und:ci', 3`,
			want: "A | 1 | 1\nA | 1 | 1\na | 1 | 4\nb | 4 | 5\nC | 5 | 3"},
		{name: "und:ci sorts accents as the root collation does",
			bq: `SELECT STRING_AGG(s, '' ORDER BY s COLLATE 'und:ci', s)` + vals, want: "AAabCdeéf"},
		{name: "another collation is unsupported",
			bq: `SELECT s` + vals + `ORDER BY s COLLATE 'de'`, err: ErrUnsupported},
	})
}
