package bqsql

import (
	"regexp"
	"strings"
)

// call is one parsed function call: NAME([DISTINCT] args [IGNORE|RESPECT
// NULLS] [ORDER BY …] [LIMIT n]) with what follows it in the sequence.
type call struct {
	e        *emitter
	it       *item // the name (an identifier or a SAFE.NAME path)
	name     string
	safe     bool
	group    *item
	args     [][]*item
	distinct bool
	nulls    string // "IGNORE" or "RESPECT" when given
	orderBy  []*item
	limit    []*item
	over     []*item // OVER and its window (group or name) when present
	texts    map[int]string
	overDone bool // the rule rendered over itself (in each call it makes)
}

// arg returns the translated text of argument k. Rules may use an argument
// several times; it is translated once, so nested calls stay linear.
func (c *call) arg(k int) string {
	if t, ok := c.texts[k]; ok {
		return t
	}
	if c.texts == nil {
		c.texts = map[int]string{}
	}
	t := c.e.text(c.args[k])
	c.texts[k] = t
	return t
}

// argsText returns all arguments translated and joined by ", ".
func (c *call) argsText() string {
	parts := make([]string, len(c.args))
	for k := range c.args {
		parts[k] = c.arg(k)
	}
	return strings.Join(parts, ", ")
}

// fnSpec describes how one BigQuery function is translated.
type fnSpec struct {
	min, max int // argument counts; max < 0 means no upper bound
	agg      bool
	window   bool   // analytic only: OVER is required
	mods     string // modifiers allowed: n (IGNORE/RESPECT NULLS), o (ORDER BY), l (LIMIT)
	duck     string // DuckDB function for a plain rename
	emit     func(c *call) string
}

// call translates the call whose name is items[i] and whose argument group
// is items[i+1].
func (e *emitter) call(w *writer, items []*item, i int) int {
	nameIt := items[i]
	c := &call{e: e, it: nameIt, group: items[i+1]}
	if nameIt.path != nil {
		parts := nameIt.path.parts
		if len(parts) == 2 && strings.EqualFold(parts[0], "SAFE") {
			c.safe = true
			c.name = strings.ToUpper(parts[1])
		} else {
			full := strings.ToUpper(strings.Join(parts, "."))
			switch strings.ToUpper(parts[0]) {
			case "NET", "HLL_COUNT", "KLL_QUANTILES", "AEAD", "KEYS", "DETERMINISTIC_ENCRYPT", "ML", "AI",
				"VECTOR_SEARCH", "D3A_COUNT":
				e.unsupported(nameIt, "function %s is not supported", full)
			default:
				e.invalid(nameIt, "Function not found: %s", strings.Join(parts, "."))
			}
			return 2
		}
	} else {
		c.name = nameIt.upper()
	}
	if at(items, i+2).is("OVER") {
		if win := at(items, i+3); win != nil && (win.group || win.tok.Kind == Ident) {
			if win.isGroup("(") && len(win.kids) == 1 && isName(win.kids[0]) {
				// OVER (w) is OVER w; DuckDB refuses to copy a named window
				// that has a frame, BigQuery inherits it.
				name := *win.kids[0]
				name.sp, name.nl = true, false
				items[i+3] = &name
			}
			c.over = items[i+2 : i+4]
		}
	}
	e.parseArgs(c)
	spec, ok := funcs[c.name]
	switch {
	case !bqFunctions[c.name] && !ok:
		e.invalid(nameIt, "Function not found: %s", nameIt.tok.Text)
		return 2
	case !ok:
		e.unsupported(nameIt, "function %s is not supported", c.name)
		return 2
	}
	e.checkCall(c, spec)
	if e.err != nil {
		return 2
	}
	var out string
	switch {
	case c.safe:
		out = e.safeCall(c, spec)
	case spec.emit != nil:
		out = spec.emit(c)
	default:
		out = e.plainCall(c, spec)
	}
	if spec.agg {
		out = e.deferErrors(c, out)
	}
	w.lead(nameIt)
	w.write(out)
	if c.overDone {
		// The rule wrote the OVER clause itself.
		return 4
	}
	return 2
}

// parseArgs splits the argument group and peels off DISTINCT, IGNORE/RESPECT
// NULLS, ORDER BY and LIMIT.
func (e *emitter) parseArgs(c *call) {
	kids := c.group.kids
	if isSubquery(c.group) {
		// ARRAY(SELECT … ORDER BY …): one argument, a query.
		c.args = [][]*item{kids}
		return
	}
	if len(kids) > 0 && kids[0].is("DISTINCT") {
		c.distinct = true
		kids = kids[1:]
	}
	// Modifiers live at the top level of the last argument.
	cut := len(kids)
	for k := 0; k < len(kids); k++ {
		it := kids[k]
		switch {
		case (it.is("IGNORE") || it.is("RESPECT")) && at(kids, k+1).is("NULLS"):
			c.nulls = it.upper()
			if k < cut {
				cut = k
			}
			k++
		case it.is("ORDER") && at(kids, k+1).is("BY"):
			if k < cut {
				cut = k
			}
			end := len(kids)
			for m := k + 2; m < len(kids); m++ {
				if kids[m].is("LIMIT") {
					end = m
					break
				}
			}
			c.orderBy = kids[k+2 : end]
			k = end - 1
		case it.is("LIMIT"):
			if k < cut {
				cut = k
			}
			c.limit = kids[k+1:]
			k = len(kids)
		}
	}
	c.args = splitTop(kids[:cut])
	if (c.name == "CAST" || c.name == "SAFE_CAST") && len(c.args) > 1 {
		// CAST(x AS STRUCT<INT64, BOOL>): the commas are the type's.
		c.args = [][]*item{kids[:cut]}
	}
	// f() has no arguments; f(*) has one.
	if len(c.args) == 1 && len(c.args[0]) == 0 {
		c.args = nil
	}
	for _, a := range c.args {
		if len(a) == 0 {
			e.invalid(c.group, "Syntax error: Unexpected \",\"")
		}
	}
}

