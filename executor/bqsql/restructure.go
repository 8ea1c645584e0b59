package bqsql

import (
	"strings"
)

// restructure rewrites a sibling sequence into synthetic nodes for the
// constructs whose translation needs their operands: dotted paths (merged
// first, so a path is one operand), array subscripts and divisions.
func (e *emitter) restructure(items []*item) []*item {
	if len(items) == 0 {
		return items
	}
	items = e.mergePaths(items)
	items = e.arrayPaths(items)
	items = e.subscripts(items)
	items = e.divisions(items)
	items = e.quantifiedLike(items)
	items = e.bytesLike(items)
	items = e.pivots(items)
	items = e.structComparisons(items)
	items = e.havingModifiers(items)
	return items
}

// likeLeft returns the operator (LIKE or NOT LIKE) at items[i], a LIKE,
// and the span [start, end) of its left operand.
func likeLeft(items []*item, i int) (op string, start, end int) {
	op, end = "LIKE", i
	if at(items, i-1).is("NOT") {
		op, end = "NOT LIKE", i-1
	}
	start = end
	for start > 0 && !boundary(items, start-1) && !at(items, start-1).is("NOT") {
		start--
	}
	return op, start, end
}

// quantifiedLike rewrites x [NOT] LIKE ANY|SOME|ALL (p1, p2, …) into a
// disjunction (ANY, SOME) or conjunction (ALL) of plain LIKEs, which has the
// same three-valued result.
func (e *emitter) quantifiedLike(items []*item) []*item {
	for i := 0; i < len(items); i++ {
		if !items[i].is("LIKE") {
			continue
		}
		q := at(items, i+1)
		g := at(items, i+2)
		if !(q.is("ANY") || q.is("SOME") || q.is("ALL")) {
			continue
		}
		unnest := g.is("UNNEST") && at(items, i+3).isGroup("(")
		if !unnest && (!g.isGroup("(") || len(g.kids) == 0) {
			e.unsupported(q, "LIKE %s with an array or subquery is not supported", q.upper())
			return items
		}
		op, start, end := likeLeft(items, i)
		if start == end {
			continue
		}
		left := e.text(items[start:end])
		bytes := e.isBytes(items[start:end]) || e.anyBytes(g, at(items, i+3), unnest)
		if unnest || isSubquery(g) {
			var from string
			span := 3
			if unnest {
				from = "unnest(" + e.text(at(items, i+3).kids) + ")"
				span = 4
			} else {
				from = "(" + e.seq(g.kids) + ")"
			}
			node := &item{tok: items[start].tok, nl: items[start].nl, sp: items[start].sp, isRaw: true,
				raw: quantifiedLikeRows(left, op, q.is("ALL"), from, bytes)}
			rest := append([]*item{node}, items[i+span:]...)
			items = append(items[:start:start], rest...)
			i = start
			continue
		}
		join := " OR "
		if q.is("ALL") {
			join = " AND "
		}
		if bytes {
			left = bytesText(left)
		}
		var parts []string
		for _, p := range splitTop(g.kids) {
			pat := e.text(p)
			switch v, ok := e.literalString(p); {
			case bytes:
				pat = bytesText(pat) + ` ESCAPE '\'`
			case ok && strings.Contains(v, `\`):
				pat += ` ESCAPE '\'`
			case !ok && baseType(e.exprType(p)) == "STRING":
				// Not a literal: escaped and checked as the query runs,
				// as emitter.like does.
				pat = "bq_like_pattern(" + pat + `) ESCAPE '\'`
			case !ok && e.exprType(p) == "" && !(len(p) == 1 && p[0].is("NULL")):
				// Of a type the bridge cannot tell: the macro dispatches
				// on it (emitter.like).
				pat = "bq_like_any_pattern(" + pat + `) ESCAPE '\'`
			}
			parts = append(parts, "("+left+" "+op+" "+pat+")")
		}
		node := &item{tok: items[start].tok, nl: items[start].nl, sp: items[start].sp, isRaw: true,
			raw: "(" + strings.Join(parts, join) + ")"}
		rest := append([]*item{node}, items[i+3:]...)
		items = append(items[:start:start], rest...)
		i = start
	}
	return items
}

// mergePaths turns dotted names (alias.column, `project.dataset.table`,
// project-with-dashes.dataset.table, SAFE.FUNC) into path nodes.
func (e *emitter) mergePaths(items []*item) []*item {
	out := make([]*item, 0, len(items))
	for i := 0; i < len(items); {
		if n, node := e.path(items, i); n > 0 {
			out = append(out, node)
			i += n
			continue
		}
		out = append(out, items[i])
		i++
	}
	return out
}

type pathPart struct {
	name   string
	quoted bool
	it     *item
}

// path recognises a dotted path starting at items[i]. It returns the number
// of items consumed, or 0 when items[i] does not start a multi-part path
// (a lone identifier stays an ordinary item so keyword logic still sees it).
func (e *emitter) path(items []*item, i int) (int, *item) {
	first := items[i]
	if first.synthetic() || first.group || (first.tok.Kind != Ident && first.tok.Kind != QuotedIdent) {
		return 0, nil
	}
	if first.tok.Kind == Ident && bqReserved[first.upper()] {
		return 0, nil
	}
	if next := at(items, i+1); first.tok.Kind == Ident && !next.isPunct(".") && !next.isPunct("-") {
		return 0, nil // a lone name, the common case: no path, nothing to build
	}
	parts := make([]pathPart, 0, 4) // most paths are alias.column
	j := i
	last := first // the path's last identifier
	// An unquoted project name may contain dashes: physionet-data.x.y.
	if first.tok.Kind == Ident {
		if name, n := dashedName(items, i); n > 1 {
			parts = append(parts, pathPart{name: name, it: first})
			j = i + n
		}
	}
	if len(parts) == 0 {
		parts = e.appendParts(parts, first)
		j = i + 1
	}
	for j+1 < len(items) && items[j].isPunct(".") && !items[j+1].sp {
		nx := items[j+1]
		if nx.synthetic() || nx.group || (nx.tok.Kind != Ident && nx.tok.Kind != QuotedIdent) {
			break
		}
		parts = e.appendParts(parts, nx)
		last = nx
		j += 2
	}
	// t.* stays a path with a star.
	star := false
	if j+1 < len(items) && items[j].isPunct(".") && items[j+1].isPunct("*") {
		star = true
		j += 2
	}
	if len(parts) == 1 && !star && first.tok.Kind == Ident {
		return 0, nil
	}
	// The item and its path in one allocation.
	n := &struct {
		item
		pathNode
	}{item: item{tok: first.tok, nl: first.nl, sp: first.sp}}
	node := &n.item
	node.path = &n.pathNode
	node.path.parts = make([]string, len(parts))
	for k, p := range parts {
		node.path.parts[k] = p.name
	}
	node.path.alias = rangeVarName(last, parts[len(parts)-1].name)
	node.path.end = items[j-1].end()
	node.path.table = len(parts) >= 3 && strings.EqualFold(parts[0].name, Project)
	node.path.out = e.resolvePath(first, parts, node.path.parts)
	if star {
		node.path.out += ".*"
	}
	return j - i, node
}

// rangeVarName is the range variable BigQuery makes of an unaliased FROM
// path whose last identifier is last (and last path component name): the
// last identifier (query syntax reference, implicit aliases). One
// backticked identifier holding a whole dotted path (`project.dataset.age`)
// is one identifier, so its alias is the whole text, which no name in the
// query can match: BigQuery rejects icustays.stay_id after an unaliased
// `physionet-data.mimiciv_3_1_icu.icustays` ("Unrecognized name:
// icustays") and reads a bare age after `….age` as the column.
func rangeVarName(last *item, name string) string {
	if last.tok.Kind == QuotedIdent {
		if v, err := last.tok.Value(); err == nil && strings.Contains(v, ".") {
			return v
		}
	}
	return name
}

// dashedName joins ident-ident-ident with no spaces when it is followed by a
// dot, as in physionet-data.mimiciv_3_1_hosp.patients.
func dashedName(items []*item, i int) (string, int) {
	name := items[i].tok.Text
	j := i + 1
	for j+1 < len(items) && items[j].isPunct("-") && !items[j].sp && !items[j+1].sp &&
		(items[j+1].tok.Kind == Ident || items[j+1].tok.Kind == Number) && !items[j+1].synthetic() && !items[j+1].group {
		name += "-" + items[j+1].tok.Text
		j += 2
	}
	if j == i+1 || !at(items, j).isPunct(".") {
		return "", 0
	}
	return name, j - i
}

// appendParts appends the path parts of it: a backticked identifier split
// on dots (BigQuery treats `a.b.c` as a path), an unquoted one whole.
func (e *emitter) appendParts(parts []pathPart, it *item) []pathPart {
	if it.tok.Kind != QuotedIdent {
		return append(parts, pathPart{name: it.tok.Text, it: it})
	}
	for _, s := range strings.Split(e.identValue(it), ".") {
		parts = append(parts, pathPart{name: s, quoted: true, it: it})
	}
	return parts
}

// Datasets of the MIMIC-IV project and the local schema each maps to.
var mimicDatasets = map[string]string{
	"mimiciv_3_1_hosp": "mimiciv_3_1_hosp", "mimiciv_3_1_icu": "mimiciv_3_1_icu",
	"mimiciv_3_1_derived": "mimiciv_3_1_derived",
	"mimiciv_hosp":        "mimiciv_3_1_hosp", "mimiciv_icu": "mimiciv_3_1_icu",
	"mimiciv_derived": "mimiciv_3_1_derived",
}

// otherDatasets are datasets of physionet-data that the embedded database
// does not hold (queries on them are unsupported, not wrong).
var otherDatasets = wordSetLower(`mimiciv_ed mimiciv_note mimiciv_cxr mimiciv_3_1_ed mimiciv_3_1_note
	mimiciii_clinical mimiciii_derived mimiciii_notes eicu_crd eicu_crd_derived mimic_core mimic_hosp
	mimic_icu mimic_derived mimic_ed mimic_note`)

func wordSetLower(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Project is the BigQuery project holding MIMIC-IV.
const Project = "physionet-data"

// resolvePath renders a path: MIMIC table references become
// "schema"."table"; other paths (alias.column, struct.field) keep their
// parts.
func (e *emitter) resolvePath(first *item, parts []pathPart, names []string) string {
	switch {
	// A dashed first name is a project only in a path of several names
	// that does not start with a range variable: one backticked identifier
	// may hold any character (lexical structure reference, quoted
	// identifiers), so `a-b` alone is a column, alias or CTE name.
	case strings.EqualFold(names[0], Project) ||
		(len(names) > 1 && strings.Contains(names[0], "-") && e.aliases[strings.ToLower(names[0])] == ""):
		if names[0] != Project {
			e.invalid(first, "Not found: Project %s (the embedded engine holds only %s)", names[0], Project)
			return ""
		}
		if len(names) < 3 {
			e.invalid(first, "Syntax error: table name %s is missing a dataset", strings.Join(names, "."))
			return ""
		}
		return e.tableRef(first, names[1], names[2], names[3:])
	case mimicDatasets[names[0]] != "" && len(names) >= 2 && e.aliases[strings.ToLower(names[0])] == "":
		// BigQuery resolves dataset.table in the job's own project, where
		// MIMIC does not live.
		e.invalid(first, "Not found: Dataset %s was not found in the query's default project; qualify it as `%s.%s.%s`",
			names[0], Project, names[0], names[1])
		return ""
	}
	var b strings.Builder
	for k, p := range parts {
		if k > 0 {
			b.WriteByte('.')
		}
		if p.quoted {
			b.WriteString(quoteIdent(p.name))
		} else {
			b.WriteString(nameText(p.name))
		}
	}
	return b.String()
}

// tableRef renders physionet-data.<dataset>.<table>[.<field>…].
func (e *emitter) tableRef(first *item, dataset, table string, rest []string) string {
	schema, ok := mimicDatasets[dataset]
	if !ok {
		if otherDatasets[dataset] {
			e.unsupported(first, "dataset %s.%s is not in the embedded database", Project, dataset)
		} else {
			// BigQuery answers Access Denied for names physionet-data
			// does not have; dataset names are case-sensitive.
			e.invalid(first, "Access Denied: Table %s:%s.%s: no such dataset in %s", Project, dataset, table, Project)
		}
		return ""
	}
	if e.cat != nil {
		if !e.cat.HasSchema(schema) {
			e.unsupported(first, "dataset %s.%s is not in the embedded database", Project, dataset)
		} else if !e.cat.HasTable(schema, table) {
			if schema == "mimiciv_3_1_derived" && strings.ToLower(table) == table {
				e.unsupported(first, "table %s.%s.%s is not in the embedded database", Project, dataset, table)
			} else {
				e.invalid(first, "Not found: Table %s:%s.%s was not found in location US", Project, dataset, table)
			}
		}
	}
	out := quoteIdent(schema) + "." + quoteIdent(table)
	for _, r := range rest {
		out += "." + quoteIdent(r)
	}
	return out
}

// endsOperand reports whether an item can end an operand, so that a
// following [ is a subscript and a following - is binary.
func endsOperand(it *item) bool {
	if it == nil || isDistinctFromOp(it) {
		return false
	}
	if it.synthetic() {
		return true
	}
	if it.group {
		return true
	}
	switch it.tok.Kind {
	case Ident:
		up := it.upper()
		return !bqReserved[up] || up == "END" || up == "NULL" || up == "TRUE" || up == "FALSE"
	case QuotedIdent, String, Bytes, Number, Param:
		return true
	}
	return false
}

// primaryStart returns the index where the operand ending at items[end]
// starts: a call's name before its argument group, the call before an
// OVER (…) window, CASE … END, a typed literal.
func primaryStart(items []*item, end int) int {
	it := items[end]
	switch {
	case it.isGroup("("):
		if end >= 2 && (at(items, end-1).is("OVER")) {
			return primaryStart(items, end-2)
		}
		if p := at(items, end-1); p != nil && (p.path != nil || (p.tok.Kind == Ident && !p.synthetic() && !p.group &&
			(!bqReserved[p.upper()] || callableReserved[p.upper()]))) {
			return end - 1
		}
		return end
	case it.isGroup("["):
		// ARRAY[…] literal.
		if at(items, end-1).is("ARRAY") {
			return end - 1
		}
		// ARRAY<T>[…] literal.
		if k := typedArrayStart(items, end-1); k >= 0 {
			return k
		}
		return end
	case it.is("END"):
		depth := 0
		for k := end; k >= 0; k-- {
			switch {
			case items[k].is("END"):
				depth++
			case items[k].is("CASE"):
				depth--
				if depth == 0 {
					return k
				}
			}
		}
		return end
	case it.tok.Kind == Ident && !it.synthetic() && end >= 2 && at(items, end-1).is("OVER"):
		// f(…) OVER named_window
		return primaryStart(items, end-2)
	case it.tok.Kind == String && !it.synthetic():
		if p := at(items, end-1); p != nil && p.tok.Kind == Ident && !p.synthetic() {
			switch p.upper() {
			case "DATE", "DATETIME", "TIMESTAMP", "TIME", "NUMERIC", "BIGNUMERIC":
				return end - 1
			}
		}
	}
	return end
}

// primaryEnd returns the index of the last item of the operand starting at
// items[start], or -1 when no operand starts there.
func primaryEnd(items []*item, start int) int {
	it := at(items, start)
	if it == nil {
		return -1
	}
	end := start
	switch {
	case it.synthetic() || it.group:
		if it.path != nil && at(items, start+1).isGroup("(") {
			end = start + 1
		}
	case it.is("CASE"):
		depth := 0
		for k := start; k < len(items); k++ {
			switch {
			case items[k].is("CASE"):
				depth++
			case items[k].is("END"):
				depth--
				if depth == 0 {
					return k
				}
			}
		}
		return -1
	case it.tok.Kind == Ident:
		up := it.upper()
		next := at(items, start+1)
		switch {
		case next.isGroup("(") && (!bqReserved[up] || callableReserved[up]):
			end = start + 1
		case (up == "DATE" || up == "DATETIME" || up == "TIMESTAMP" || up == "TIME" || up == "NUMERIC" ||
			up == "BIGNUMERIC") && next != nil && next.tok.Kind == String && !next.synthetic():
			return start + 1
		case up == "ARRAY" && next.isGroup("["):
			return start + 1
		case bqReserved[up] && up != "NULL" && up != "TRUE" && up != "FALSE":
			return -1
		}
	case it.tok.Kind == Punct:
		return -1
	}
	// A window after a call.
	if at(items, end+1).is("OVER") {
		if w := at(items, end+2); w != nil && (w.group || w.tok.Kind == Ident) {
			end += 2
		}
	}
	return end
}

// subscripts turns operand[…] into subscript nodes.
func (e *emitter) subscripts(items []*item) []*item {
	out := make([]*item, 0, len(items))
	for _, it := range items {
		if it.isGroup("[") && len(out) > 0 && endsOperand(out[len(out)-1]) && !out[len(out)-1].is("ARRAY") &&
			!isTypeClose(out) {
			start := primaryStart(out, len(out)-1)
			base := append([]*item(nil), out[start:]...)
			node := &item{tok: base[0].tok, nl: base[0].nl, sp: base[0].sp, sub: &subNode{base: base, index: it}}
			out = append(out[:start], node)
			continue
		}
		out = append(out, it)
	}
	return out
}

// typedArrayStart returns the index of ARRAY in ARRAY<…> when items[closeAt]
// is the > (or >>) closing its type, or -1.
func typedArrayStart(items []*item, closeAt int) int {
	depth := 0
	for k := closeAt; k >= 0; k-- {
		switch {
		case items[k].isPunct(">"):
			depth++
		case items[k].isPunct(">>"):
			depth += 2
		case items[k].isPunct("<"):
			depth--
			if depth == 0 {
				if at(items, k-1).is("ARRAY") {
					return k - 1
				}
				return -1
			}
		}
		if depth <= 0 {
			return -1
		}
	}
	return -1
}

// isTypeClose reports whether out ends with ARRAY<…> (a typed array
// literal, not an operand).
func isTypeClose(out []*item) bool {
	return len(out) > 0 && out[len(out)-1].isPunct(">")
}

// divisions turns a / b into division nodes, with BigQuery's precedence:
// / binds like * and ||, tighter than + and -, looser than unary minus.
func (e *emitter) divisions(items []*item) []*item {
	has := false
	for _, it := range items {
		if it.isPunct("/") {
			has = true
			break
		}
	}
	if !has {
		return items
	}
	out := append([]*item(nil), items...)
	for i := 0; i < len(out); i++ {
		if !out[i].isPunct("/") || i == 0 {
			continue
		}
		// Left operand: a chain of primaries joined by * / ||, each with
		// optional unary signs.
		start := -1
		k := i - 1
		for k >= 0 && endsOperand(out[k]) {
			s := primaryStart(out, k)
			for s > 0 && isUnary(out, s-1) {
				s--
			}
			start = s
			if s >= 2 && (out[s-1].isPunct("*") || out[s-1].isPunct("||")) && endsOperand(out[s-2]) {
				k = s - 2
				continue
			}
			break
		}
		if start < 0 {
			continue
		}
		if start >= 2 && isIntervalPart(out[start].upper()) && out[start-2].is("INTERVAL") {
			// INTERVAL '2' HOUR / 4 divides the interval, not the part.
			start -= 2
		}
		// Right operand: unary signs then one primary.
		r := i + 1
		for r < len(out) && (out[r].isPunct("-") || out[r].isPunct("+") || out[r].isPunct("~")) {
			r++
		}
		end := primaryEnd(out, r)
		if end < 0 {
			continue
		}
		node := &item{tok: out[start].tok, nl: out[start].nl, sp: out[start].sp, div: &divNode{
			left:  append([]*item(nil), out[start:i]...),
			right: append([]*item(nil), out[i+1:end+1]...),
			op:    out[i],
		}}
		// The left operand's first item keeps its layout on the node.
		node.div.left[0] = stripLead(node.div.left[0])
		node.div.right[0] = stripLead(node.div.right[0])
		rest := append([]*item{node}, out[end+1:]...)
		out = append(out[:start], rest...)
		i = start
	}
	return out
}

// isUnary reports whether the sign at items[k] is a unary operator.
func isUnary(items []*item, k int) bool {
	it := items[k]
	if !(it.isPunct("-") || it.isPunct("+") || it.isPunct("~")) {
		return false
	}
	return k == 0 || !endsOperand(items[k-1])
}

func stripLead(it *item) *item {
	c := *it
	c.nl, c.sp = false, false
	return &c
}

// isDistinctFromOp reports whether it is the operator item distinctFrom
// made: an operator, not an operand ([1] after it is an array literal,
// not a subscript).
func isDistinctFromOp(it *item) bool {
	return it.isRaw && (it.raw == "IS DISTINCT FROM" || it.raw == "IS NOT DISTINCT FROM")
}

// distinctFrom makes each IS [NOT] DISTINCT FROM one item, at every level,
// before any rule looks for FROM: rules end a select list at the first
// FROM, and would otherwise name the column inside the operator
// ("1 IS DISTINCT AS f0_ FROM 2").
func distinctFrom(items []*item) []*item {
	out := make([]*item, 0, len(items))
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.group {
			it.kids = distinctFrom(it.kids)
		}
		if it.is("IS") {
			j := i + 1
			not := at(items, j).is("NOT")
			if not {
				j++
			}
			if at(items, j).is("DISTINCT") && at(items, j+1).is("FROM") {
				op := "IS DISTINCT FROM"
				if not {
					op = "IS NOT DISTINCT FROM"
				}
				out = append(out, &item{tok: it.tok, nl: it.nl, sp: it.sp, isRaw: true, raw: op})
				i = j + 1
				continue
			}
		}
		out = append(out, it)
	}
	return out
}
