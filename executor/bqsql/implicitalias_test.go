package bqsql

import (
	"strings"
	"testing"
)

// A name given without AS (SELECT CAST(NULL AS INTERVAL) value) types a
// CTE's column as AS does, so SUM of it is SUM of INTERVALs (was refused:
// the bridge could not tell and DuckDB has no SUM of INTERVAL).
func TestImplicitAliasTypesRules(t *testing.T) {
	const iv = `WITH t AS (SELECT 1 id, CAST(NULL AS INTERVAL) v UNION ALL SELECT 2, INTERVAL 1 YEAR UNION ALL SELECT 3, INTERVAL 40 DAY UNION ALL SELECT 4, INTERVAL '1:2:3.5' HOUR TO SECOND) `
	runRuleCases(t, []ruleCase{
		{name: "SUM of a CTE column named without AS", bq: iv + `SELECT CAST(SUM(v) AS STRING) FROM t`, want: "1-0 40 1:2:3.5"},
		{name: "running SUM", bq: iv + `SELECT id, CAST(SUM(v) OVER (ORDER BY v, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS STRING) s FROM t ORDER BY id`,
			want: "1 | NULL\n2 | 1-0 40 1:2:3.5\n3 | 0-0 40 1:2:3.5\n4 | 0-0 0 1:2:3.5"},
		{name: "quoted alias", bq: `WITH t AS (SELECT INTERVAL 2 DAY ` + "`v`" + ` UNION ALL SELECT INTERVAL 3 HOUR) SELECT CAST(SUM(v) AS STRING) FROM t`, want: "0-0 2 3:0:0"},
		// The same name given a number elsewhere leaves it untyped: plain SUM.
		{name: "a name defined twice", bq: `WITH t AS (SELECT INTERVAL 1 DAY v), u AS (SELECT 1.5 v UNION ALL SELECT 2) SELECT SUM(v) FROM u`, want: "3.5"},
		// Also with AS, where the other CTE's column is of unknown type
		// (FLOAT64 and INT64 branches): was typed INTERVAL from t alone.
		{name: "a name defined twice with AS", bq: `WITH t AS (SELECT INTERVAL 1 DAY AS v), u AS (SELECT 1.5 AS v UNION ALL SELECT 2) SELECT SUM(v) FROM u`, want: "3.5"},
	})
}

func TestImplicitAlias(t *testing.T) {
	for _, c := range []struct{ el, want string }{
		{"CAST(NULL AS INTERVAL) value", "value"},
		{"1 id", "id"},
		{"t.x `y`", "`y`"},
		{"CASE WHEN a THEN 1 END c", "c"},
		{"t.x", ""},
		{"x", ""},
		{"x AS y", ""},
		{"NOT x", ""},
		{"a + b", ""},
		{"x IS NULL", ""},
		// INTERVAL 1 DAY is a literal, not INTERVAL 1 named day.
		{"INTERVAL 1 DAY", ""},
		{"INTERVAL n HOURS", ""},
		{"INTERVAL '1:2' HOUR TO MINUTE", ""},
	} {
		toks, err := Tokenize(c.el)
		if err != nil {
			t.Fatal(err)
		}
		items, err := buildTree(c.el, toks)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if name, _, ok := implicitAlias(items); ok {
			got = strings.TrimSpace(name.tok.Text)
		}
		if got != c.want {
			t.Errorf("implicitAlias(%s) = %q, want %q", c.el, got, c.want)
		}
	}
}
