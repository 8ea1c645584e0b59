package bqsql

import (
	"strings"
)

// Checks for queries BigQuery rejects at analysis but DuckDB would run.
// Each is cheap and conservative: it fires only on shapes whose rejection
// is certain.

// isSubquery reports whether a ( group holds a query.
func isSubquery(g *item) bool {
	if !g.isGroup("(") || len(g.kids) == 0 {
		return false
	}
	k := g.kids
	if k[0].is("SELECT") || k[0].is("WITH") {
		return true
	}
	// ((SELECT …)) and ((SELECT …) UNION ALL (SELECT …)).
	if !isSubquery(k[0]) {
		return false
	}
	if len(k) == 1 {
		return true
	}
	switch k[1].upper() {
	case "UNION", "INTERSECT", "EXCEPT", "ORDER", "LIMIT":
		return true
	}
	return false
}

// checkClauses runs the sequence-level checks that need no catalog.
func (e *emitter) checkClauses(items []*item) {
	for i, it := range items {
		if e.err != nil {
			return
		}
		up := it.upper()
		switch up {
		case "LIMIT", "OFFSET":
			if up == "OFFSET" && !e.afterLimit(items, i) {
				break
			}
			n := at(items, i+1)
			if n == nil || n.is("ALL") {
				break
			}
			// A literal in parentheses is still a literal: LIMIT (1).
			for n.isGroup("(") && len(n.kids) == 1 && !isSubquery(n) {
				n = n.kids[0]
			}
			if n.synthetic() || n.group || (n.tok.Kind != Number && n.tok.Kind != Param) {
				e.invalid(n, "%s expects an integer literal or parameter", up)
			}
		case "AS":
			// A reserved keyword cannot be an alias (AS end, AS rows).
			n := at(items, i+1)
			if n != nil && !n.synthetic() && !n.group && n.tok.Kind == Ident && bqReserved[n.upper()] {
				switch n.upper() {
				case "STRUCT", "ARRAY":
				case "RANGE":
					if at(items, i+2).isPunct("<") {
						break
					}
					fallthrough
				default:
					e.invalid(n, "Syntax error: Unexpected keyword %s", n.upper())
				}
			}
			// WITH name AS ( … ): the name cannot be reserved either.
			if p := at(items, i-1); p != nil && at(items, i+1).isGroup("(") && p.tok.Kind == Ident && !p.synthetic() &&
				bqReserved[p.upper()] && (at(items, i-2).is("WITH") || at(items, i-2).isPunct(",") || at(items, i-2).is("RECURSIVE")) {
				e.invalid(p, "Syntax error: Expected keyword SELECT but got keyword %s", p.upper())
			}
		}
	}
}

// afterLimit reports whether the OFFSET at items[i] belongs to LIMIT n OFFSET m.
func (e *emitter) afterLimit(items []*item, i int) bool {
	return i >= 2 && at(items, i-2).is("LIMIT")
}

// checkJoinIn rejects IN (subquery) inside a join condition, which
// BigQuery does not support.
func (e *emitter) checkJoinIn(items []*item) {
	inOn := false
	var walk func(seq []*item)
	walk = func(seq []*item) {
		for i, it := range seq {
			switch {
			case it.is("IN") && isSubquery(at(seq, i+1)):
				e.invalid(it, "IN subquery is not supported inside join predicate.")
				return
			case it.group && !isSubquery(it):
				walk(it.kids)
			}
		}
	}
	start := 0
	for i, it := range items {
		switch it.upper() {
		case "ON":
			inOn, start = true, i+1
		case "JOIN", "LEFT", "RIGHT", "INNER", "FULL", "CROSS", "WHERE", "GROUP", "HAVING", "ORDER", "QUALIFY",
			"WINDOW", "UNION", "INTERSECT", "EXCEPT", "USING":
			if inOn {
				walk(items[start:i])
			}
			inOn = false
		}
	}
	if inOn {
		walk(items[start:])
	}
}

