package bqsql

import (
	"strconv"
	"strings"
)

// unnest translates UNNEST(array) [AS] alias [WITH OFFSET [AS] off] in a FROM
// clause. BigQuery's alias names a value table: t is the element itself and,
// for STRUCT elements, t.field reads a field. DuckDB's UNNEST(x) AS t(t) gives
// the same bindings; struct fields also become columns, as BigQuery exposes
// them unqualified.
func (e *emitter) unnest(w *writer, items []*item, i int) int {
	it := items[i]
	group := items[i+1]
	args := splitTop(group.kids)
	if len(args) != 1 || len(args[0]) == 0 {
		e.unsupported(group, "UNNEST with %d arguments is not supported", len(args))
		return 2
	}
	arr := e.text(args[0])
	n := 2
	alias := ""
	if at(items, i+n).is("AS") {
		n++
	}
	if a := at(items, i+n); a != nil && !a.synthetic() && !a.group &&
		((a.tok.Kind == Ident && !bqReserved[a.upper()]) || a.tok.Kind == QuotedIdent) {
		alias = a.tok.Text
		if a.tok.Kind == QuotedIdent {
			alias = e.identValue(a)
		}
		n++
	} else if at(items, i+n-1).is("AS") {
		e.invalid(at(items, i+n), "Syntax error: Unexpected %s", describe(at(items, i+n)))
		return n
	}
	offset := ""
	if at(items, i+n).is("WITH") && at(items, i+n+1).is("OFFSET") {
		n += 2
		offset = "offset"
		if at(items, i+n).is("AS") {
			n++
		}
		if a := at(items, i+n); a != nil && !a.synthetic() && !a.group &&
			((a.tok.Kind == Ident && !bqReserved[a.upper()]) || a.tok.Kind == QuotedIdent) {
			offset = a.tok.Text
			if a.tok.Kind == QuotedIdent {
				offset = e.identValue(a)
			}
			n++
		}
	}
	structs := isStructArrayLiteral(args[0])
	w.lead(it)
	switch {
	case offset != "" && structs:
		// The fields, the element (under the alias) and the offset.
		name := alias
		if name == "" {
			name = "bq_unnest"
		}
		q := quoteIdent(name)
		w.write("(SELECT bq_s.*, bq_s AS " + q + ", bq_o AS " + quoteIdent(offset) + " FROM (SELECT bq_u.v AS bq_s, bq_u.o - 1 AS bq_o FROM UNNEST(" +
			arr + ") WITH ORDINALITY AS bq_u(v, o))) AS " + q)
	case offset != "":
		name := alias
		if name == "" {
			name = "bq_unnest"
		}
		q := quoteIdent(name)
		w.write("(SELECT bq_u.v AS " + q + ", bq_u.o - 1 AS " + quoteIdent(offset) +
			" FROM UNNEST(" + arr + ") WITH ORDINALITY AS bq_u(v, o)) AS " + q)
	case structs && alias != "":
		q := quoteIdent(alias)
		w.write("(SELECT bq_s.*, bq_s AS " + q + " FROM (SELECT UNNEST(" + arr + ") AS bq_s)) AS " + q)
	case structs:
		w.write("(SELECT bq_s.* FROM (SELECT UNNEST(" + arr + ") AS bq_s))")
	case alias != "":
		q := quoteIdent(alias)
		w.write("UNNEST(" + arr + ") AS " + q + "(" + q + ")")
	default:
		w.write("UNNEST(" + arr + ")")
	}
	if joinWithoutCondition(items, i, n) {
		w.write(" ON TRUE")
	}
	return n
}

// joinWithoutCondition reports whether the UNNEST source items[i:i+n] is
// joined with [INNER] JOIN or LEFT [OUTER] JOIN and no ON or USING, which
// BigQuery allows for UNNEST (every element pairs with its row, and a LEFT
// JOIN keeps a row whose array is empty) and DuckDB refuses without a
// condition: ON TRUE says the same.
func joinWithoutCondition(items []*item, i, n int) bool {
	if !at(items, i-1).is("JOIN") || at(items, i+n).is("ON") || at(items, i+n).is("USING") {
		return false
	}
	before := at(items, i-2)
	switch {
	case before.is("INNER"), before.is("LEFT"), before.is("OUTER") && at(items, i-3).is("LEFT"):
		return true
	case before.is("CROSS"), before.is("RIGHT"), before.is("FULL"), before.is("OUTER"), before.is("NATURAL"):
		return false
	}
	return true // a plain JOIN
}

