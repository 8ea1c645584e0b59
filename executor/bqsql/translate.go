package bqsql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Translator rewrites BigQuery Standard SQL into DuckDB SQL that runs on a
// database built with the MIMIC-IV schema names (mimiciv_3_1_hosp, …) and a
// connection on which Prelude has been executed.
type Translator struct {
	// Catalog, when set, lets the translator check table names the way
	// BigQuery does (exact case, existing tables) and reject comparisons
	// between a column and a literal of incompatible type. A nil Catalog
	// skips those checks.
	Catalog Catalog
}

// Translate rewrites sql without catalog knowledge. See Translator.
func Translate(sql string) (string, error) {
	var t Translator
	return t.Translate(sql)
}

// Translate rewrites one BigQuery statement into DuckDB SQL. It returns an
// *Error matching ErrInvalid when BigQuery would reject the statement and
// ErrUnsupported when the embedded engine cannot reproduce BigQuery's result.
func (t *Translator) Translate(sql string) (string, error) {
	out, _, err := t.translate(context.Background(), sql, false)
	return out, err
}

// TranslateChecked is Translate, also returning the DuckDB statements that
// must bind for sql to be valid BigQuery beyond the translation itself (see
// bindChecks); the engine prepares them, never runs them, before the query.
func (t *Translator) TranslateChecked(sql string) (query string, binds []string, err error) {
	return t.translate(context.Background(), sql, true)
}

// TranslateCheckedContext is TranslateChecked that stops when ctx is done:
// the engine gives translation the query's timeout, since hostile input
// can make it slow. The error then wraps ctx.Err() and is of kind
// unsupported (the engine classes it a timeout).
func (t *Translator) TranslateCheckedContext(ctx context.Context, sql string) (query string, binds []string, err error) {
	return t.translate(ctx, sql, true)
}

func (t *Translator) translate(ctx context.Context, sql string, withBinds bool) (_ string, binds []string, err error) {
	defer func() {
		// A rule that trips over input it did not anticipate must not
		// take the engine down; the fuzz test keeps this path unused.
		if r := recover(); r != nil {
			err = &Error{Kind: KindUnsupported, Msg: fmt.Sprintf("internal translator error: %v", r)}
		}
	}()
	toks, err := Tokenize(sql)
	if err != nil {
		return "", nil, err
	}
	// A procedural statement anywhere makes the whole script one the
	// engine cannot run (procedural.go); it is decided before the script is
	// split, since a block's statements hold semicolons of their own.
	stmts := statementSpans(toks)
	if err := proceduralScript(sql, toks, stmts); err != nil {
		return "", nil, err
	}
	if len(stmts) > 1 {
		return t.script(ctx, sql, stmts, withBinds)
	}
	items, err := buildTree(sql, toks)
	if err != nil {
		return "", nil, err
	}
	e := &emitter{src: sql, cat: t.Catalog, ctx: ctx, tr: t, toks: toks, withBinds: withBinds}
	// ctx is polled between passes (the emitter also polls it inside its
	// walk): nesting is bounded (maxNesting), so no one pass runs long on
	// a query of the size model replies are capped at.
	for _, p := range passes {
		if err := ctx.Err(); err != nil {
			return "", nil, interrupted(err)
		}
		items = p.run(e, items)
		if e.err != nil {
			return "", nil, e.err
		}
	}
	// Emission: each item translated once, rule by rule (one, funcs.go).
	out := e.seq(items)
	if e.err != nil {
		return "", nil, e.err
	}
	return strings.TrimSpace(out), e.binds, nil
}

// statementSpans splits a script at its top-level semicolons into the
// byte spans of its statements (a trailing semicolon ends the last one; an
// empty statement is kept, for the syntax error it is).
func statementSpans(toks []Token) [][2]int {
	var out [][2]int
	depth, start, words := 0, 0, false
	for _, t := range toks {
		if t.Kind == Punct {
			switch t.Text {
			case "(", "[":
				depth++
			case ")", "]":
				depth--
			case ";":
				if depth == 0 {
					if !words {
						// An empty statement: its semicolon alone, for
						// the syntax error.
						out = append(out, [2]int{t.Pos, t.Pos + 1})
					} else {
						out = append(out, [2]int{start, t.Pos})
					}
					start, words = t.Pos+1, false
					continue
				}
			}
		}
		if t.Kind != Space && t.Kind != Comment {
			words = true
		}
	}
	if words {
		end := 0
		if n := len(toks); n > 0 {
			end = toks[n-1].Pos + len(toks[n-1].Text)
		}
		out = append(out, [2]int{start, end})
	}
	return out
}