// rangeVars returns the range variables a SELECT at this level declares
// (FROM t, FROM t AS a, JOIN (…) AS s), lower-cased, and the select-list
// aliases of this level.
func rangeVars(items []*item) (vars, aliases map[string]bool) {
	vars, aliases = map[string]bool{}, map[string]bool{}
	inFrom := false
	for i, it := range items {
		switch it.upper() {
		case "FROM", "JOIN":
			inFrom = true
			ref := at(items, i+1)
			if ref == nil {
				continue
			}
			name := ""
			switch {
			case ref.path != nil:
				name = ref.path.alias
			case ref.tok.Kind == Ident && !ref.synthetic() && !ref.group && !bqReserved[ref.upper()]:
				name = ref.tok.Text
			case ref.tok.Kind == QuotedIdent && !ref.synthetic():
				v, _ := ref.tok.Value()
				name = v
			case ref.is("UNNEST"):
				continue // value tables are not structs of columns
			}
			k := i + 2
			if at(items, k).is("AS") {
				k++
			}
			if a := at(items, k); a != nil && !a.synthetic() && !a.group &&
				(a.tok.Kind == Ident && !bqReserved[a.upper()] || a.tok.Kind == QuotedIdent) {
				name = strings.Trim(a.tok.Text, "`")
			}
			if name != "" {
				vars[strings.ToLower(name)] = true
			}
		case "WHERE", "GROUP", "HAVING", "ORDER", "QUALIFY", "WINDOW", "LIMIT", "UNION", "INTERSECT", "EXCEPT":
			inFrom = false
		case "AS":
			if a := at(items, i+1); !inFrom && a != nil && !a.group && (a.tok.Kind == Ident || a.tok.Kind == QuotedIdent) {
				aliases[strings.ToLower(strings.Trim(a.tok.Text, "`"))] = true
			}
		}
	}
	return vars, aliases
}

// structSafeFuncs accept a whole row (a STRUCT) as their argument.
var structSafeFuncs = wordSet(`COUNT ARRAY_AGG ANY_VALUE TO_JSON_STRING TO_JSON STRUCT ARRAY IFNULL COALESCE`)

// checkRangeVarRefs rejects uses of a bare range variable name as a scalar.
// In BigQuery a name that matches a range variable (an unaliased table or
// CTE in FROM) denotes the whole row, a STRUCT, even when the table also has
// a column of that name; models often name a CTE after its only column and
// then compute APPROX_QUANTILES(name, …) FROM name, which BigQuery rejects
// and DuckDB, preferring the column, runs.
func (e *emitter) checkRangeVarRefs(items []*item) {
	if indexWord(items, "SELECT") < 0 || indexWord(items, "FROM") < 0 {
		return
	}
	vars, aliases := rangeVars(items)
	if len(vars) == 0 {
		return
	}
	// Select-list elements that are exactly a range variable are fine.
	sel := indexWord(items, "SELECT")
	from := indexWord(items, "FROM")
	whole := map[*item]bool{}
	if sel >= 0 && from > sel {
		for _, el := range splitTop(items[sel+1 : from]) {
			if len(el) >= 1 && el[0].tok.Kind == Ident {
				whole[el[0]] = true
			}
		}
	}
	var walk func(seq []*item, safe bool)
	walk = func(seq []*item, safe bool) {
		for i, it := range seq {
			if e.err != nil {
				return
			}
			if it.group {
				if isSubquery(it) {
					continue
				}
				fn := at(seq, i-1)
				walk(it.kids, fn != nil && structSafeFuncs[fn.upper()] && len(splitTop(it.kids)) == 1)
				continue
			}
			if it.sub != nil {
				walk(it.sub.base, false)
				walk([]*item{it.sub.index}, false)
				continue
			}
			if it.div != nil {
				walk(it.div.left, false)
				walk(it.div.right, false)
				continue
			}
			if it.synthetic() || it.tok.Kind != Ident || bqReserved[it.upper()] || datePartNames[it.upper()] {
				continue
			}
			name := strings.ToLower(it.tok.Text)
			if !vars[name] || aliases[name] || safe || whole[it] {
				continue
			}
			prev, next := at(seq, i-1), at(seq, i+1)
			switch {
			case next.isGroup("(") || next.isPunct("."):
				continue // a call or a qualifier
			case prev.is("FROM") || prev.is("JOIN") || prev.is("AS") || prev.is("WITH") || prev.is("OVER") ||
				prev.is("WINDOW") || prev.isPunct("."):
				continue
			case next.is("AS") && at(seq, i+2).isGroup("("):
				continue // a CTE name
			case next.is("IS"):
				continue // STRUCT IS [NOT] NULL is valid
			case structCase(seq, i, vars):
				continue // STRUCTs compared by a simple CASE
			case endsOperand(prev) && !prev.is("END"):
				continue // an implicit alias or a table alias
			}
			e.invalid(it, "%s names the row of table %s, a STRUCT, which cannot be used here (qualify the column)",
				it.tok.Text, it.tok.Text)
			return
		}
	}
	walk(items, false)
}

// checkBoolOperands rejects non-BOOL conditions in WHEN (of a searched CASE)
// and WHERE/AND/OR when the operand's type is known, as BigQuery does.
func (e *emitter) checkBoolOperands(items []*item) {
	if e.cat == nil {
		return
	}
	for i, it := range items {
		up := it.upper()
		switch up {
		case "WHEN", "WHERE", "AND", "OR", "NOT", "HAVING":
		default:
			continue
		}
		if up == "WHEN" && !e.searchedCase(items, i) {
			continue
		}
		if up == "AND" && betweenAnd(items, i) {
			continue
		}
		op := at(items, i+1)
		if op == nil || !boolEnd(at(items, i+2)) {
			continue
		}
		t := baseType(e.operandType(items[i+1 : i+2]))
		if t == "" || t == "BOOL" {
			continue
		}
		if up == "WHEN" {
			e.invalid(op, "No matching signature for operator CASE; all WHEN argument types must be BOOL but found: %s", t)
		} else {
			e.invalid(op, "%s argument must be BOOL but found %s", up, t)
		}
		return
	}
}