// isStructArrayLiteral reports whether items is an array literal whose
// elements are STRUCT constructors.
func isStructArrayLiteral(items []*item) bool {
	if len(items) > 3 && items[0].is("ARRAY") && items[1].isPunct("<") && items[2].is("STRUCT") {
		// ARRAY<STRUCT<…>>[…]: its elements are STRUCTs whatever they are
		// written as.
		j := closingAngle(items, 1)
		return j > 1 && j+2 == len(items) && items[j+1].isGroup("[")
	}
	k := 0
	if len(items) > 0 && items[0].is("ARRAY") {
		k = 1
	}
	if k >= len(items) || !items[k].isGroup("[") || len(items[k].kids) == 0 {
		return false
	}
	first := items[k].kids[0]
	return first.is("STRUCT") || first.isGroup("(")
}

// scan collects what the type checks need: the MIMIC tables a query reads,
// their aliases, and the names it redefines with AS.
func (e *emitter) scan(items []*item) {
	e.aliases = map[string]string{}
	e.redefined = map[string]bool{}
	e.ambiguous = map[string]bool{}
	e.cteOf = map[string]string{}
	e.cteCols = map[string]map[string]string{}
	e.cteAs = map[string]int{}
	e.unnestTypes = map[string]string{}
	e.markImplicitAliases(items)
	var ctes []cteDef
	var walk func([]*item)
	walk = func(seq []*item) {
		for i := 0; i < len(seq); i++ {
			it := seq[i]
			if it.group {
				walk(it.kids)
				continue
			}
			switch it.upper() {
			case "WITH":
				ctes = append(ctes, cteDefs(seq, i)...)
				continue
			case "AS":
				if nx := at(seq, i+1); nx != nil && !nx.group && (nx.tok.Kind == Ident || nx.tok.Kind == QuotedIdent) {
					e.redefined[strings.ToLower(strings.Trim(nx.tok.Text, "`"))] = true
				}
				continue
			case "UNNEST":
				e.scanUnnest(seq, i)
				continue
			case "FROM", "JOIN":
			default:
				continue
			}
			parts, j := readTablePath(seq, i+1)
			if len(parts) == 0 {
				continue
			}
			table := mimicTable(parts)
			if table != "" {
				e.mimicTabls = append(e.mimicTabls, table)
			}
			alias := rangeVarName(seq[j-1], parts[len(parts)-1])
			k := j
			if at(seq, k).is("AS") {
				k++
			}
			if a := at(seq, k); a != nil && !a.group && (a.tok.Kind == Ident && !bqReserved[a.upper()] || a.tok.Kind == QuotedIdent) {
				alias = strings.Trim(a.tok.Text, "`")
			}
			e.bind(strings.ToLower(alias), table, parts)
		}
	}
	walk(items)
	for _, c := range ctes {
		if _, dup := e.cteCols[c.name]; dup {
			e.cteCols[c.name] = nil // defined twice (nested WITHs): unknown
			continue
		}
		e.cteCols[c.name] = e.selectTypes(c.body)
	}
}

// readTablePath reads the table path that starts at seq[j] (`a.b.c`,
// a.b.c, physionet-data.b.c, a CTE's name) into its components, and returns
// the index after it; no components if none starts there.
func readTablePath(seq []*item, j int) ([]string, int) {
	var parts []string
	for j < len(seq) {
		t := seq[j]
		if t.group || (t.tok.Kind != Ident && t.tok.Kind != QuotedIdent && !t.isPunct(".") && !t.isPunct("-")) {
			break
		}
		if t.tok.Kind == Ident && bqReserved[t.upper()] {
			break
		}
		if t.tok.Kind == QuotedIdent {
			v, _ := t.tok.Value()
			parts = append(parts, strings.Split(v, ".")...)
		} else if t.tok.Kind == Ident {
			if len(parts) > 0 && at(seq, j-1).isPunct("-") {
				parts[len(parts)-1] += "-" + t.tok.Text
			} else {
				parts = append(parts, t.tok.Text)
			}
		}
		j++
		if nx := at(seq, j); nx == nil || !(nx.isPunct(".") || (nx.isPunct("-") && !nx.sp)) {
			// The path ends unless a dot (or a dash inside a project
			// name) follows.
			if !t.isPunct(".") && !t.isPunct("-") {
				break
			}
		}
	}
	return parts, j
}