// script translates a multi-statement script of queries, which BigQuery
// runs statement by statement, its result the last statement's (scripting
// reference). The last statement is the query; the ones before it are
// checks the engine binds first (as the unread CTEs of bindChecks), so
// that an analysis error in any of them fails the script, as in BigQuery;
// a run-time error in an earlier statement is not seen (README). Each
// statement is translated in the script's own text with the others
// blanked, so that positions in errors are the script's.
func (t *Translator) script(ctx context.Context, sql string, stmts [][2]int, withBinds bool) (string, []string, error) {
	var query string
	var binds []string
	for k, sp := range stmts {
		if sp[1] == sp[0]+1 && sql[sp[0]] == ';' {
			return "", nil, errAt(sql, sp[0], KindInvalid, `Syntax error: Unexpected ";"`)
		}
		b := []byte(sql)
		for i := range b {
			if (i < sp[0] || i >= sp[1]) && b[i] != '\n' {
				b[i] = ' '
			}
		}
		out, more, err := t.translate(ctx, string(b), withBinds)
		if err != nil {
			return "", nil, err
		}
		binds = append(binds, more...)
		if k < len(stmts)-1 {
			binds = append(binds, out)
		} else {
			query = out
		}
	}
	return query, binds, nil
}

// reservedQualifier rejects a reserved keyword used as a qualifier (if.x,
// end.y), which BigQuery's parser refuses and DuckDB takes for a table
// alias. BigQuery reads IF, CAST and the like as a function call missing its
// bracket, the others as a keyword out of place.
func reservedQualifier(src string, toks []Token) error {
	prev := -1 // index of the previous token that is not space or comment
	for i, t := range toks {
		if t.Kind == Space || t.Kind == Comment {
			continue
		}
		if t.Kind == Punct && t.Text == "." && prev >= 0 {
			q := toks[prev]
			// A dot after a dot-less reserved word: the word qualifies.
			if q.Kind == Ident && inWordSet(bqReserved, q.Text) && !afterDot(toks, prev) {
				switch strings.ToUpper(q.Text) {
				case "IF", "CAST", "EXTRACT", "EXISTS", "ARRAY", "STRUCT", "INTERVAL", "CASE":
					return errAt(src, t.Pos, KindInvalid, `Syntax error: Expected "(" but got "."`)
				}
				return errAt(src, q.Pos, KindInvalid, "Syntax error: Unexpected keyword %s", strings.ToUpper(q.Text))
			}
		}
		prev = i
	}
	return nil
}

// afterDot reports whether toks[i] follows a dot (a field name, not a
// qualifier).
func afterDot(toks []Token, i int) bool {
	for k := i - 1; k >= 0; k-- {
		switch toks[k].Kind {
		case Space, Comment:
			continue
		case Punct:
			return toks[k].Text == "."
		}
		return false
	}
	return false
}

// emitter holds the state of one translation. Rules record the first error
// and keep going, so the code reads as straight-line rewriting.
type emitter struct {
	src   string
	cat   Catalog
	model *model // the statement model, or nil
	err   *Error
	// tr, toks and withBinds are the translation's input and options;
	// binds its checks (see bindChecks).
	tr        *Translator
	toks      []Token
	withBinds bool
	binds     []string
	// ctx bounds the translation's time; ticks counts items translated,
	// so that ctx is polled every few hundred items rather than each one.
	ctx   context.Context
	ticks int

	// Query facts collected by scan, for the type checks.
	aliases    map[string]string // lower-case table alias -> "dataset.table"
	redefined  map[string]bool   // lower-case names defined by AS somewhere
	mimicTabls []string          // MIMIC tables referenced
	// ambiguous marks aliases bound to different tables or CTEs in
	// different parts of the query: the flat alias map cannot type them.
	ambiguous map[string]bool
	cteOf     map[string]string            // lower-case alias -> lower-case CTE name
	cteCols   map[string]map[string]string // CTE -> column -> BigQuery type, where known
	cteAs     map[string]int               // output name -> select-list items of CTE bodies naming it
	// outputNames counts the names SELECT lists give with AS.
	outputNames map[string]int
	unnestTypes map[string]string // UNNEST alias -> element type of its array literal ("" where unknown)
	// inPivotAgg is set while a PIVOT aggregate is translated: DuckDB's
	// PIVOT takes exactly one aggregate call there.
	inPivotAgg bool
	// deferred marks aggregate calls in a branch of IF, CASE, COALESCE or
	// IFNULL (see markDeferredAggregates).
	deferred map[*item]bool
}

