package conformance

import (
	"sort"
	"strings"

	"github.com/clinsql/clinsql/executor/bqsql"
)

// notFunctions are words that take a bracket without being function calls.
var notFunctions = wordSet(`AS IN FROM JOIN USING ON AND OR NOT WHERE SELECT OVER VALUES WITH BY THEN
	ELSE WHEN WINDOW HAVING QUALIFY PARTITION ALL DISTINCT UNION EXCEPT INTERSECT LIMIT OFFSET ORDINAL
	SAFE_OFFSET SAFE_ORDINAL RETURNS TABLE INTO SETS ROLLUP CUBE PIVOT UNPIVOT FOR ANY SOME IS LIKE
	UNNEST EXISTS ARRAY STRUCT RECURSIVE LATERAL BETWEEN CASE END DESC ASC`)

// constructs are keyword sequences counted as constructs, by name.
var constructs = []struct {
	name  string
	words []string
}{
	{"QUALIFY", []string{"QUALIFY"}},
	{"UNNEST", []string{"UNNEST"}},
	{"GROUP BY ALL", []string{"GROUP", "BY", "ALL"}},
	{"ROLLUP", []string{"ROLLUP"}},
	{"CUBE", []string{"CUBE"}},
	{"GROUPING SETS", []string{"GROUPING", "SETS"}},
	{"PIVOT", []string{"PIVOT"}},
	{"UNPIVOT", []string{"UNPIVOT"}},
	{"UNION ALL", []string{"UNION", "ALL"}},
	{"UNION DISTINCT", []string{"UNION", "DISTINCT"}},
	{"EXCEPT DISTINCT", []string{"EXCEPT", "DISTINCT"}},
	{"INTERSECT DISTINCT", []string{"INTERSECT", "DISTINCT"}},
	{"IS DISTINCT FROM", []string{"IS", "DISTINCT", "FROM"}},
	{"IS NOT DISTINCT FROM", []string{"IS", "NOT", "DISTINCT", "FROM"}},
	{"OVER", []string{"OVER"}},
	{"ROWS frame", []string{"ROWS", "BETWEEN"}},
	{"RANGE frame", []string{"RANGE", "BETWEEN"}},
	{"IGNORE NULLS", []string{"IGNORE", "NULLS"}},
	{"RESPECT NULLS", []string{"RESPECT", "NULLS"}},
	{"NULLS FIRST/LAST", []string{"NULLS", "FIRST"}},
	{"NULLS FIRST/LAST", []string{"NULLS", "LAST"}},
	{"INTERVAL", []string{"INTERVAL"}},
	{"CASE", []string{"CASE"}},
	{"EXISTS", []string{"EXISTS"}},
	{"IN subquery", []string{"IN", "(", "SELECT"}},
	{"LIKE ANY/ALL", []string{"LIKE", "ANY"}},
	{"LIKE ANY/ALL", []string{"LIKE", "ALL"}},
	{"LIKE ANY/ALL", []string{"LIKE", "SOME"}},
	{"WITH RECURSIVE", []string{"WITH", "RECURSIVE"}},
	{"SELECT DISTINCT", []string{"SELECT", "DISTINCT"}},
	{"SELECT AS STRUCT", []string{"SELECT", "AS", "STRUCT"}},
	{"FULL JOIN", []string{"FULL"}},
	{"CROSS JOIN", []string{"CROSS", "JOIN"}},
	{"HAVING", []string{"HAVING"}},
	{"LIMIT", []string{"LIMIT"}},
	{"ARRAY subquery", []string{"ARRAY", "(", "SELECT"}},
	{"STRUCT", []string{"STRUCT"}},
	{"ARRAY literal", []string{"ARRAY", "<"}},
	{"subscript", []string{"[", "OFFSET"}},
	{"subscript", []string{"[", "SAFE_OFFSET"}},
	{"subscript", []string{"[", "ORDINAL"}},
	{"subscript", []string{"[", "SAFE_ORDINAL"}},
	{"DATE literal", []string{"DATE", "'"}},
	{"DATETIME literal", []string{"DATETIME", "'"}},
	{"TIMESTAMP literal", []string{"TIMESTAMP", "'"}},
	{"NUMERIC literal", []string{"NUMERIC", "'"}},
}

// Usage returns the functions (upper-case name) and constructs a query
// uses, each once, sorted. A SAFE. prefix counts as SAFE.<name> and as
// <name>.
func Usage(sql string) []string {
	toks, _ := bqsql.Tokenize(sql)
	// Words: identifiers upper-cased, strings as "'", other punctuation as is.
	var words []string
	for _, t := range toks {
		switch t.Kind {
		case bqsql.Space, bqsql.Comment:
		case bqsql.Ident:
			words = append(words, strings.ToUpper(t.Text))
		case bqsql.String:
			words = append(words, "'")
		default:
			words = append(words, t.Text)
		}
	}
	seen := map[string]bool{}
	for i, w := range words {
		if i+1 < len(words) && words[i+1] == "(" && isName(w) && !notFunctions[w] {
			safe := i >= 2 && words[i-1] == "." && words[i-2] == "SAFE"
			if i >= 1 && words[i-1] == "." && !safe {
				continue // a.b( is not a function BigQuery users write
			}
			seen[w] = true
			if safe {
				seen["SAFE."+w] = true
			}
		}
		for _, c := range constructs {
			if match(words[i:], c.words) {
				seen[c.name] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func match(words, pattern []string) bool {
	if len(words) < len(pattern) {
		return false
	}
	for k, p := range pattern {
		if words[k] != p {
			return false
		}
	}
	return true
}

func isName(w string) bool {
	if w == "" || w == "SAFE" {
		return false
	}
	for _, c := range w {
		if !(c == '_' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return !('0' <= w[0] && w[0] <= '9')
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