// mimicTable returns "dataset.table" for a path naming a MIMIC-IV table in
// any spelling the bridge accepts, or "".
func mimicTable(parts []string) string {
	if len(parts) >= 3 && parts[0] == Project {
		if schema, ok := mimicDatasets[parts[1]]; ok {
			return schema + "." + parts[2]
		}
	}
	return ""
}

// bind records that alias names table (a MIMIC "dataset.table", or "" for
// anything else, with the FROM path in parts). The alias map is flat over
// the whole query, so an alias bound to two different things is marked
// ambiguous and typed nowhere.
func (e *emitter) bind(alias, table string, parts []string) {
	cte := ""
	if table == "" && len(parts) == 1 {
		cte = strings.ToLower(parts[0])
	}
	if old, ok := e.aliases[alias]; ok && (old != table || e.cteOf[alias] != cte) {
		e.ambiguous[alias] = true
	}
	e.aliases[alias] = table
	e.cteOf[alias] = cte
}

// cteDef is a WITH clause's named subquery.
type cteDef struct {
	name  string
	body  []*item
	group *item // the bracketed body
}

// cteDefs reads the definitions of the WITH clause at seq[i]:
// WITH [RECURSIVE] name AS (body) [, name AS (body)]...
func cteDefs(seq []*item, i int) []cteDef {
	var out []cteDef
	j := i + 1
	if at(seq, j).is("RECURSIVE") {
		j++
	}
	for {
		name, as, body := at(seq, j), at(seq, j+1), at(seq, j+2)
		if !isName(name) || !as.is("AS") || !body.isGroup("(") {
			return out
		}
		v, err := name.tok.Value()
		if err != nil {
			return out
		}
		out = append(out, cteDef{name: strings.ToLower(v), body: body.kids, group: body})
		j += 3
		if !at(seq, j).isPunct(",") {
			return out
		}
		j++
	}
}

// nullType marks a branch's column that is the literal NULL, which takes
// the type of the other branches of a set operation.
const nullType = "NULL"

// selectTypes types the output columns of a subquery's select list where
// the expression is a column, a literal, a CAST or MIN/MAX/ANY_VALUE of
// one, keyed by lower-case output name. A set operation takes its names
// from its first branch and types a column only where every branch has the
// same type for it or is the literal NULL (BigQuery coerces differing ones).
func (e *emitter) selectTypes(body []*item) map[string]string {
	var names, types []string
	for len(body) == 1 && body[0].isGroup("(") {
		// ((SELECT … UNION ALL SELECT …)): the set operation is inside.
		body = body[0].kids
	}
	branches, _ := setBranches(body)
	for b, branch := range branches {
		n, t := e.branchTypes(branch, true)
		if b == 0 {
			names, types = n, t
			continue
		}
		if len(t) != len(types) {
			return nil
		}
		for k := range types {
			switch {
			case types[k] == nullType:
				// A literal NULL takes the type of the other branches.
				types[k] = t[k]
			case t[k] == nullType:
			case types[k] != t[k]:
				types[k] = ""
			}
		}
	}
	// A named column of unknown type is kept as "": a bare name that
	// another CTE types is then not typed from that one alone.
	cols := map[string]string{}
	for k, name := range names {
		if name != "" {
			if types[k] == nullType {
				types[k] = "" // NULL in every branch
			}
			cols[name] = types[k]
		}
	}
	return cols
}