func (e *emitter) fail(it *item, kind ErrorKind, format string, args ...any) {
	if e.err != nil {
		return
	}
	pos := -1
	if it != nil {
		pos = it.pos()
	}
	e.err = errAt(e.src, pos, kind, format, args...)
}

func (e *emitter) invalid(it *item, format string, args ...any) {
	e.fail(it, KindInvalid, format, args...)
}

func (e *emitter) unsupported(it *item, format string, args ...any) {
	e.fail(it, KindUnsupported, format, args...)
}

// writer accumulates output and keeps adjacent words apart.
type writer struct{ b strings.Builder }

func (w *writer) lead(it *item) {
	switch {
	case it.nl:
		w.b.WriteByte('\n')
	case it.sp:
		w.b.WriteByte(' ')
	}
}

func (w *writer) write(s string) {
	if s == "" {
		return
	}
	cur := w.b.String()
	if n := len(cur); n > 0 && wordByte(cur[n-1]) && wordByte(s[0]) {
		w.b.WriteByte(' ')
	}
	w.b.WriteString(s)
}

func (w *writer) String() string { return w.b.String() }

func wordByte(c byte) bool {
	return isIdentPart(c) || c == '"' || c == '\'' || c == '.' || c >= 0x80
}

// seq translates a sequence of sibling items (the top level or the inside
// of one bracket group).
func (e *emitter) seq(items []*item) string {
	if e.err != nil {
		// The first error decides; stop working (some rules repeat their
		// operands, and hostile nesting must not cost more).
		return ""
	}
	items = e.restructure(items)
	e.checkSequence(items)
	e.checkClauses(items)
	e.checkJoinIn(items)
	e.checkRangeVarRefs(items)
	e.checkBoolOperands(items)
	e.checkNullOperands(items)
	var w writer
	for i := 0; i < len(items); {
		if e.ticks++; e.ticks%256 == 0 && e.ctx != nil && e.ctx.Err() != nil && e.err == nil {
			e.err = interrupted(e.ctx.Err())
		}
		i += e.one(&w, items, i)
		if w.b.Len() > maxTranslated && e.err == nil {
			e.unsupported(items[0], "the query is too complex to translate (over %d bytes of DuckDB SQL)", maxTranslated)
		}
	}
	if e.err != nil {
		return ""
	}
	return w.String()
}

// maxTranslated bounds the translated text: a few rules repeat an operand
// (GREATEST's NULL checks, REGEXP_EXTRACT), so deliberately deep nesting
// could otherwise grow the output exponentially.
const maxTranslated = 1 << 20

// text translates items with the layout of its first item dropped, for use
// inside generated function calls.
func (e *emitter) text(items []*item) string {
	return strings.TrimSpace(e.seq(items))
}

func at(items []*item, i int) *item {
	if i < 0 || i >= len(items) {
		return nil
	}
	return items[i]
}

