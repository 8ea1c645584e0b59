package bqsql

import "strings"

// DuckDB's PIVOT takes one plain aggregate call per aggregate: it refuses
// a subquery inside it and the list functions the bridge computes
// BigQuery's HAVING MAX/MIN modifier with, and the several aggregates
// STDDEV and its kin combine; and it computes SUM(RAND()) once for two
// aggregates that BigQuery evaluates apart. Such an aggregate is pivoted as
// the list of its rows instead, list(struct_pack(the columns it reads)),
// and the wrapper computes the aggregate over each cell's list in a
// subquery: the same rows, so the same value, and over a cell with no rows
// the aggregate of no rows (COUNT 0, SUM NULL) as in BigQuery. The columns
// the aggregate reads stay out of the grouping columns, as they would
// directly; a name taken for a column that is none fails in DuckDB rather
// than answering.

// severalAggregates are the aggregates the bridge computes from several
// DuckDB aggregates (for BigQuery's NaN and infinity rules, see stats.go).
var severalAggregates = wordSet(`STDDEV STDDEV_SAMP STDDEV_POP VARIANCE VAR_SAMP VAR_POP CORR COVAR_POP COVAR_SAMP`)

// listPivotAgg returns, for a PIVOT aggregate DuckDB's PIVOT refuses, the
// list aggregate to pivot and the aggregate's translation to apply to each
// cell's list; ok false otherwise.
func (e *emitter) listPivotAgg(a []*item) (list, post string, ok bool) {
	if len(a) != 2 || !a[1].isGroup("(") || a[0].group || a[0].tok.Kind != Ident {
		return "", "", false
	}
	if indexWord(a[1].kids, "HAVING") < 0 && !containsSubquery(a[1].kids) && !severalAggregates[a[0].upper()] && !volatileIn(a[1].kids) {
		return "", "", false
	}
	fields := []string{"bq_one := 1"}
	seen := map[string]bool{}
	for _, name := range e.columnNames(a[1].kids) {
		if k := strings.ToLower(name); !seen[k] {
			seen[k] = true
			fields = append(fields, quoteIdent(name)+" := "+quoteIdent(name))
		}
	}
	return "list(struct_pack(" + strings.Join(fields, ", ") + "))", e.text(a), true
}

// listPivotCell applies an aggregate's translation to the list in one
// PIVOT cell (the column duck).
func listPivotCell(post, duck string) string {
	return "(SELECT " + post + " FROM (SELECT bq_pr.* FROM (SELECT unnest(" + duck + ") AS bq_pr)))"
}

// columnNames lists the names in items that read a column: identifiers
// other than function names, keywords, date parts, type names after AS,
// MAX or MIN after HAVING and field names after a dot, outside subqueries.
func (e *emitter) columnNames(items []*item) []string {
	var names []string
	for i, it := range items {
		if it.group {
			if !isSubquery(it) {
				names = append(names, e.columnNames(it.kids)...)
			}
			continue
		}
		if !isName(it) || at(items, i+1).isGroup("(") || at(items, i-1).isPunct(".") || at(items, i-1).is("AS") || at(items, i-1).is("HAVING") ||
			datePartNames[it.upper()] || at(items, i+1).isPunct("<") {
			continue
		}
		names = append(names, e.identValue(it))
	}
	return names
}
