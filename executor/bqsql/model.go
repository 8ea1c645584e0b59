package bqsql

import (
	"fmt"
	"strings"

	"github.com/sqlc-dev/zetajones/ast"
	"github.com/sqlc-dev/zetajones/parser"
)

// The statement model: the query parsed once into GoogleSQL's syntax tree
// (github.com/sqlc-dev/zetajones, a pure-Go port of the GoogleSQL reference
// parser, chosen over memefish and a parser of our own: see doc.go), with
// its names resolved and its expressions typed. Names resolve as BigQuery
// resolves them: a FROM item's range variable before a column of the same
// name, the innermost query before an outer one (a correlated reference),
// CTEs visible to the CTEs after them and to the query. Types are inferred
// upward: catalogue columns, literals, CASTs, then every operator and
// function from its arguments' types (modeltypes.go), through CTEs,
// subqueries, UNNEST and set operations.
//
// The rewrite rules ask the model for the type of the expression they
// translate (model.typeAt, by the source span of its items); where the
// model cannot tell (it could not parse the statement, or a type depends
// on something it does not follow) they fall back to what they knew before.

// maxModelBytes bounds the statements the model parses. The parser is not
// cancellable and recurses on nesting; the translator's own tree builder
// bounds nesting first, and statements this large are translated without
// a model.
const maxModelBytes = 256 << 10

// span is a node's source byte range [start, end).
type span struct{ start, end int }

// model is the statement model of one translation.
type model struct {
	src   string
	cat   Catalog
	types map[span]string // expression span -> BigQuery type
	// tables are the catalogue tables read so far, each built once (a
	// query often reads a table in several blocks).
	tables map[[2]string]*relation
	// dateDiffs are the differences of two DATEs, by the position where
	// each starts (see dateDifference).
	dateDiffs map[int]dateDifference
	// likePatterns are the patterns of LIKE that are not a string
	// literal, by the position where each starts: where each ends and its
	// type ("" when unknown).
	likePatterns map[int]likePattern
	// starKeys are the query ORDER BY keys that are a bare name of an
	// output column a v.* made, by position: the range variable v (see
	// orderStarAt). starNames are such names inside an ORDER BY key that
	// is an expression (see starNameAt).
	starKeys, starNames map[int]string
	// numericLits are the FLOAT64 literals of a set operation column that
	// BigQuery coerces to NUMERIC or BIGNUMERIC, by position: that type
	// (see noteNumericLiterals).
	numericLits map[int]string
	// noStars counts the date part arguments being typed (DATE_TRUNC(x,
	// MONTH)): names there are no columns.
	noStars int
	// issues are what typing found that BigQuery rejects or the engine
	// cannot answer as BigQuery does, in the order found.
	issues []modelIssue
}

// modelIssue is an error the translation reports at a source position.
type modelIssue struct {
	pos  int
	kind ErrorKind
	msg  string
}

// firstIssue is the first issue the model found, if any.
func (m *model) firstIssue() (modelIssue, bool) {
	if m == nil || len(m.issues) == 0 {
		return modelIssue{}, false
	}
	return m.issues[0], true
}

// checkSetOpBranch compares set operation q's branch b, typed r, with its
// first branch, column by column (BigQuery matches a set operation's
// columns by position, query syntax reference): it notes a DATETIME beside
// a TIMESTAMP, which BigQuery rejects (the two have no common supertype;
// DuckDB coerces one to the other and runs), and STRUCTs whose field names
// differ (BigQuery keeps the first branch's names and matches fields by
// position; DuckDB unions STRUCTs by name, and its rows differ). It reports
// whether it noted one.
func (m *model) checkSetOpBranch(q *ast.SetOperation, b int, first, r *relation) bool {
	if !first.ordered || !r.ordered {
		return false // positions unknown
	}
	pos, op := q.Inputs[b].Pos(), func() string { return setOpName(q, b-1) }
	n := min(len(first.cols), len(r.cols))
	for k := range n {
		x, y := baseType(first.cols[k].typ), baseType(r.cols[k].typ)
		if (x == "DATETIME" && y == "TIMESTAMP") || (x == "TIMESTAMP" && y == "DATETIME") {
			m.issues = append(m.issues, modelIssue{pos, KindInvalid, fmt.Sprintf("Column %d in %s has incompatible types: %s, %s", k+1, op(), x, y)})
			return true
		}
	}
	for k := range n {
		x, xok := structFieldNames(first.cols[k].typ)
		y, yok := structFieldNames(r.cols[k].typ)
		if xok && yok && x != y {
			m.issues = append(m.issues, modelIssue{pos, KindUnsupported, op() + " of STRUCTs whose field names differ between branches is not supported"})
			return true
		}
	}
	return false
}