// one translates items[i] (and possibly some following items) and returns
// how many items it consumed.
func (e *emitter) one(w *writer, items []*item, i int) int {
	if n := e.dateMinusDate(w, items, i); n > 0 {
		return n
	}
	it := items[i]
	switch {
	case it.path != nil:
		if next := at(items, i+1); next.isGroup("(") {
			return e.call(w, items, i)
		}
		w.lead(it)
		if v, ok := e.model.starNameAt(it.tok.Pos); ok && !it.path.table {
			// k.field in ORDER BY, k an output column of v.* (model.go).
			w.write(quoteIdent(v) + "." + it.path.out)
		} else {
			w.write(it.path.out)
		}
		if p := it.path; p.table && p.alias != p.parts[len(p.parts)-1] && !aliasFollows(items, i+1) {
			// DuckDB would name the table after its last component; the
			// BigQuery range variable is the whole dotted name.
			w.write(" AS " + quoteIdent(p.alias))
		}
		return 1
	case it.sub != nil:
		w.lead(it)
		w.write(e.subscript(it))
		return 1
	case it.div != nil:
		w.lead(it)
		if it.div.left[0].is("INTERVAL") {
			// INTERVAL / INT64 is an INTERVAL; bq_div is numeric.
			w.write("(" + e.text(it.div.left) + " / " + e.text(it.div.right) + ")")
			return 1
		}
		w.write("bq_div(" + e.text(it.div.left) + ", " + e.text(it.div.right) + ")")
		return 1
	case it.isRaw:
		w.lead(it)
		w.write(it.raw)
		return 1
	case it.isGroup("(") && at(items, i+1).isPunct(".") && at(items, i+2).isPunct("*") && !isSubquery(it):
		return e.dotStar(w, items, i)
	case it.group:
		w.lead(it)
		if it.tok.Text == "[" {
			// An array literal; subscripts were restructured away.
			w.write("[" + e.arrayLiteral(it.kids) + "]")
			return 1
		}
		w.write("(" + e.seq(it.kids) + ")")
		return 1
	}
	switch it.tok.Kind {
	case String:
		if n := e.adjacentLiterals(w, items, i); n > 0 {
			return n
		}
		w.lead(it)
		w.write(e.stringLit(it))
		return 1
	case Bytes:
		if n := e.adjacentLiterals(w, items, i); n > 0 {
			return n
		}
		w.lead(it)
		w.write(e.bytesLit(it))
		return 1
	case Number:
		w.lead(it)
		w.write(e.numberLit(it))
		return 1
	case QuotedIdent:
		w.lead(it)
		q := quoteIdent(e.identValue(it))
		if v, ok := e.model.starNameAt(it.tok.Pos); ok && !at(items, i-1).isPunct(".") {
			q = quoteIdent(v) + "." + q
		}
		w.write(q)
		return 1
	case Param:
		e.unsupported(it, "query parameters (%s) are not supported", it.tok.Text)
		return 1
	case Ident:
		if v, ok := e.model.starNameAt(it.tok.Pos); ok && !at(items, i-1).isPunct(".") && !at(items, i+1).isGroup("(") {
			// A name in an ORDER BY expression that BigQuery resolves to
			// the output column of v.* (model.go, starNames).
			w.lead(it)
			w.write(quoteIdent(v) + "." + quoteIdent(e.identValue(it)))
			return 1
		}
		return e.ident(w, items, i)
	}
	// Punctuation.
	if n := e.minInt64(w, items, i); n > 0 {
		return n
	}
	switch it.tok.Text {
	case "::":
		e.invalid(it, `Syntax error: Expected end of input but got ":"`)
	case "%":
		e.invalid(it, `Syntax error: Illegal input character "%%"`)
	case "{", "}":
		e.invalid(it, "Syntax error: Unexpected %q", it.tok.Text)
	case "**", "//", "->", "<=>":
		e.invalid(it, "Syntax error: Unexpected %q", it.tok.Text)
	case "^":
		e.unsupported(it, "the bitwise XOR operator ^ is not supported")
	case ";":
		if at(items, i+1).isPunct(";") || i == 0 {
			e.invalid(it, `Syntax error: Unexpected ";"`)
		}
	}
	w.lead(it)
	w.write(it.tok.Text)
	return 1
}

// minInt64 translates the literal -9223372036854775808 at items[i]: the
// least INT64 is written as a minus before an integer literal that alone
// would overflow, and BigQuery reads the pair as one negative literal
// (lexical structure reference: integer literals are the range of INT64);
// 9223372036854775808 alone stays an invalid literal.
func (e *emitter) minInt64(w *writer, items []*item, i int) int {
	it, next := items[i], at(items, i+1)
	if !it.isPunct("-") || endsOperand(at(items, i-1)) || next == nil || next.synthetic() || next.group ||
		next.tok.Kind != Number || strings.TrimLeft(next.tok.Text, "0") != "9223372036854775808" {
		return 0
	}
	w.lead(it)
	w.write("CAST(-9223372036854775808 AS BIGINT)")
	return 2
}

