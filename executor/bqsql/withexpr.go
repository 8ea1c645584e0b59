package bqsql

import "strings"

// BigQuery's WITH expression, WITH(a AS e1, b AS e2, …, result), binds
// variables for one expression: each variable is evaluated once, in order,
// a later one may use the earlier ones, and inside the expression a variable
// hides a column of the same name. DuckDB has no such expression, and a
// scalar subquery would be wrong for the common case (an aggregate such as
// ARRAY_AGG(x) or COUNT(*) as a variable belongs to the enclosing query, not
// to a one-row subquery), so the bridge inlines each variable, bracketed,
// where it is used. Inlining is exact only when evaluating a variable where
// it is used is the same as evaluating it once up front; the rewrite refuses
// (unsupported, naming the construct) where it would not be:
//
//   - a variable that is not evaluated on every path (never used, or used
//     only under IF, CASE, COALESCE, IFNULL, AND or OR): BigQuery evaluates
//     it anyway, so an error it raises (1/0) would be lost; literals are
//     exempt, they cannot fail;
//   - a variable calling RAND() or GENERATE_UUID() that would be copied
//     more than once (each copy would draw its own value);
//   - a variable used inside an aggregate or window call (BigQuery evaluates
//     the variable outside the aggregate, so a row-level variable in an
//     aggregating query is an error there, a per-row value here);
//   - a subquery or lambda inside the WITH expression, where a name may
//     mean a column of the subquery instead.

// withBudget bounds the items inlining may create: a chain of variables
// each used twice doubles the expression at every step.
const withBudget = 1 << 16

// withExpressions rewrites every WITH expression in items (innermost first)
// into its result with the variables inlined.
func withExpressions(src string, items []*item) ([]*item, error) {
	budget := withBudget
	out, err := rewriteWith(src, items, &budget)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func rewriteWith(src string, items []*item, budget *int) ([]*item, *Error) {
	out := make([]*item, 0, len(items))
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.group {
			kids, err := rewriteWith(src, it.kids, budget)
			if err != nil {
				return nil, err
			}
			it.kids = kids
		}
		g := at(items, i+1)
		if !it.is("WITH") || !g.isGroup("(") || (i > 0 && items[i-1].isPunct(".")) {
			out = append(out, it)
			continue
		}
		kids, err := rewriteWith(src, g.kids, budget)
		if err != nil {
			return nil, err
		}
		res, err := inlineWith(src, it, kids, budget)
		if err != nil {
			return nil, err
		}
		out = append(out, &item{tok: Token{Kind: Punct, Text: "(", Pos: it.tok.Pos}, group: true, kids: res,
			close: g.close, nl: it.nl, sp: it.sp})
		i++
	}
	return out, nil
}

// withVar is one variable of a WITH expression and how it is used.
type withVar struct {
	name string // lower case
	def  []*item
	at   *item
	// uses counts the copies inlining makes of the variable; always
	// whether one of them is evaluated whenever the expression is.
	uses   int
	always bool
}

// withUse is how the uses in one expression refer to the variables.
type withUse struct {
	count  map[string]int
	always map[string]bool
}