func (e *emitter) checkCall(c *call, spec fnSpec) {
	n := len(c.args)
	sig, known := signatures[c.name]
	switch {
	case c.safe && !safeForm(c.name):
		hint := ""
		if c.name == "CAST" {
			hint = "; use SAFE_CAST"
		}
		e.invalid(c.it, "Function not found: SAFE.%s%s", c.name, hint)
	case known && !sig.accepts(n):
		e.invalid(c.it, "No matching signature for function %s with %d argument(s)", c.name, n)
	case n < spec.min || (spec.max >= 0 && n > spec.max):
		if known {
			// Valid BigQuery that no rule translates.
			e.unsupported(c.it, "function %s with %d argument(s) is not supported", c.name, n)
			return
		}
		e.invalid(c.it, "No matching signature for function %s with %d argument(s)", c.name, n)
	}
	if c.distinct && !spec.agg {
		e.invalid(c.it, "DISTINCT is not allowed for function %s", c.name)
	}
	if c.nulls != "" && !strings.Contains(spec.mods, "n") {
		e.invalid(c.it, "%s NULLS is not supported for function %s", c.nulls, c.name)
	}
	if c.orderBy != nil && !strings.Contains(spec.mods, "o") {
		e.invalid(c.it, "ORDER BY is not supported for function %s", c.name)
	}
	if c.limit != nil && !strings.Contains(spec.mods, "l") {
		e.invalid(c.it, "LIMIT is not supported for function %s", c.name)
	}
	if spec.window && c.over == nil {
		e.invalid(c.it, "Analytic function %s cannot be called without an OVER clause", c.name)
	}
	if c.over != nil && !spec.agg && !spec.window {
		e.invalid(c.it, "Function %s does not support an OVER clause", c.name)
	}
	if c.over != nil && c.distinct && c.over[1].group {
		for _, it := range c.over[1].kids {
			if it.is("ORDER") {
				e.invalid(it, "DISTINCT is not allowed for analytic functions with an ORDER BY clause")
			}
		}
	}
}

// plainCall renders duck(args) with the modifiers DuckDB shares.
func (e *emitter) plainCall(c *call, spec fnSpec) string {
	name := spec.duck
	if name == "" {
		name = strings.ToLower(c.name)
	}
	var b strings.Builder
	b.WriteString(name + "(")
	if c.distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(c.argsText())
	if c.nulls != "" {
		b.WriteString(" " + c.nulls + " NULLS")
	}
	if c.orderBy != nil {
		b.WriteString(" ORDER BY " + e.text(c.orderBy))
	}
	b.WriteString(")")
	return b.String()
}

// safeCall handles the SAFE. prefix for the functions whose errors can be
// mapped to NULL faithfully.
func (e *emitter) safeCall(c *call, spec fnSpec) string {
	switch c.name {
	case "PARSE_DATE", "PARSE_DATETIME", "PARSE_TIMESTAMP":
		return e.parseTime(c, true)
	case "SQRT":
		x := c.arg(0)
		return "(CASE WHEN " + x + " < 0 THEN NULL ELSE sqrt(" + x + ") END)"
	case "LN", "LOG10", "LOG":
		// LN, LOG10 and LOG(X) fail for a finite X <= 0 (of -inf they are
		// NaN); LOG(X, Y) as bq_safe_log says.
		if c.name == "LOG" && len(c.args) == 2 {
			return "bq_safe_log(" + c.arg(0) + ", " + c.arg(1) + ")"
		}
		fn := "ln"
		if c.name == "LOG10" {
			fn = "log10"
		}
		x := "CAST(" + c.arg(0) + " AS DOUBLE)"
		return "(CASE WHEN isfinite(" + x + ") AND " + x + " <= 0 THEN NULL ELSE " + fn + "(bq_log_arg(" + x + ")) END)"
	case "DATE_DIFF", "DATETIME_DIFF", "TIMESTAMP_DIFF", "SUBSTR", "SUBSTRING", "DATE", "DATETIME",
		"LOWER", "UPPER", "CONCAT", "ABS", "ROUND", "SAFE_DIVIDE", "COALESCE", "IFNULL":
		// These cannot fail on valid arguments except by overflow.
		if spec.emit != nil {
			return spec.emit(c)
		}
		return e.plainCall(c, spec)
	case "CAST":
		e.invalid(c.it, "Function not found: SAFE.CAST; use SAFE_CAST")
		return ""
	case "REGEXP_CONTAINS", "REGEXP_REPLACE":
		// They fail only on a pattern RE2 rejects: with a literal pattern,
		// Go's regexp (RE2 syntax) decides now.
		if pat, ok := e.literalString(c.args[1]); ok {
			if _, err := regexp.Compile(pat); err != nil {
				if c.name == "REGEXP_CONTAINS" {
					return "CAST(NULL AS BOOLEAN)"
				}
				return "CAST(NULL AS VARCHAR)"
			}
			if spec.emit != nil {
				return spec.emit(c)
			}
			return e.plainCall(c, spec)
		}
	}
	e.unsupported(c.it, "SAFE.%s is not supported", c.name)
	return ""
}