// aliasFollows reports whether items[k] starts a FROM item's alias (AS,
// or a name that is no keyword).
func aliasFollows(items []*item, k int) bool {
	a := at(items, k)
	return a != nil && !a.group && !a.synthetic() &&
		(a.is("AS") || (a.tok.Kind == Ident && !bqReserved[a.upper()]) || a.tok.Kind == QuotedIdent)
}

// ident translates an identifier or keyword at items[i].
func (e *emitter) ident(w *writer, items []*item, i int) int {
	it := items[i]
	up := it.upper()
	next := at(items, i+1)
	prev := at(items, i-1)
	if next.isGroup("(") && e.isCall(items, i) {
		return e.call(w, items, i)
	}
	switch up {
	case "DATE", "DATETIME", "TIMESTAMP", "TIME", "NUMERIC", "BIGNUMERIC", "DECIMAL",
		"BIGDECIMAL", "JSON", "RANGE":
		if next != nil && next.tok.Kind == String && !next.synthetic() && !next.group {
			w.lead(it)
			w.write(e.typedLiteral(it, next))
			return 2
		}
	case "INTERVAL":
		return e.interval(w, items, i)
	case "STRUCT", "ARRAY":
		if next.isPunct("<") {
			return e.typedConstructor(w, items, i)
		}
	case "EXCEPT":
		if prev.isPunct("*") || (prev != nil && prev.path != nil && strings.HasSuffix(prev.path.out, ".*")) {
			if next.isGroup("(") {
				w.lead(it)
				w.write("EXCLUDE")
				w.write(" (" + e.text(next.kids) + ")")
				return 2
			}
		}
		e.setOp(it, next)
	case "UNION", "INTERSECT":
		e.setOp(it, next)
	case "WITHIN":
		if next.is("GROUP") {
			e.invalid(it, "Syntax error: Expected end of input but got keyword WITHIN")
		}
	case "FILTER":
		if next.isGroup("(") {
			e.invalid(it, "Syntax error: Expected keyword AS but got keyword FILTER")
		}
	case "ILIKE", "GLOB", "SIMILAR", "REGEXP", "RLIKE":
		// DuckDB's pattern operators; as operators (between two operands)
		// they are syntax errors in BigQuery, as names they are names.
		if endsOperand(prev) && next != nil && (next.tok.Kind == String || next.is("TO")) {
			e.invalid(it, "Syntax error: Unexpected identifier %q", it.tok.Text)
		}
	case "IN":
		if next.is("UNNEST") && at(items, i+2).isGroup("(") {
			w.lead(it)
			w.write("IN (SELECT UNNEST(" + e.text(at(items, i+2).kids) + "))")
			return 3
		}
	case "UNNEST":
		if next.isGroup("(") {
			return e.unnest(w, items, i)
		}
	case "LIKE":
		return e.like(w, items, i)
	case "DISTINCT":
		if next.is("ON") {
			e.invalid(next, "Syntax error: Unexpected keyword ON")
		}
	case "LIMIT":
		if next.is("ALL") {
			e.invalid(next, "Syntax error: Unexpected keyword ALL")
		}
	case "OFFSET":
		// LIMIT n OFFSET m and WITH OFFSET keep the keyword; elsewhere it is
		// a name, which DuckDB reserves.
		if prev.is("WITH") || at(items, i-2).is("LIMIT") {
			w.lead(it)
			w.write("OFFSET")
			return 1
		}
	case "PIVOT", "UNPIVOT":
		if next.isGroup("(") {
			e.unsupported(it, "%s is not supported", up)
		}
	case "TABLESAMPLE":
		e.unsupported(it, "TABLESAMPLE is not supported")
	case "COLLATE":
		if n := e.collate(w, items, i); n > 0 {
			return n
		}
	case "CURRENT_DATETIME":
		w.lead(it)
		w.write("CAST(current_localtimestamp() AS TIMESTAMP)")
		return 1
	case "CURRENT_TIMESTAMP":
		w.lead(it)
		w.write("get_current_timestamp()")
		return 1
	case "AS":
		if next != nil && (next.tok.Kind == String || next.tok.Kind == Bytes) && !next.synthetic() {
			e.invalid(next, "Syntax error: Unexpected string literal %s", next.tok.Text)
		}
		if next.is("STRUCT") || next.is("VALUE") {
			if p := prev; p.is("SELECT") || p.is("DISTINCT") || p.is("ALL") {
				e.unsupported(it, "SELECT AS %s is not supported", next.upper())
			}
		}
	}
	w.lead(it)
	w.write(aliasText(items, i))
	return 1
}