// inlineWith returns the result of the WITH expression whose bracket holds
// kids, with its variables inlined, or why inlining would not be exact.
func inlineWith(src string, with *item, kids []*item, budget *int) ([]*item, *Error) {
	if hasWord(kids, "SELECT") || hasPunct(kids, "->") {
		return nil, errAt(src, with.pos(), KindUnsupported, "a WITH expression containing a subquery or lambda is not supported")
	}
	parts := splitTop(kids)
	if len(parts) < 2 || len(parts[len(parts)-1]) == 0 {
		return nil, errAt(src, with.pos(), KindInvalid, "Syntax error: WITH expression needs at least one variable (name AS expression) and a result expression")
	}
	vars := make([]*withVar, 0, len(parts)-1)
	defs := map[string]*withVar{}
	// uses[k] is how the definition of vars[k] uses earlier variables;
	// the last entry is the result's.
	var uses []withUse
	for _, p := range parts[:len(parts)-1] {
		if len(p) < 3 || !p[1].is("AS") || (p[0].tok.Kind != Ident && p[0].tok.Kind != QuotedIdent) || p[0].group {
			pos := with.pos()
			if len(p) > 0 {
				pos = p[0].pos()
			}
			return nil, errAt(src, pos, KindInvalid, "Syntax error: Expected a WITH expression variable (name AS expression)")
		}
		name, err := p[0].tok.Value()
		if err != nil {
			return nil, errAt(src, p[0].pos(), KindInvalid, "Syntax error: %v", err)
		}
		name = strings.ToLower(name)
		if defs[name] != nil {
			return nil, errAt(src, p[0].pos(), KindUnsupported, "a WITH expression defining a variable twice is not supported")
		}
		u := withUse{count: map[string]int{}, always: map[string]bool{}}
		def, err2 := inlineVars(src, p[2:], defs, &u, false, budget)
		if err2 != nil {
			return nil, err2
		}
		v := &withVar{name: name, def: def, at: p[0]}
		vars = append(vars, v)
		uses = append(uses, u)
		defs[name] = v
	}
	u := withUse{count: map[string]int{}, always: map[string]bool{}}
	res, err := inlineVars(src, parts[len(parts)-1], defs, &u, false, budget)
	if err != nil {
		return nil, err
	}
	// A variable's copies are its uses in the result plus, for each later
	// variable, its uses there times that variable's copies; it is always
	// evaluated when an always-evaluated use reaches it.
	for k := len(vars) - 1; k >= 0; k-- {
		v := vars[k]
		v.uses, v.always = u.count[v.name], u.always[v.name]
		for j := k + 1; j < len(vars); j++ {
			w := vars[j]
			v.uses += uses[j].count[v.name] * w.uses
			v.always = v.always || (w.always && uses[j].always[v.name])
		}
		switch {
		case !v.always && !literalOnly(v.def):
			return nil, errAt(src, v.at.pos(), KindUnsupported, "a WITH expression variable that is not evaluated on every path is not supported")
		case v.uses > 1 && volatileIn(v.def):
			return nil, errAt(src, v.at.pos(), KindUnsupported, "a WITH expression variable calling RAND() or GENERATE_UUID() used more than once is not supported")
		}
	}
	return res, nil
}

// inlineVars copies items with every reference to a variable of defs
// replaced by its bracketed definition, recording the uses in u. cond is
// set below a construct that may skip evaluating its operand.
func inlineVars(src string, items []*item, defs map[string]*withVar, u *withUse, cond bool, budget *int) ([]*item, *Error) {
	if *budget -= len(items); *budget < 0 {
		return nil, errAt(src, items[0].pos(), KindUnsupported, "the WITH expression is too complex to translate")
	}
	if indexWord(items, "AND") >= 0 || indexWord(items, "OR") >= 0 {
		// Either operand may go unevaluated (BETWEEN's AND is counted
		// too, which only refuses more).
		cond = true
	}
	out := make([]*item, 0, len(items))
	caseDepth := 0
	for i := 0; i < len(items); i++ {
		it := items[i]
		prev, next := at(items, i-1), at(items, i+1)
		switch {
		case (it.is("ARRAY") || it.is("STRUCT")) && next.isPunct("<"):
			// A type's field names are not references.
			end := closingAngle(items, i+1)
			for ; i <= end; i++ {
				out = append(out, cloneItem(items[i]))
			}
			i--
			continue
		case it.is("CASE"):
			caseDepth++
		case it.is("END") && caseDepth > 0:
			caseDepth--
		}
		if it.group {
			kidCond, inAgg := cond || caseDepth > 0, false
			if name := prev.upper(); name != "" && !at(items, i-2).isPunct(".") {
				switch name {
				case "IF", "IIF", "COALESCE", "IFNULL":
					kidCond = true
				case "OVER":
					inAgg = true
				default:
					if sig, ok := signatures[name]; ok && sig.kind != scalarFn {
						inAgg = true
					}
				}
			}
			if inAgg && len(defs) > 0 && refersTo(it.kids, defs) {
				return nil, errAt(src, it.pos(), KindUnsupported, "a WITH expression variable used inside an aggregate or window function is not supported")
			}
			kids, err := inlineVars(src, it.kids, defs, u, kidCond, budget)
			if err != nil {
				return nil, err
			}
			c := *it
			c.kids = kids
			out = append(out, &c)
			continue
		}
		v := varRef(items, i, defs)
		if v == nil {
			out = append(out, cloneItem(it))
			continue
		}
		u.count[v.name]++
		if !cond && caseDepth == 0 {
			u.always[v.name] = true
		}
		if *budget -= len(v.def); *budget < 0 {
			return nil, errAt(src, it.pos(), KindUnsupported, "the WITH expression is too complex to translate")
		}
		def := make([]*item, len(v.def))
		for k, d := range v.def {
			def[k] = cloneItem(d)
		}
		def[0].nl, def[0].sp = false, false
		out = append(out, &item{tok: Token{Kind: Punct, Text: "(", Pos: it.tok.Pos}, group: true, kids: def,
			close: Token{Kind: Punct, Text: ")", Pos: it.tok.Pos}, nl: it.nl, sp: it.sp})
	}
	return out, nil
}

