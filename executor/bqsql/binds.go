package bqsql

import (
	"context"
	"strings"
)

// bindChecks returns the DuckDB statements that must bind for sql (parsed
// into items) to be valid BigQuery, beyond its translation: BigQuery
// analyses every CTE of a WITH clause, DuckDB binds only those the query
// reads, so an error inside an unread CTE (a misspelled column, a name out
// of scope) passes DuckDB silently. For a query with unread CTEs the check
// is
//
//	WITH <the same CTEs> SELECT 1 FROM unread1 CROSS JOIN unread2 …
//
// translated like any query (without checks of its own). It returns nil
// when there is nothing to check or the check does not translate (the
// query's own translation reports that).
func (t *Translator) bindChecks(ctx context.Context, sql string, items []*item) []string {
	if !at(items, 0).is("WITH") {
		return nil
	}
	defs := cteDefs(items, 0)
	if len(defs) == 0 {
		return nil
	}
	read := map[string]bool{}
	var walk func([]*item)
	walk = func(seq []*item) {
		// fromList: the nearest clause keyword so far is FROM, so a comma
		// separates FROM items (FROM a, b), not select-list or GROUP BY
		// elements. Kept while walking forward: looking back from every
		// comma made a WITH of n CTEs cost n² (issue 13).
		fromList := false
		for i, it := range seq {
			if it.group {
				walk(it.kids)
				continue
			}
			switch it.upper() {
			case "FROM":
				fromList = true
			case "SELECT", "WHERE", "GROUP", "HAVING", "ORDER", "QUALIFY", "WINDOW", "LIMIT", "ON", "USING":
				fromList = false
			}
			if it.is("FROM") || it.is("JOIN") || (it.isPunct(",") && fromList) {
				if parts, _ := readTablePath(seq, i+1); len(parts) == 1 {
					read[strings.ToLower(parts[0])] = true
				}
			}
		}
	}
	walk(items)
	var unread []string
	for _, d := range defs {
		if !read[d.name] {
			unread = append(unread, "`"+d.name+"`")
		}
	}
	if len(unread) == 0 {
		return nil
	}
	// The WITH clause ends with the last definition's closing bracket.
	last := defs[len(defs)-1].group
	end := last.close.Pos + len(last.close.Text)
	if end <= items[0].tok.Pos || end > len(sql) {
		return nil
	}
	check := sql[items[0].tok.Pos:end] + "\nSELECT 1 FROM " + strings.Join(unread, " CROSS JOIN ")
	out, _, err := t.translate(ctx, check, false)
	if err != nil {
		return nil
	}
	return []string{out}
}