// nameText renders an unquoted identifier; words DuckDB reserves but
// BigQuery does not are double-quoted so they stay names.
func nameText(s string) string {
	if inWordSet(duckReserved, s) && !inWordSet(bqReserved, s) {
		return quoteIdent(s)
	}
	return s
}

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// setOp checks BigQuery's rule that set operators name ALL or DISTINCT.
func (e *emitter) setOp(it, next *item) {
	up := it.upper()
	switch {
	case next.is("DISTINCT"):
	case next.is("ALL"):
		if up != "UNION" {
			e.invalid(next, "%s ALL is not supported", up)
		}
	default:
		e.invalid(it, "Syntax error: Expected keyword ALL or keyword DISTINCT but got %s", describe(next))
	}
}

func describe(it *item) string {
	switch {
	case it == nil:
		return "end of input"
	case it.group:
		return strconv.Quote(it.tok.Text)
	case it.tok.Kind == Ident && bqReserved[it.upper()]:
		return "keyword " + it.upper()
	case it.tok.Kind == Ident:
		return "identifier " + strconv.Quote(it.tok.Text)
	}
	return strconv.Quote(it.tok.Text)
}

// callableReserved are reserved words that are also function names.
var callableReserved = wordSet(`IF ARRAY STRUCT EXTRACT CAST EXISTS UNNEST GROUPING LEFT RIGHT RANGE
	COLLATE`)

// isCall reports whether the identifier at items[i], which is followed by a
// ( group, is a function call rather than syntax (IN (…), AS (…), …).
func (e *emitter) isCall(items []*item, i int) bool {
	it := items[i]
	up := it.upper()
	if bqReserved[up] && !callableReserved[up] {
		return false
	}
	prev := at(items, i-1)
	switch {
	case prev.is("AS") && !bqFunctions[up]:
		return false // a parameterised type or a CTE column list
	case prev.isPunct("*") && (up == "REPLACE"):
		return false
	case up == "EXISTS" || up == "UNNEST":
		return false // handled as syntax
	case up == "PIVOT" || up == "UNPIVOT":
		return false
	case up == "SETS" && prev.is("GROUPING"):
		// Syntax, not a function; checkGroupingSets refuses the lists
		// DuckDB groups differently.
		return false
	}
	return true
}

// typedLiteral rewrites DATE '…', DATETIME '…', TIMESTAMP '…', NUMERIC '…'.
func (e *emitter) typedLiteral(kw, lit *item) string {
	v, err := lit.tok.Value()
	if err != nil {
		e.invalid(lit, "Syntax error: %v", err)
		return ""
	}
	s := duckString(v)
	switch kw.upper() {
	case "DATE":
		return "DATE " + s
	case "DATETIME":
		return "TIMESTAMP " + s
	case "TIMESTAMP":
		return "TIMESTAMPTZ " + s
	case "TIME":
		return "TIME " + s
	case "NUMERIC", "DECIMAL":
		return "CAST(" + s + " AS DECIMAL(38, 9))"
	case "BIGNUMERIC", "BIGDECIMAL":
		if bigNumericTooPrecise(v) {
			e.unsupported(lit, "BIGNUMERIC values of more than 18 decimal digits are not supported")
		}
		return "CAST(" + s + " AS DECIMAL(38, 18))"
	}
	e.unsupported(kw, "%s literals are not supported", kw.upper())
	return ""
}

// duckString renders s as a DuckDB string literal (no escape processing:
// only the quote is doubled).
func duckString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func (e *emitter) stringLit(it *item) string {
	v, err := it.tok.Value()
	if err != nil {
		e.invalid(it, "Syntax error: %v", err)
		return "''"
	}
	if !utf8.ValidString(v) {
		e.invalid(it, "Syntax error: String literal contains invalid UTF-8")
	}
	if strings.ContainsRune(v, 0) {
		e.unsupported(it, "string literals containing NUL are not supported")
	}
	return duckString(v)
}