func boolEnd(it *item) bool {
	if it == nil {
		return true
	}
	switch it.upper() {
	case "THEN", "AND", "OR", "GROUP", "ORDER", "HAVING", "QUALIFY", "WINDOW", "LIMIT", "UNION", "INTERSECT",
		"EXCEPT", "JOIN", "LEFT", "RIGHT", "INNER", "FULL", "CROSS":
		return true
	}
	return it.isPunct(";")
}

// searchedCase reports whether the WHEN at items[i] belongs to CASE WHEN …
// rather than CASE expr WHEN ….
func (e *emitter) searchedCase(items []*item, i int) bool {
	depth := 0
	for k := i - 1; k >= 0; k-- {
		switch {
		case items[k].is("END"):
			depth++
		case items[k].is("CASE"):
			if depth == 0 {
				return at(items, k+1).is("WHEN")
			}
			depth--
		}
	}
	return false
}

// betweenAnd reports whether the AND at items[i] is the one of x BETWEEN a
// AND b.
func betweenAnd(items []*item, i int) bool {
	for k := i - 1; k >= 0; k-- {
		switch items[k].upper() {
		case "BETWEEN":
			return true
		case "AND", "OR", "WHERE", "ON", "WHEN", "THEN", "ELSE", "HAVING", "SELECT", "NOT":
			return false
		}
		if items[k].isPunct(",") {
			return false
		}
	}
	return false
}

// checkUnnestAggregates rejects an aggregate function called in UNNEST's
// argument (outside a subquery there), as BigQuery does ("Aggregate function
// APPROX_QUANTILES not allowed in UNNEST"). It walks the whole tree before
// anything is translated, so that this error of the model's is reported
// rather than a construct elsewhere the engine cannot run.
func (e *emitter) checkUnnestAggregates(items []*item) {
	var inArg func(seq []*item)
	inArg = func(seq []*item) {
		for i, it := range seq {
			if e.err != nil {
				return
			}
			if it.tok.Kind == Ident && !it.synthetic() && !it.group && at(seq, i+1).isGroup("(") &&
				!at(seq, i-1).isPunct(".") && !at(seq, i+2).is("OVER") {
				if sig, ok := signatures[it.upper()]; ok && sig.kind == aggregateFn {
					e.invalid(it, "Aggregate function %s not allowed in UNNEST", it.upper())
					return
				}
			}
			if it.group && !isSubquery(it) {
				inArg(it.kids)
			}
		}
	}
	var walk func(seq []*item)
	walk = func(seq []*item) {
		for i, it := range seq {
			if e.err != nil {
				return
			}
			// The UNNEST operator of a FROM clause; x IN UNNEST(…) is an
			// expression, left to BigQuery's rules for expressions.
			if it.is("UNNEST") && !at(seq, i-1).is("IN") && at(seq, i+1).isGroup("(") && !isSubquery(at(seq, i+1)) {
				inArg(at(seq, i+1).kids)
			}
			if it.group {
				walk(it.kids)
			}
		}
	}
	walk(items)
}

// arithmeticOps are the operators whose operand BigQuery refuses to be the
// literal NULL ("Operands of + cannot be literal NULL"); a comparison with
// NULL is valid (and NULL).
var arithmeticOps = map[string]bool{"+": true, "-": true, "*": true, "/": true}

// checkNullOperands rejects the literal NULL as an operand of an
// arithmetic operator or of a logical NOT, as BigQuery's analyzer does; the
// engine would compute NULL. IS [NOT] NULL and comparisons are untouched.
func (e *emitter) checkNullOperands(items []*item) {
	for i, it := range items {
		if e.err != nil {
			return
		}
		if !it.is("NULL") || it.synthetic() {
			continue
		}
		prev, next := at(items, i-1), at(items, i+1)
		switch {
		case prev != nil && prev.tok.Kind == Punct && !prev.synthetic() && arithmeticOps[prev.tok.Text]:
			e.invalid(it, "Operands of %s cannot be literal NULL", prev.tok.Text)
		case next != nil && next.tok.Kind == Punct && !next.synthetic() && arithmeticOps[next.tok.Text]:
			e.invalid(it, "Operands of %s cannot be literal NULL", next.tok.Text)
		case prev.is("NOT") && !at(items, i-2).is("IS"):
			e.invalid(it, "Operands of NOT cannot be literal NULL")
		}
	}
}