// setBranches splits a query at its top-level UNION, INTERSECT and EXCEPT
// into its branches (parentheses around a branch removed) and the
// operators between them ("UNION ALL", …).
func setBranches(body []*item) (branches [][]*item, ops []string) {
	start := 0
	for k, it := range body {
		if it.is("UNION") || it.is("INTERSECT") || (it.is("EXCEPT") && !at(body, k-1).isPunct("*")) {
			branches = append(branches, body[start:k])
			op := it.upper()
			start = k + 1
			for at(body, start).is("ALL") || at(body, start).is("DISTINCT") {
				op += " " + body[start].upper()
				start++
			}
			ops = append(ops, op)
		}
	}
	branches = append(branches, body[start:])
	for b, branch := range branches {
		for len(branch) == 1 && branch[0].isGroup("(") {
			branch = branch[0].kids
		}
		branches[b] = branch
	}
	return branches, ops
}

// checkSetOpTypes reports the first set operation the statement model
// found BigQuery rejects or the engine cannot answer as BigQuery does
// (model.checkSetOpBranch): each branch is compared with the first by the
// types the model inferred for its columns.
func (e *emitter) checkSetOpTypes() {
	if is, ok := e.model.firstIssue(); ok && e.err == nil {
		e.err = errAt(e.src, is.pos, is.kind, "%s", is.msg)
	}
}

// branchTypes returns, for one SELECT's list of a CTE body, each column's
// lower-case output name and BigQuery type by position ("" where unknown),
// and, with count, counts the names it gives with AS in e.cteAs.
func (e *emitter) branchTypes(body []*item, count bool) (names, types []string) {
	sel := indexWord(body, "SELECT")
	if sel < 0 {
		return nil, nil
	}
	k, end := selectList(body, sel)
	vars, named := rangeVars(body)
	for _, expr := range splitTop(body[k:end]) {
		n := len(expr)
		var name string
		switch {
		case n >= 3 && expr[n-2].is("AS") && isName(expr[n-1]):
			name, expr = e.identValue(expr[n-1]), expr[:n-2]
			if count {
				e.cteAs[strings.ToLower(name)]++
			}
		case n == 1 && expr[0].path != nil:
			name = expr[0].path.parts[len(expr[0].path.parts)-1]
		case implicitAliased(expr):
			var alias *item
			alias, expr, _ = implicitAlias(expr)
			name = e.identValue(alias)
			if count {
				e.cteAs[strings.ToLower(name)]++
			}
		case n == 1 && isName(expr[0]):
			name = e.identValue(expr[0])
		case n == 3 && expr[1].isPunct(".") && isName(expr[0]) && isName(expr[2]):
			name = e.identValue(expr[2])
		}
		name = strings.ToLower(name)
		typ := ""
		switch {
		case len(expr) == 1 && isName(expr[0]) && vars[name] && !named[name]:
			// The name of a FROM source is its whole row (see
			// checkRangeVarRefs), even where a column shares the name.
			typ = "STRUCT"
		case len(expr) == 1 && expr[0].is("NULL"):
			typ = nullType
		case len(expr) > 0:
			typ = baseType(e.exprType(expr))
		}
		names = append(names, name)
		types = append(types, typ)
	}
	return names, types
}

// exprType is operandType, also for alias.column written as three tokens
// (inside function arguments and select lists, dotted names are not yet
// paths) and for MIN, MAX and ANY_VALUE of a typed operand.
func (e *emitter) exprType(items []*item) string {
	if t, ok := e.modelType(items); ok && !isLiteralItems(items) {
		return t
	}
	switch {
	case isIntervalLiteral(items):
		return "INTERVAL"

	case len(items) == 3 && items[1].isPunct(".") && isName(items[0]) && isName(items[2]):
		return e.columnType(&item{path: &pathNode{parts: []string{e.identValue(items[0]), e.identValue(items[2])}}})
	case len(items) == 2 && items[1].isGroup("(") && (items[0].is("MIN") || items[0].is("MAX") || items[0].is("ANY_VALUE")):
		args := splitTop(items[1].kids)
		if len(args) == 1 && !at(args[0], 0).is("DISTINCT") {
			return baseType(e.exprType(args[0]))
		}
		return ""
	}
	return e.operandType(items)
}