func (e *emitter) bytesLit(it *item) string {
	v, err := it.tok.Value()
	if err != nil {
		e.invalid(it, "Syntax error: %v", err)
		return "''"
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		b.WriteString(`\x`)
		b.WriteString(strconv.FormatUint(uint64(v[i])>>4, 16))
		b.WriteString(strconv.FormatUint(uint64(v[i])&15, 16))
	}
	return "CAST('" + b.String() + "' AS BLOB)"
}

func (e *emitter) numberLit(it *item) string {
	t := it.tok.Text
	if it.tok.IsFloat() {
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			e.invalid(it, "Syntax error: Invalid floating point literal %s", t)
		}
		if target, ok := e.model.numericLitAt(it.tok.Pos); ok {
			// In a NUMERIC (BIGNUMERIC) set operation column
			// (model.noteNumericLiterals).
			if d, ok := decimalLiteral(t, target); ok {
				return d
			}
		}
		// BigQuery float literals are FLOAT64; DuckDB would make them DECIMAL.
		return "CAST(" + t + " AS DOUBLE)"
	}
	v, err := strconv.ParseInt(t, 0, 64)
	if err != nil {
		e.invalid(it, "Syntax error: Invalid integer literal: %s", t)
		return t
	}
	return strconv.FormatInt(v, 10)
}

func (e *emitter) identValue(it *item) string {
	v, err := it.tok.Value()
	if err != nil {
		e.invalid(it, "Syntax error: %v", err)
	}
	return v
}

// like gives LIKE BigQuery's backslash escape, which it applies to every
// pattern, STRING and BYTES (operators reference, "Comparison operators":
// LIKE; DuckDB's LIKE has no escape character unless told): ESCAPE '\' to
// a literal pattern that holds a backslash, and to every other pattern
// through a macro that also checks for a lone backslash at its end as the
// query runs (checkLikePatterns refuses such a literal): bq_like_pattern
// for a STRING one, bq_like_any_pattern, which dispatches on the value's
// type, for one whose type the bridge cannot tell. The pattern's extent is
// the statement model's (model.likePatterns); without it, a pattern that
// is one operand (a name, a call, a bracket) is read as that operand, and
// any other is refused rather than matched without the escape. BYTES
// patterns the bridge knows are rewritten before (bytesLike).
func (e *emitter) like(w *writer, items []*item, i int) int {
	it := items[i]
	w.lead(it)
	w.write("LIKE")
	next := at(items, i+1)
	if next == nil {
		return 1
	}
	macro := "bq_like_any_pattern("
	last := -1
	lp, noted := e.model.likePatternAt(next.pos())
	if noted {
		switch lp.typ {
		case "STRING":
			macro = "bq_like_pattern("
		case "":
		default:
			// BYTES (bytesLike) or a type BigQuery refuses in LIKE.
			return 1
		}
		for k := i + 1; k < len(items); k++ {
			if end := items[k].end(); end == lp.end {
				last = k
				break
			} else if end < 0 || end > lp.end {
				break // moved or rewritten
			}
		}
	}
	if last < 0 && next.tok.Kind == String && !next.synthetic() && !next.group && !bindsTighterThanLike(at(items, i+2)) {
		v, _ := next.tok.Value()
		w.lead(next)
		w.write(e.stringLit(next))
		if strings.Contains(v, `\`) {
			w.write(` ESCAPE '\'`)
		}
		return 2
	}
	if last < 0 && (next.is("NULL") || next.is("ANY") || next.is("SOME") || next.is("ALL")) {
		// NULL matches nothing in either engine; a quantified LIKE the
		// restructuring left (refused there) is not a pattern.
		return 1
	}
	if last < 0 {
		last = primaryEnd(items, i+1)
		if last < 0 || bindsTighterThanLike(at(items, last+1)) {
			e.unsupported(next, "LIKE with a pattern whose type and extent the bridge cannot tell (it would not apply BigQuery's backslash escape) is not supported")
			return 1
		}
	}
	w.lead(next)
	w.write(macro + e.text(items[i+1:last+1]) + `) ESCAPE '\'`)
	return last + 1 - i
}