// varRef returns the variable items[i] names, or nil: a name is a
// variable reference unless it is a field (after a dot), a function name
// (before a bracket) or an alias (after AS).
func varRef(items []*item, i int, defs map[string]*withVar) *withVar {
	it := items[i]
	if it.group || it.synthetic() || (it.tok.Kind != Ident && it.tok.Kind != QuotedIdent) {
		return nil
	}
	name, err := it.tok.Value()
	if err != nil {
		return nil
	}
	v := defs[strings.ToLower(name)]
	if v == nil {
		return nil
	}
	prev := at(items, i-1)
	if prev.isPunct(".") || prev.is("AS") || at(items, i+1).isGroup("(") {
		return nil
	}
	return v
}

// refersTo reports whether items (at any depth) name a variable of defs.
func refersTo(items []*item, defs map[string]*withVar) bool {
	for i, it := range items {
		if it.group && refersTo(it.kids, defs) || varRef(items, i, defs) != nil {
			return true
		}
	}
	return false
}

// literalOnly reports whether items are a single literal, which cannot
// fail however often it is evaluated.
func literalOnly(items []*item) bool {
	if len(items) != 1 || items[0].group || items[0].synthetic() {
		return false
	}
	switch t := items[0]; t.tok.Kind {
	case Number, String, Bytes:
		return true
	case Ident:
		return t.is("NULL") || t.is("TRUE") || t.is("FALSE")
	}
	return false
}

// hasWord reports whether an identifier equal to word occurs in items at
// any depth.
func hasWord(items []*item, word string) bool {
	for _, it := range items {
		if it.is(word) || it.group && hasWord(it.kids, word) {
			return true
		}
	}
	return false
}

// hasPunct reports whether the punctuation p occurs in items at any depth.
func hasPunct(items []*item, p string) bool {
	for _, it := range items {
		if it.isPunct(p) || it.group && hasPunct(it.kids, p) {
			return true
		}
	}
	return false
}

// cloneItem copies an item and its group contents, so that a definition
// inlined twice gives two independent subtrees to the later rules.
func cloneItem(it *item) *item {
	c := *it
	if it.group {
		c.kids = make([]*item, len(it.kids))
		for i, k := range it.kids {
			c.kids[i] = cloneItem(k)
		}
	}
	return &c
}

// dotStar translates (expr).*, the fields of a STRUCT value as columns
// (the usual way to spread a WITH expression's STRUCT result), into
// DuckDB's unnest of a struct, which does the same; bq_dot_star makes any
// other type an error, as in BigQuery, instead of unnest's rows of an array.
func (e *emitter) dotStar(w *writer, items []*item, i int) int {
	it := items[i]
	if at(items, i+3).is("EXCEPT") || at(items, i+3).is("REPLACE") {
		e.unsupported(items[i+3], "(expression).* %s is not supported", items[i+3].upper())
		return 4
	}
	w.lead(it)
	w.write("unnest(bq_dot_star(" + e.text(it.kids) + "))")
	return 3
}
