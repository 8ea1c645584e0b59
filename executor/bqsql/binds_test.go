package bqsql

import (
	"strings"
	"testing"
)

func TestBindChecks(t *testing.T) {
	tr := &Translator{Catalog: testCatalog}
	cases := []struct {
		name, sql string
		want      string // a fragment of the one check; "" for none
	}{
		{"no WITH", "SELECT 1", ""},
		{"every CTE read", "WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT x FROM b", ""},
		{"read through a comma join", "WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS y) SELECT x, y FROM a, b", ""},
		{"read in a subquery", "WITH a AS (SELECT 1 AS x) SELECT 1 WHERE EXISTS (SELECT 1 FROM a)", ""},
		{"one unread", "WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT x FROM a", "FROM \"b\""},
		{"two unread", "WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS y), c AS (SELECT 3 AS z) SELECT x FROM a", "FROM \"b\" CROSS JOIN \"c\""},
		// A comma in the select list is not a FROM list.
		{"select list comma", "WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS y) SELECT x, b FROM a", "FROM \"b\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got, err := tr.TranslateChecked(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.want == "" && got != nil:
				t.Errorf("binds = %q, want none", got)
			case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.HasPrefix(got[0], "WITH")):
				t.Errorf("binds = %q, want one check containing %q", got, c.want)
			}
		})
	}
}