// bindsTighterThanLike reports whether it is an operator that binds
// tighter than LIKE, so that the operand before it is not the whole
// pattern (operators reference, operator precedence).
func bindsTighterThanLike(it *item) bool {
	if it == nil {
		return false
	}
	if it.isGroup("[") {
		return true
	}
	if it.synthetic() || it.group || it.tok.Kind != Punct {
		return false
	}
	switch it.tok.Text {
	case "||", "+", "-", "*", "/", "&", "|", "^", "<<", ">>", ".", "~":
		return true
	}
	return false
}

// checkLikePatterns rejects a LIKE pattern literal that ends in a lone
// backslash. BigQuery's LIKE escapes with the backslash and refuses such a
// pattern ("LIKE pattern ends with a backslash"; GoogleSQL compliance
// like_any_string_invalid), whatever the operand, NULL included, and a
// constant pattern is compiled before any row is read; DuckDB fails only
// when a value reaches the end of the pattern. Plain, quantified (ANY, SOME,
// ALL over a list or UNNEST of an array literal) and BYTES patterns alike.
func (e *emitter) checkLikePatterns(items []*item) {
	for i, it := range items {
		if it.group {
			e.checkLikePatterns(it.kids)
			continue
		}
		if !it.is("LIKE") {
			continue
		}
		pats := []*item{at(items, i+1)}
		if q := at(items, i+1); q.is("ANY") || q.is("SOME") || q.is("ALL") {
			g := at(items, i+2)
			if g.is("UNNEST") {
				if u := at(items, i+3); u.isGroup("(") && len(u.kids) == 1 {
					g = u.kids[0]
				}
			}
			pats = nil
			if g != nil && g.group {
				for _, el := range splitTop(g.kids) {
					if len(el) == 1 {
						pats = append(pats, el[0])
					}
				}
			}
		}
		for _, p := range pats {
			if p == nil || p.synthetic() || p.group || (p.tok.Kind != String && p.tok.Kind != Bytes) {
				continue
			}
			if v, err := p.tok.Value(); err == nil && endsInEscape(v) {
				e.invalid(p, "LIKE pattern ends with a backslash")
				return
			}
		}
	}
}

// endsInEscape reports whether a LIKE pattern ends in an escaping
// backslash (an odd number of them).
func endsInEscape(p string) bool {
	n := len(p) - len(strings.TrimRight(p, `\`))
	return n%2 == 1
}

// typedConstructor translates STRUCT<a T, …>(v, …) and ARRAY<T>[v, …].
func (e *emitter) typedConstructor(w *writer, items []*item, i int) int {
	it := items[i]
	// The type runs to the matching >; the value group follows it.
	j := closingAngle(items, i+1)
	vals := at(items, j+1)
	if j == i+1 || vals == nil || !vals.group {
		e.invalid(it, "Syntax error: malformed %s type", it.upper())
		return 1
	}
	p := &typeParser{e: e, items: items[i : j+1]}
	duck, _, ok := p.parse()
	if !ok {
		return j + 2 - i
	}
	w.lead(it)
	if it.is("ARRAY") {
		if !vals.isGroup("[") {
			e.invalid(vals, "Syntax error: Expected \"[\" after %s", duck)
			return j + 2 - i
		}
		e.typedArrayLiterals(splitTop(vals.kids), duck)
		w.write("CAST([" + e.text(vals.kids) + "] AS " + duck + ")")
		return j + 2 - i
	}
	if !vals.isGroup("(") {
		e.invalid(vals, "Syntax error: Expected \"(\" after STRUCT type")
		return j + 2 - i
	}
	args := splitTop(vals.kids)
	if len(args) != len(p.names) {
		e.invalid(vals, "STRUCT type has %d fields but %d values", len(p.names), len(args))
		return j + 2 - i
	}
	// The type names the fields, by position.
	parts := make([]string, len(args))
	for k, a := range args {
		parts[k] = quoteIdent(p.names[k]) + " := " + e.text(a)
	}
	w.write("CAST(struct_pack(" + strings.Join(parts, ", ") + ") AS " + duck + ")")
	return j + 2 - i
}
