package bqsql

import "strings"

// arrayPaths rewrites a FROM item that is a path through a range variable,
// `FROM t, t.arr AS v` or `FROM t.arr v` in a correlated subquery, into the
// UNNEST(t.arr) AS v it stands for in BigQuery (an implicit UNNEST, its
// alias the path's last name when none is given). A two-part path whose
// first part is no table alias of the query stays a dataset.table.
func (e *emitter) arrayPaths(items []*item) []*item {
	for k := 1; k < len(items); k++ {
		it := items[k]
		if it.path == nil || it.path.table || len(it.path.parts) != 2 || !inFromList(items, k) {
			continue
		}
		first := strings.ToLower(it.path.parts[0])
		if _, ok := e.aliases[first]; !ok {
			continue
		}
		g := &item{group: true, tok: Token{Kind: Punct, Text: "(", Pos: it.pos()}, close: Token{Kind: Punct, Text: ")"},
			kids: []*item{{tok: it.tok, path: it.path}}}
		repl := []*item{{tok: Token{Kind: Ident, Text: "UNNEST", Pos: it.pos()}, nl: it.nl, sp: it.sp}, g}
		next := at(items, k+1)
		if !next.is("AS") && !(next != nil && isName(next)) {
			repl = append(repl, &item{tok: Token{Kind: Ident, Text: "AS", Pos: it.pos()}, sp: true},
				&item{tok: Token{Kind: QuotedIdent, Text: "`" + it.path.parts[1] + "`", Pos: it.pos()}, sp: true})
		}
		rest := append(repl, items[k+1:]...)
		items = append(items[:k:k], rest...)
	}
	return items
}

// inFromList reports whether items[k] starts a FROM item: it follows FROM,
// JOIN, or a comma of the FROM clause.
func inFromList(items []*item, k int) bool {
	prev := items[k-1]
	if prev.is("FROM") || prev.is("JOIN") {
		return true
	}
	if !prev.isPunct(",") {
		return false
	}
	for j := k - 2; j >= 0; j-- {
		switch items[j].upper() {
		case "FROM":
			return true
		case "SELECT", "WHERE", "GROUP", "HAVING", "QUALIFY", "ORDER", "LIMIT", "ON", "USING", "WINDOW":
			return false
		}
	}
	return false
}