// columnType returns the BigQuery type of a column reference (a path or a
// lone identifier) when the catalog and the query's aliases determine it.
func (e *emitter) columnType(it *item) string {
	if t, ok := e.modelType([]*item{it}); ok {
		return t
	}
	var parts []string
	switch {
	case it.path != nil:
		parts = it.path.parts
	case it.tok.Kind == Ident && !it.synthetic() && !it.group && !bqReserved[it.upper()]:
		parts = []string{it.tok.Text}
	default:
		return ""
	}
	switch len(parts) {
	case 2:
		alias := strings.ToLower(parts[0])
		table, ok := e.aliases[alias]
		if !ok || e.ambiguous[alias] {
			return ""
		}
		if table == "" {
			// A CTE's column, typed where its select list says.
			return e.cteCols[e.cteOf[alias]][strings.ToLower(parts[1])]
		}
		if e.cat == nil {
			return ""
		}
		schema, name, _ := strings.Cut(table, ".")
		return e.cat.ColumnType(schema, name, parts[1])
	case 1:
		col := strings.ToLower(parts[0])
		if t := e.unnestType(col); t != "" {
			return t
		}
		if e.redefined[col] {
			return e.cteColumn(col)
		}
		if e.cat == nil {
			return ""
		}
		typ := ""
		for _, t := range e.mimicTabls {
			schema, name, _ := strings.Cut(t, ".")
			ct := e.cat.ColumnType(schema, name, col)
			if ct == "" {
				continue
			}
			if typ != "" && typ != ct {
				return ""
			}
			typ = ct
		}
		return typ
	}
	return ""
}

// cteColumn types a bare name that only a CTE defines: one AS in the whole
// query gives it, no MIMIC table the query reads has such a column, and
// every CTE that outputs it agrees on its type. Anything less certain is
// unknown.
func (e *emitter) cteColumn(col string) string {
	// Several ASs may define it if all are the branches of CTE set
	// operations (whose types must then agree).
	if n := e.outputNames[col]; (n != 1 && n != e.cteAs[col]) || (e.cat != nil && e.anyMimicColumn(col)) {
		return ""
	}
	typ := ""
	for _, cols := range e.cteCols {
		t, ok := cols[col]
		if !ok {
			continue
		}
		if t == "" || (typ != "" && typ != t) {
			return ""
		}
		typ = t
	}
	return typ
}

// operandType infers the BigQuery type of a one-item operand: a literal, a
// typed literal or CAST handled by the caller, or a column. Literal types are
// marked with a "lit:" prefix since BigQuery coerces literals more freely.
func (e *emitter) operandType(items []*item) string {
	switch len(items) {
	case 1:
		it := items[0]
		if isSubquery(it) && selectsRow(it.kids) {
			return "STRUCT"
		}
		if it.synthetic() || it.group {
			if it.path != nil {
				return e.columnType(it)
			}
			return ""
		}
		switch it.tok.Kind {
		case String:
			return "lit:STRING"
		case Bytes:
			return "BYTES"
		case Number:
			if it.tok.IsFloat() {
				return "lit:FLOAT64"
			}
			return "lit:INT64"
		case Ident:
			switch it.upper() {
			case "TRUE", "FALSE":
				return "BOOL"
			}
			return e.columnType(it)
		}
	case 2:
		if items[0].isPunct("-") && items[1].tok.Kind == Number && !items[1].synthetic() {
			return e.operandType(items[1:])
		}
		switch items[0].upper() {
		case "DATE", "DATETIME", "TIMESTAMP", "TIME", "NUMERIC", "BIGNUMERIC":
			if items[1].tok.Kind == String && !items[1].synthetic() {
				return items[0].upper()
			}
		case "CAST", "SAFE_CAST":
			if g := items[1]; g.isGroup("(") {
				for k := len(g.kids) - 2; k >= 0; k-- {
					if g.kids[k].is("AS") {
						if k+2 == len(g.kids) {
							t := g.kids[k+1].upper()
							if t == "INT" || t == "INTEGER" || t == "BIGINT" || t == "SMALLINT" {
								t = "INT64"
							}
							if _, ok := bqTypes[t]; ok {
								return t
							}
						}
						break
					}
				}
			}
		}
	}
	return ""
}