// structFieldNames are the lower-case field names of a STRUCT type, "?"
// for an anonymous field, joined by commas.
func structFieldNames(t string) (string, bool) {
	fields, ok := typeFields(t)
	if !ok {
		return "", false
	}
	names := make([]string, len(fields))
	for k, f := range fields {
		names[k] = strings.ToLower(f.name)
		if f.name == "" {
			names[k] = "?"
		}
	}
	return strings.Join(names, ","), true
}

// setOpName is the k-th operator of a set operation as written in
// BigQuery's messages (UNION ALL, EXCEPT DISTINCT).
func setOpName(q *ast.SetOperation, k int) string {
	if q.Metadata == nil || k >= len(q.Metadata.Entries) {
		return "set operation"
	}
	md := q.Metadata.Entries[k]
	op := ""
	if md.OpType != nil {
		op = md.OpType.Op
	}
	if md.AllOrDistinct != nil {
		op += " " + md.AllOrDistinct.Value
	}
	return strings.TrimSpace(op)
}

// dateDifference is a - b where a and b are DATEs: BigQuery's result is an
// INTERVAL of days (operators reference, date arithmetics), DuckDB's an
// integer, so the emitter rewrites it (emitter.dateMinusDate). The spans are
// the parser's, which keep an operand's brackets out of the operand and in
// the difference.
type dateDifference struct {
	end        int // just past the difference
	leftEnd    int // just past a
	rightStart int // where b starts
}

func (m *model) noteDateDiff(e *ast.BinaryExpression) {
	if m.dateDiffs == nil {
		m.dateDiffs = map[int]dateDifference{}
	}
	// No two differences of DATEs start at one position: the left operand
	// of an enclosing one would be an INTERVAL.
	m.dateDiffs[e.Pos()] = dateDifference{end: e.End(), leftEnd: e.Left.End(), rightStart: e.Right.Pos()}
}

// dateDiffAt is the difference of two DATEs that starts at pos, if any.
func (m *model) dateDiffAt(pos int) (dateDifference, bool) {
	if m == nil {
		return dateDifference{}, false
	}
	d, ok := m.dateDiffs[pos]
	return d, ok
}

// likePattern is a noted LIKE pattern: where it ends, and its type.
type likePattern struct {
	end int
	typ string // "" when unknown
}

// noteLikePattern notes the pattern of x [NOT] LIKE p that is not a string
// literal, typed typ ("" when unknown): BigQuery escapes with the backslash
// in every pattern, STRING and BYTES, and refuses one that ends in a lone
// backslash, which the emitter must then check as the query runs
// (emitter.like), whatever the model knows of its type. The span is the
// parser's (LIKE binds looser than ||, so 'a' || y is the whole pattern).
func (m *model) noteLikePattern(p ast.Node, typ string) {
	if m.likePatterns == nil {
		m.likePatterns = map[int]likePattern{}
	}
	m.likePatterns[p.Pos()] = likePattern{end: p.End(), typ: typ}
}

// likePatternAt is the noted LIKE pattern that starts at pos.
func (m *model) likePatternAt(pos int) (likePattern, bool) {
	if m == nil {
		return likePattern{}, false
	}
	lp, ok := m.likePatterns[pos]
	return lp, ok
}

