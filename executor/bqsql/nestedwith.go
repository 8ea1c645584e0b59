package bqsql

import "strings"

// nestedWith flattens a query whose body is a bracketed query with its own
// WITH clause, WITH a AS (…) (WITH b AS (…) SELECT …), which BigQuery
// accepts and DuckDB's parser cannot take ("exprLocation NOT
// IMPLEMENTED"), into one WITH clause: WITH a AS (…), b AS (…) SELECT ….
// The inner query sees the outer names either way; it is flattened only
// where no inner name hides an outer one, and neither clause is RECURSIVE.
func nestedWith(items []*item) []*item {
	for _, it := range items {
		if it.group {
			it.kids = nestedWith(it.kids)
		}
	}
	last := len(items) - 1
	if last > 0 && items[last].isPunct(";") {
		last--
	}
	if len(items) < 5 || !items[0].is("WITH") || items[1].is("RECURSIVE") || last < 4 {
		return items
	}
	body := items[last]
	if !body.isGroup("(") || len(body.kids) < 2 || !body.kids[0].is("WITH") || body.kids[1].is("RECURSIVE") ||
		!items[last-1].isGroup("(") || !items[last-2].is("AS") {
		return items
	}
	outer := cteNames(items[1:last])
	for name := range cteNames(body.kids[1:]) {
		if outer[name] {
			return items
		}
	}
	out := append([]*item(nil), items[:last]...)
	out = append(out, &item{tok: Token{Kind: Punct, Text: ",", Pos: body.tok.Pos}})
	out = append(out, body.kids[1:]...)
	return append(out, items[last+1:]...)
}

// cteNames are the names a WITH clause's list (items after WITH) defines:
// name AS (…) items, separated by commas, up to the body.
func cteNames(items []*item) map[string]bool {
	names := map[string]bool{}
	for k := 0; k+2 < len(items); k += 4 {
		if !items[k+1].is("AS") || !items[k+2].isGroup("(") {
			break
		}
		v, err := items[k].tok.Value()
		if err != nil {
			break
		}
		names[strings.ToLower(v)] = true
		if !at(items, k+3).isPunct(",") {
			break
		}
	}
	return names
}