// selectsRow reports whether a subquery's SELECT list is the bare name of
// one of its FROM sources: BigQuery then returns the whole row, a STRUCT
// (SELECT p75 FROM p75 is STRUCT<p75 INT64>, not the column p75).
func selectsRow(body []*item) bool {
	sel := indexWord(body, "SELECT")
	if sel < 0 {
		return false
	}
	end := sel + 1
	for end < len(body) && !endsSelectList(body, end) {
		end++
	}
	list := body[sel+1 : end]
	if len(list) != 1 || !isName(list[0]) {
		return false
	}
	vars, named := rangeVars(body)
	name := strings.ToLower(strings.Trim(list[0].tok.Text, "`"))
	return vars[name] && !named[name]
}

// orUnknown names an operand type in a message.
func orUnknown(t string) string {
	if t == "" {
		return "(unknown)"
	}
	return t
}

var numericTypes = map[string]bool{"INT64": true, "FLOAT64": true, "NUMERIC": true, "BIGNUMERIC": true}
var timeTypes = map[string]bool{"DATE": true, "DATETIME": true, "TIMESTAMP": true, "TIME": true}

// compatible reports whether BigQuery finds a common supertype for a
// comparison between the two inferred types ("" is unknown).
func compatible(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	la, lb := strings.HasPrefix(a, "lit:"), strings.HasPrefix(b, "lit:")
	ta, tb := strings.TrimPrefix(a, "lit:"), strings.TrimPrefix(b, "lit:")
	if ta == tb {
		return true
	}
	switch {
	case numericTypes[ta] && numericTypes[tb]:
		return true
	case ta == "STRING" && la && timeTypes[tb], tb == "STRING" && lb && timeTypes[ta]:
		return true // string literals coerce to date/time types
	case (ta == "DATE" && tb == "DATETIME") || (ta == "DATETIME" && tb == "DATE"):
		return true
	case (ta == "DATE" && tb == "TIMESTAMP") || (ta == "TIMESTAMP" && tb == "DATE"):
		return true
	}
	return false
}

func baseType(t string) string { return strings.TrimPrefix(t, "lit:") }

// boundary reports whether items[k] delimits a comparison operand (so that
// the operand next to it is a whole expression, not part of arithmetic).
func boundary(items []*item, k int) bool {
	it := at(items, k)
	if it == nil {
		return true
	}
	if it.isPunct(",") || it.isPunct(";") {
		return true
	}
	switch it.upper() {
	case "AND", "OR", "NOT", "WHERE", "ON", "WHEN", "THEN", "ELSE", "HAVING", "SELECT", "END", "QUALIFY",
		"GROUP", "ORDER", "LIMIT", "AS", "IF":
		return true
	}
	return false
}