// relation is what a FROM item or query yields: named, typed columns in
// order, or the elements of a value table (UNNEST of an array).
type relation struct {
	cols []column
	// complete: cols are all the columns (a table the catalogue lacks, or
	// a star over one, has columns nobody knows).
	complete bool
	// ordered: cols are in output order (a catalogue table's are not: the
	// catalogue keeps no order).
	ordered bool
}

type column struct {
	name string // as written (names compare without case); "" when anonymous
	typ  string // "" when unknown
	// star is the range variable, as written, of the v.* that output the
	// column ("" otherwise).
	star string
}

func (r *relation) column(name string) (column, int) {
	n := 0
	var found column
	for _, c := range r.cols {
		if c.name != "" && strings.EqualFold(c.name, name) {
			found = c
			n++
		}
	}
	return found, n
}

// rangeVar is a FROM item's name in a scope.
type rangeVar struct {
	name string // lower-case
	rel  *relation
	// value is the element type of a value table (UNNEST(…) AS x): the
	// name is then the element itself, not a row of columns.
	value string
	// isValue marks a value table.
	isValue bool
}

// scope is one query block's names: its FROM items, the CTEs visible to
// it, and the block it is nested in.
type scope struct {
	parent *scope
	vars   []rangeVar
	ctes   map[string]*relation
	// aliases are the select list's output names, for ORDER BY (and, as
	// BigQuery allows, GROUP BY and HAVING).
	aliases map[string]string
	// stars, in a query's ORDER BY scope, are the output names a v.* made
	// (each the only output column of its name): name -> v.
	stars map[string]string
}

func (s *scope) cte(name string) *relation {
	for ; s != nil; s = s.parent {
		if r, ok := s.ctes[name]; ok {
			return r
		}
	}
	return nil
}

// buildModel parses sql and types it. It returns nil when sql is too large
// or does not parse as GoogleSQL, and never fails otherwise: what it cannot
// type stays unknown.
func buildModel(sql string, cat Catalog) (m *model) {
	if len(sql) > maxModelBytes {
		return nil
	}
	defer func() {
		// A construct the model does not anticipate must not fail the
		// translation: without a model the rules fall back.
		if recover() != nil {
			m = nil
		}
	}()
	script, err := parser.ParseScript(sql)
	if err != nil || script.Statements == nil {
		return nil
	}
	// About one typed expression per 17 bytes of the gold queries: the
	// map sized once rather than grown.
	m = &model{src: sql, cat: cat, types: make(map[span]string, len(sql)/16)}
	for _, st := range script.Statements.Statements {
		if q, ok := st.(*ast.QueryStatement); ok {
			m.query(q.Query, nil)
		}
	}
	return m
}