// checkSequence rejects comparisons BigQuery would refuse at analysis: a
// column compared with a literal or column of an incompatible type (INT64 =
// STRING, STRING = INT64, DATETIME = TIMESTAMP, …). DuckDB silently casts in
// these cases. Only operands whose type is certain are checked.
func (e *emitter) checkSequence(items []*item) {
	if e.cat == nil || e.err != nil {
		return
	}
	for i, it := range items {
		switch {
		case it.tok.Kind == Punct && !it.synthetic() && !it.group:
			switch it.tok.Text {
			case "=", "!=", "<>", "<", ">", "<=", ">=":
			default:
				continue
			}
			if !boundary(items, i-2) || !boundary(items, i+2) {
				// Operands of exactly one item only; typed literals and
				// CAST span two.
				if !(boundary(items, i-3) && e.operandType(items[max(i-2, 0):i]) != "") &&
					!(boundary(items, i+3) && i+3 <= len(items) && e.operandType(items[i+1:min(i+3, len(items))]) != "") {
					continue
				}
			}
			l := e.sideType(items, i, -1)
			r := e.sideType(items, i, +1)
			// BigQuery places the error at the start of the comparison.
			start := at(items, i-1)
			if !boundary(items, i-2) && i >= 2 {
				start = items[i-2]
			}
			if (l == "STRUCT" || r == "STRUCT") && it.tok.Text != "=" && it.tok.Text != "!=" && it.tok.Text != "<>" {
				// STRUCTs have no order, whatever the other side.
				e.invalid(start, "No matching signature for operator %s for argument types: %s, %s", it.tok.Text,
					orUnknown(baseType(l)), orUnknown(baseType(r)))
				return
			}
			if !compatible(l, r) {
				e.invalid(start, "No matching signature for operator %s for argument types: %s, %s", it.tok.Text,
					baseType(l), baseType(r))
				return
			}
		case it.is("IN"):
			k := i - 1
			if at(items, k).is("NOT") {
				k--
			}
			g := at(items, i+1)
			if !g.isGroup("(") || k < 0 || !boundary(items, k-1) || len(g.kids) == 0 || g.kids[0].is("SELECT") || g.kids[0].is("WITH") {
				continue
			}
			l := e.operandType(items[k : k+1])
			for _, el := range splitTop(g.kids) {
				if r := e.operandType(el); !compatible(l, r) {
					e.invalid(it, "No matching signature for operator IN for argument types %s and {%s}", baseType(l), baseType(r))
					return
				}
			}
		case it.is("BETWEEN"):
			k := i - 1
			if at(items, k).is("NOT") {
				k--
			}
			if k < 0 || !boundary(items, k-1) || !at(items, i+2).is("AND") {
				continue
			}
			l := e.operandType(items[k : k+1])
			lo := e.operandType(items[i+1 : i+2])
			hi := ""
			if boundary(items, i+4) && i+4 <= len(items) {
				hi = e.operandType(items[i+3 : i+4])
			}
			if !compatible(l, lo) || !compatible(l, hi) {
				bad := lo
				if compatible(l, lo) {
					bad = hi
				}
				e.invalid(it, "No matching signature for operator BETWEEN for argument types: %s, %s", baseType(l), baseType(bad))
				return
			}
		case it.is("LIKE"):
			k := i - 1
			if at(items, k).is("NOT") {
				k--
			}
			if k < 0 || !boundary(items, k-1) {
				continue
			}
			if l := baseType(e.operandType(items[k : k+1])); l != "" && l != "STRING" && l != "BYTES" {
				e.invalid(it, "No matching signature for operator LIKE for argument types: %s, STRING", l)
				return
			}
		}
	}
}

// sideType infers the type of the operand left (dir -1) or right (dir +1) of
// the operator at items[i], trying one- and two-item operands.
func (e *emitter) sideType(items []*item, i, dir int) string {
	if dir < 0 {
		if boundary(items, i-2) && i >= 1 {
			return e.operandType(items[i-1 : i])
		}
		if i >= 2 && boundary(items, i-3) {
			return e.operandType(items[i-2 : i])
		}
		return ""
	}
	if boundary(items, i+2) && i+2 <= len(items) {
		return e.operandType(items[i+1 : i+2])
	}
	if i+3 <= len(items) && boundary(items, i+3) {
		return e.operandType(items[i+1 : i+3])
	}
	return ""
}

// nameOutputColumns gives the outermost SELECT's unnamed expressions
// BigQuery's names f0_, f1_, … so result headers match BigQuery's.
func (e *emitter) nameOutputColumns(items []*item) []*item {
	sel := -1
	for i, it := range items {
		if it.is("SELECT") {
			sel = i
			break
		}
	}
	if sel < 0 {
		return items
	}
	start := sel + 1
	for start < len(items) && (items[start].is("DISTINCT") || items[start].is("ALL")) {
		start++
	}
	if at(items, start).is("AS") {
		return items // SELECT AS STRUCT / VALUE
	}
	end := start
	for end < len(items) && !endsSelectList(items, end) {
		end++
	}
	out := append([]*item(nil), items[:start]...)
	anon := 0
	list := items[start:end]
	elemStart := 0
	for k := 0; k <= len(list); k++ {
		if k < len(list) && !list[k].isPunct(",") {
			continue
		}
		el := list[elemStart:k]
		out = append(out, el...)
		if len(el) > 0 && isAnonymous(el) {
			out = append(out, &item{isRaw: true, raw: "AS f" + strconv.Itoa(anon) + "_", sp: true})
			anon++
		}
		if k < len(list) {
			out = append(out, list[k])
		}
		elemStart = k + 1
	}
	return append(out, items[end:]...)
}