// typeAt returns the type of the expression spanning [start, end), if the
// model typed one there. Brackets around an expression are not part of its
// span, so they are tried off too.
func (m *model) typeAt(start, end int) (string, bool) {
	if m == nil {
		return "", false
	}
	for start < end {
		if t, ok := m.types[span{start, end}]; ok {
			return t, t != ""
		}
		// (expr): strip one pair of brackets and surrounding space.
		s, e := start, end
		for s < e && isSpaceByte(m.src[s]) {
			s++
		}
		for e > s && isSpaceByte(m.src[e-1]) {
			e--
		}
		if e-s < 2 || m.src[s] != '(' || m.src[e-1] != ')' {
			return "", false
		}
		start, end = s+1, e-1
		for start < end && isSpaceByte(m.src[start]) {
			start++
		}
		for end > start && isSpaceByte(m.src[end-1]) {
			end--
		}
	}
	return "", false
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// record notes n's type and returns it.
func (m *model) record(n ast.Node, t string) string {
	m.types[span{n.Pos(), n.End()}] = t
	return t
}

// query types a query (WITH, set operations, ORDER BY) in the scope of
// the query it is nested in, and returns its output relation.
func (m *model) query(q *ast.Query, outer *scope) *relation {
	if q == nil {
		return &relation{}
	}
	s := &scope{parent: outer}
	if q.WithClause != nil {
		s.ctes = map[string]*relation{}
		for _, e := range q.WithClause.Entries {
			if e.AliasedQuery == nil || e.AliasedQuery.Identifier == nil {
				continue
			}
			// A CTE sees the CTEs before it (and, recursive, itself: its
			// columns are then those of its first branch).
			r := m.query(e.AliasedQuery.Query, s)
			s.ctes[strings.ToLower(e.AliasedQuery.Identifier.Name)] = r
		}
	}
	rel, body := m.queryExpr(q.QueryExpr, s)
	if q.OrderBy != nil {
		// ORDER BY sees the select list's names, then the FROM items (of
		// a set operation: its output names only).
		os := &scope{parent: s, aliases: aliasesOf(rel)}
		if body != nil {
			os = &scope{parent: body.parent, aliases: body.aliases, stars: starsOf(rel)}
		}
		for _, it := range q.OrderBy.Items {
			m.expr(it.Expr, os)
			m.noteStarKey(it.Expr)
		}
	}
	if q.Limit != nil {
		for _, c := range q.Limit.Children() {
			m.expr(c, s)
		}
	}
	return rel
}

// BigQuery resolves a name in ORDER BY, alone or inside an expression,
// among the select list's output names before the FROM items' columns
// (query syntax reference, ORDER BY clause; the same order as
// resolveOutputAliases follows). A name of an output column a v.* made
// means v's column, but DuckDB resolves a name inside an expression among
// the FROM items, where the column may be ambiguous (SELECT a.* FROM a
// JOIN b ON a.k = b.k ORDER BY k + 1 names a's k; DuckDB finds a.k and
// b.k): noteStarName notes each such name (resolve calls it in the ORDER
// BY scope, not in a subquery there) for the emitter to qualify with v.

// noteStarName notes the name at pos, which resolves to the output column
// of v.* in an ORDER BY (see above).
func (m *model) noteStarName(pos int, v string) {
	if m.noStars > 0 {
		return
	}
	if m.starNames == nil {
		m.starNames = map[int]string{}
	}
	m.starNames[pos] = v
}

// noteStarKey moves an ORDER BY key that is a bare name of a v.* output
// column from starNames to starKeys: written alone DuckDB resolves it
// among the output columns as BigQuery does, and only a rule that writes
// the key inside an expression (nanorder.go) qualifies it.
func (m *model) noteStarKey(e ast.Node) {
	p, ok := e.(*ast.PathExpression)
	if !ok || len(p.Names) != 1 {
		return
	}
	if v, ok := m.starNames[e.Pos()]; ok {
		delete(m.starNames, e.Pos())
		if m.starKeys == nil {
			m.starKeys = map[int]string{}
		}
		m.starKeys[e.Pos()] = v
	}
}

// starNameAt is the range variable v when the name at pos is inside an
// ORDER BY expression and names the output column of v.* (see above).
func (m *model) starNameAt(pos int) (string, bool) {
	if m == nil {
		return "", false
	}
	v, ok := m.starNames[pos]
	return v, ok
}

// starsOf maps the output names a v.* made, each the only output column
// of its name, to v.
func starsOf(r *relation) map[string]string {
	var out map[string]string
	for _, c := range r.cols {
		if c.star == "" {
			continue
		}
		if _, n := r.column(c.name); n == 1 {
			if out == nil {
				out = map[string]string{}
			}
			out[strings.ToLower(c.name)] = c.star
		}
	}
	return out
}

// orderStarAt is the range variable of the v.* whose output column the
// ORDER BY key at pos names, if it is one (see noteStarKey).
func (m *model) orderStarAt(pos int) (string, bool) {
	if m == nil {
		return "", false
	}
	v, ok := m.starKeys[pos]
	return v, ok
}

func aliasesOf(r *relation) map[string]string {
	a := map[string]string{}
	for _, c := range r.cols {
		if c.name != "" {
			k := strings.ToLower(c.name)
			if _, dup := a[k]; dup {
				a[k] = ""
				continue
			}
			a[k] = c.typ
		}
	}
	return a
}

// queryExpr types a SELECT, a set operation or a bracketed query. For a
// SELECT it also returns the scope its ORDER BY resolves in.
func (m *model) queryExpr(n ast.Node, s *scope) (*relation, *scope) {
	switch q := n.(type) {
	case *ast.Select:
		return m.selectBlock(q, s)
	case *ast.Query:
		return m.query(q, s), nil
	case *ast.SetOperation:
		var out, first *relation
		checked := false
		for b, in := range q.Inputs {
			r, _ := m.queryExpr(in, s)
			if out == nil {
				first = r
				out = &relation{cols: append([]column(nil), r.cols...), ordered: r.ordered, complete: r.complete}
				continue
			}
			if !checked {
				checked = m.checkSetOpBranch(q, b, first, r)
			}
			// Names from the first branch; types their common supertype,
			// position by position.
			if !r.ordered || !out.ordered || len(r.cols) != len(out.cols) {
				for k := range out.cols {
					out.cols[k].typ = ""
				}
				continue
			}
			for k := range out.cols {
				out.cols[k].typ = supertype(out.cols[k].typ, r.cols[k].typ)
			}
		}
		if out == nil {
			out = &relation{}
		}
		m.noteNumericLiterals(q)
		return out, nil
	case *ast.FromQuery:
		sc := &scope{parent: s}
		if q.From != nil {
			m.from(q.From.TableExpression, sc, s)
		}
		return starRelation(sc), sc
	}
	return &relation{}, nil
}

// noteNumericLiterals notes, in each column of set operation q, the FLOAT64
// literals BigQuery coerces to NUMERIC (BIGNUMERIC): where they meet a
// NUMERIC (BIGNUMERIC) value and every other value is INT64, NUMERIC,
// BIGNUMERIC, NULL or a literal (see numericlit.go; the branches are
// typed). Only a set operation of SELECTs whose lists have no star lines
// its columns up by position here.
func (m *model) noteNumericLiterals(q *ast.SetOperation) {
	var lists [][]*ast.SelectColumn
	for _, in := range q.Inputs {
		sel, ok := in.(*ast.Select)
		if !ok || sel.SelectList == nil || sel.SelectAs != nil {
			return
		}
		for _, c := range sel.SelectList.Columns {
			switch c.Expr.(type) {
			case *ast.Star, *ast.StarWithModifiers, *ast.DotStar, *ast.DotStarWithModifiers:
				return
			}
		}
		if len(lists) > 0 && len(sel.SelectList.Columns) != len(lists[0]) {
			return
		}
		lists = append(lists, sel.SelectList.Columns)
	}
	if len(lists) == 0 {
		return
	}
column:
	for k := range lists[0] {
		target := ""
		var lits []ast.Node
		for _, l := range lists {
			x := l[k].Expr
			if u, ok := x.(*ast.UnaryExpression); ok && (u.Op == "-" || u.Op == "+") {
				if _, lit := u.Operand.(*ast.FloatLiteral); lit {
					x = u.Operand
				}
			}
			switch x.(type) {
			case *ast.NullLiteral:
				continue
			case *ast.FloatLiteral:
				lits = append(lits, x)
				continue
			}
			var ok bool
			if target, ok = numericTarget(target, m.types[span{x.Pos(), x.End()}]); !ok {
				continue column
			}
		}
		if target == "" {
			continue
		}
		for _, x := range lits {
			if m.numericLits == nil {
				m.numericLits = map[int]string{}
			}
			m.numericLits[x.Pos()] = target
		}
	}
}

// numericLitAt is the type BigQuery gives the FLOAT64 literal at pos, a
// set operation column's NUMERIC or BIGNUMERIC, if it coerces it.
func (m *model) numericLitAt(pos int) (string, bool) {
	if m == nil {
		return "", false
	}
	t, ok := m.numericLits[pos]
	return t, ok
}

// selectBlock types one SELECT and returns its output and the scope of its
// ORDER BY.
func (m *model) selectBlock(sel *ast.Select, outer *scope) (*relation, *scope) {
	s := &scope{parent: outer}
	if sel.From != nil {
		m.from(sel.From.TableExpression, s, outer)
	}
	if sel.Where != nil {
		m.expr(sel.Where.Expr, s)
	}
	out := &relation{ordered: true, complete: true}
	if sel.SelectList != nil {
		for _, c := range sel.SelectList.Columns {
			out.cols = append(out.cols, m.selectColumn(c, s, out)...)
		}
	}
	// GROUP BY, HAVING, QUALIFY and ORDER BY see the select list's names
	// before the FROM items' (query syntax reference).
	as := &scope{parent: s, aliases: aliasesOf(out)}
	if sel.GroupBy != nil {
		for _, g := range sel.GroupBy.Items {
			if g.Expr != nil {
				m.expr(g.Expr, as)
			}
		}
	}
	if sel.Having != nil {
		m.expr(sel.Having.Expr, as)
	}
	if sel.Qualify != nil {
		m.expr(sel.Qualify.Expr, as)
	}
	if sel.SelectAs != nil {
		// SELECT AS STRUCT / VALUE: one value per row.
		if len(out.cols) == 1 {
			return &relation{cols: []column{{typ: out.cols[0].typ}}, ordered: true, complete: true}, as
		}
		return &relation{cols: []column{{typ: structType(out.cols)}}, ordered: true, complete: true}, as
	}
	return out, as
}

// selectColumn types one select-list item and returns the columns it
// outputs (several for a star).
func (m *model) selectColumn(c *ast.SelectColumn, s *scope, sofar *relation) []column {
	switch e := c.Expr.(type) {
	case *ast.Star, *ast.StarWithModifiers:
		r := starRelation(s)
		sofar.ordered = sofar.ordered && r.ordered
		sofar.complete = sofar.complete && r.complete
		return r.cols
	case *ast.DotStar:
		return m.dotStar(e.Expr, s, sofar)
	case *ast.DotStarWithModifiers:
		return m.dotStar(e.Expr, s, sofar)
	}
	t := m.expr(c.Expr, s)
	name := ""
	if c.Alias != nil && c.Alias.Identifier != nil {
		name = c.Alias.Identifier.Name
	} else {
		name = implicitName(c.Expr)
	}
	return []column{{name: name, typ: t}}
}

// dotStar expands t.* (a range variable's columns) or expr.* (a STRUCT's
// fields).
func (m *model) dotStar(e ast.Node, s *scope, sofar *relation) []column {
	if p, ok := e.(*ast.PathExpression); ok && len(p.Names) == 1 {
		name := strings.ToLower(p.Names[0].Name)
		for sc := s; sc != nil; sc = sc.parent {
			for _, v := range sc.vars {
				if v.name == name && !v.isValue {
					sofar.ordered = sofar.ordered && v.rel.ordered
					sofar.complete = sofar.complete && v.rel.complete
					cols := make([]column, len(v.rel.cols))
					for k, c := range v.rel.cols {
						c.star = p.Names[0].Name
						cols[k] = c
					}
					return cols
				}
			}
		}
	}
	t := m.expr(e, s)
	if fields, ok := typeFields(t); ok {
		return fields
	}
	sofar.ordered, sofar.complete = false, false
	return nil
}

// implicitName is the column name BigQuery gives a select item without an
// alias: the last name of a path or field access; "" otherwise.
func implicitName(n ast.Node) string {
	switch e := n.(type) {
	case *ast.PathExpression:
		if len(e.Names) > 0 {
			return e.Names[len(e.Names)-1].Name
		}
	case *ast.DotIdentifier:
		if e.Name != nil {
			return e.Name.Name
		}
	}
	return ""
}

// starRelation is what SELECT * outputs: every FROM item's columns in
// order (a value table's element, under its name).
func starRelation(s *scope) *relation {
	out := &relation{ordered: true, complete: true}
	for _, v := range s.vars {
		if v.isValue {
			out.cols = append(out.cols, column{name: v.name, typ: v.value})
			continue
		}
		out.ordered = out.ordered && v.rel.ordered
		out.complete = out.complete && v.rel.complete
		out.cols = append(out.cols, v.rel.cols...)
	}
	return out
}

// from adds the range variables of a FROM clause's table expression to s.
// outer is the scope the FROM clause's block is nested in (for correlated
// subqueries and UNNEST of an outer array).
func (m *model) from(n ast.Node, s, outer *scope) {
	switch t := n.(type) {
	case *ast.Join:
		m.from(t.Lhs, s, outer)
		m.from(t.Rhs, s, outer)
		if on, ok := t.OnOrUsingClause.(*ast.OnClause); ok {
			m.expr(on.Expr, s)
		}
	case *ast.ParenthesizedJoin:
		m.from(t.Join, s, outer)
	case *ast.TableSubquery:
		// A FROM subquery sees the CTEs and the outer queries, not the FROM
		// items beside it.
		r := m.query(t.Query, outer)
		if t.Alias != nil && t.Alias.Identifier != nil {
			s.vars = append(s.vars, rangeVar{name: strings.ToLower(t.Alias.Identifier.Name), rel: r})
		} else {
			s.vars = append(s.vars, rangeVar{rel: r})
		}
	case *ast.TablePathExpression:
		m.tablePath(t, s)
	}
}

// tablePath adds a table, CTE, UNNEST or array path FROM item.
func (m *model) tablePath(t *ast.TablePathExpression, s *scope) {
	alias := ""
	if t.Alias != nil && t.Alias.Identifier != nil {
		alias = strings.ToLower(t.Alias.Identifier.Name)
	}
	offset := func() {
		if t.Offset != nil {
			name := "offset"
			if t.Offset.Alias != nil && t.Offset.Alias.Identifier != nil {
				name = strings.ToLower(t.Offset.Alias.Identifier.Name)
			}
			s.vars = append(s.vars, rangeVar{name: name, isValue: true, value: "INT64"})
		}
	}
	if t.UnnestExpr != nil {
		elem := ""
		for _, e := range t.UnnestExpr.Expressions {
			elem = elementType(m.expr(e.Expr, s))
		}
		s.vars = append(s.vars, rangeVar{name: alias, isValue: true, value: elem})
		offset()
		return
	}
	if t.Path == nil || len(t.Path.Names) == 0 {
		return
	}
	names := make([]string, 0, len(t.Path.Names))
	for _, id := range t.Path.Names {
		names = append(names, strings.Split(id.Name, ".")...)
	}
	last := t.Path.Names[len(t.Path.Names)-1].Name
	if alias == "" {
		// The implicit alias is the last identifier: all of a backticked
		// dotted name (see rangeVarName).
		alias = strings.ToLower(last)
	}
	var rel *relation
	switch {
	case len(names) == 1 && s.cte(strings.ToLower(names[0])) != nil:
		rel = s.cte(strings.ToLower(names[0]))
	case len(names) >= 3 && strings.EqualFold(names[0], Project):
		rel = m.catalogTable(names[1], names[2])
	case len(names) >= 2:
		// An array path (t.arr) from an earlier FROM item: a value table.
		if v, ok := m.resolve(t.Path, s); ok {
			s.vars = append(s.vars, rangeVar{name: alias, isValue: true, value: elementType(v)})
			offset()
			return
		}
	}
	if rel == nil {
		rel = &relation{}
	}
	s.vars = append(s.vars, rangeVar{name: alias, rel: rel})
	offset()
}

// catalogTable is a MIMIC-IV table's columns (unordered: the catalogue
// keeps no order), or nil.
func (m *model) catalogTable(dataset, table string) *relation {
	schema, ok := mimicDatasets[dataset]
	if !ok || m.cat == nil {
		return nil
	}
	if r, ok := m.tables[[2]string{schema, table}]; ok {
		return r
	}
	cols, ok := m.cat[schema][table]
	if !ok {
		return nil
	}
	r := &relation{complete: true, cols: make([]column, 0, len(cols))}
	for name, typ := range cols {
		r.cols = append(r.cols, column{name: name, typ: typ})
	}
	if m.tables == nil {
		m.tables = map[[2]string]*relation{}
	}
	m.tables[[2]string{schema, table}] = r
	return r
}

// resolve types a path expression (a, t.a, a.field, t.a.field, or an outer
// query's column) as BigQuery resolves it.
func (m *model) resolve(p *ast.PathExpression, s *scope) (string, bool) {
	if len(p.Names) == 0 {
		return "", false
	}
	first := strings.ToLower(p.Names[0].Name)
	rest := p.Names[1:]
	for sc := s; sc != nil; sc = sc.parent {
		// A range variable first (a bare t is the row of t).
		for _, v := range sc.vars {
			if v.name == "" || v.name != first {
				continue
			}
			if v.isValue {
				return fieldPath(v.value, rest)
			}
			if len(rest) == 0 {
				// The row: a STRUCT of the columns, in order (unknown
				// where the order or the columns are).
				if !v.rel.ordered || !v.rel.complete {
					return "", false
				}
				return structType(v.rel.cols), true
			}
			c, n := v.rel.column(strings.ToLower(rest[0].Name))
			if n != 1 {
				return "", false
			}
			return fieldPath(c.typ, rest[1:])
		}
		// Then a column of exactly one FROM item.
		found, n := column{}, 0
		for _, v := range sc.vars {
			if v.isValue {
				continue
			}
			if c, k := v.rel.column(first); k > 0 {
				found, n = c, n+k
			}
		}
		if n == 1 {
			return fieldPath(found.typ, rest)
		}
		if n > 1 {
			return "", false // ambiguous
		}
		// Then a select-list alias (ORDER BY, GROUP BY, HAVING).
		if t, ok := sc.aliases[first]; ok {
			if v, star := sc.stars[first]; star && sc == s {
				m.noteStarName(p.Pos(), v)
			}
			return fieldPath(t, rest)
		}
		// A FROM item whose columns are not all known may hold the name:
		// stop rather than guess an outer query's column.
		for _, v := range sc.vars {
			if !v.isValue && !v.rel.complete {
				return "", false
			}
		}
	}
	return "", false
}

// fieldPath follows STRUCT field accesses from type t.
func fieldPath(t string, names []*ast.Identifier) (string, bool) {
	for _, id := range names {
		fields, ok := typeFields(t)
		if !ok {
			return "", false
		}
		t = ""
		for _, f := range fields {
			if strings.EqualFold(f.name, id.Name) {
				t = f.typ
				break
			}
		}
		if t == "" {
			return "", false
		}
	}
	return t, t != ""
}

// modelType is the model's type for the expression items span, if it has
// one.
func (e *emitter) modelType(items []*item) (string, bool) {
	return e.model.typeOfItems(items)
}

// typeOfItems is the type of the expression items span, if the model has
// one (rules see the query as items; the model knows it by source span).
func (m *model) typeOfItems(items []*item) (string, bool) {
	if m == nil || len(items) == 0 {
		return "", false
	}
	first, last := items[0], items[len(items)-1]
	if first.isRaw || last.isRaw {
		return "", false
	}
	start, end := first.pos(), last.end()
	if start < 0 || end <= start || end > len(m.src) {
		return "", false
	}
	return m.typeAt(start, end)
}