// isAnonymous reports whether a select-list element has no name of its own
// in BigQuery: not a column path, not aliased, not a star.
func isAnonymous(el []*item) bool {
	last := el[len(el)-1]
	n := len(el)
	switch {
	case last.isPunct("*"):
		return false
	case n >= 2 && el[n-2].is("AS"):
		return false
	}
	// * EXCEPT (…) / * REPLACE (…) / t.* EXCEPT (…)
	for _, it := range el {
		if it.isPunct("*") && n > 1 && (el[1].is("EXCEPT") || el[1].is("REPLACE")) {
			return false
		}
	}
	if el[0].isPunct("*") {
		return false
	}
	// A column path: ident(.ident)* or `quoted`.
	path := true
	for k, it := range el {
		switch {
		case k%2 == 0 && !it.group && (it.tok.Kind == QuotedIdent || (it.tok.Kind == Ident && !bqReserved[it.upper()])):
		case k%2 == 1 && it.isPunct("."):
		case k == n-1 && k%2 == 0 && it.isPunct("*"):
		default:
			path = false
		}
	}
	if path && n%2 == 1 {
		return false
	}
	// An implicit alias: an expression followed by a bare name.
	if n >= 2 && !last.group && (last.tok.Kind == QuotedIdent || (last.tok.Kind == Ident && !bqReserved[last.upper()])) &&
		endsOperand(el[n-2]) {
		return false
	}
	return true
}

// isIntervalLiteral reports whether items are exactly INTERVAL [-]n part
// or INTERVAL 's' part TO part (an expression around one is not).
func isIntervalLiteral(items []*item) bool {
	if len(items) < 3 || !items[0].is("INTERVAL") || items[0].synthetic() {
		return false
	}
	rest := items[1:]
	if rest[0].isPunct("-") {
		rest = rest[1:]
	}
	if len(rest) == 4 && rest[2].is("TO") {
		rest = rest[:2]
	}
	return len(rest) == 2 && !rest[0].group && (rest[0].tok.Kind == Number || rest[0].tok.Kind == String) &&
		rest[1].tok.Kind == Ident && isIntervalPart(strings.ToUpper(strings.TrimSuffix(strings.ToUpper(rest[1].tok.Text), "S")))
}

// scanUnnest records the element type of UNNEST([…]) AS alias at
// seq[i], where every element's type is known and the same (NULLs aside).
func (e *emitter) scanUnnest(seq []*item, i int) {
	g := at(seq, i+1)
	if !g.isGroup("(") || len(g.kids) != 1 || !g.kids[0].isGroup("[") {
		return
	}
	k := i + 2
	if at(seq, k).is("AS") {
		k++
	}
	a := at(seq, k)
	if !isName(a) {
		return
	}
	alias := strings.ToLower(e.identValue(a))
	typ := ""
	for _, el := range splitTop(g.kids[0].kids) {
		if len(el) == 1 && el[0].is("NULL") {
			continue
		}
		t := e.exprType(el)
		if t == "" || strings.HasPrefix(t, "lit:") || (typ != "" && t != typ) {
			typ = ""
			break
		}
		typ = t
	}
	if prev, seen := e.unnestTypes[alias]; seen && prev != typ {
		typ = ""
	}
	e.unnestTypes[alias] = typ
}

// unnestType types a bare name that is the alias of an UNNEST of an array
// literal, unless a SELECT list, a CTE or a MIMIC table the query reads
// also defines that name.
func (e *emitter) unnestType(col string) string {
	t := e.unnestTypes[col]
	if t == "" || e.outputNames[col] > 0 || e.cteAs[col] > 0 || (e.cat != nil && e.anyMimicColumn(col)) {
		return ""
	}
	for _, cols := range e.cteCols {
		if _, ok := cols[col]; ok {
			return ""
		}
	}
	return t
}

// isLiteralItems reports whether items are one literal (optionally
// negated), whose "lit:" type the model does not keep.
func isLiteralItems(items []*item) bool {
	if len(items) == 2 && items[0].isPunct("-") {
		items = items[1:]
	}
	if len(items) != 1 || items[0].synthetic() || items[0].group {
		return false
	}
	switch items[0].tok.Kind {
	case String, Number, Bytes:
		return true
	}
	return items[0].is("NULL")
}
