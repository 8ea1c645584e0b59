package bqsql

import (
	"strconv"
	"strings"
)

// typeParser reads a BigQuery type from items (after AS in CAST, inside
// ARRAY<…> and STRUCT<…>). The tokens > and >> both close brackets.
type typeParser struct {
	e     *emitter
	items []*item
	pos   int
	split bool // the current >> has had one > consumed
	// names are the field names of the outermost STRUCT parsed.
	names []string
	depth int
}

func (p *typeParser) peek() *item { return at(p.items, p.pos) }

// closeAngle consumes one >.
func (p *typeParser) closeAngle() bool {
	it := p.peek()
	switch {
	case it.isPunct(">"):
		p.pos++
		return true
	case it.isPunct(">>"):
		if p.split {
			p.split = false
			p.pos++
		} else {
			p.split = true
		}
		return true
	}
	return false
}

// parse returns the DuckDB type and the BigQuery base type name.
func (p *typeParser) parse() (duck, base string, ok bool) {
	it := p.peek()
	if it == nil || it.synthetic() || it.group || it.tok.Kind != Ident {
		p.e.invalid(it, "Syntax error: Expected a type name but got %s", describe(it))
		return "", "", false
	}
	name := it.upper()
	p.pos++
	switch name {
	case "ARRAY":
		if !p.peek().isPunct("<") {
			p.e.invalid(it, "Syntax error: Expected \"<\" after ARRAY")
			return "", "", false
		}
		p.pos++
		elem, _, ok := p.parse()
		if !ok {
			return "", "", false
		}
		if !p.closeAngle() {
			p.e.invalid(p.peek(), "Syntax error: Expected \">\" but got %s", describe(p.peek()))
			return "", "", false
		}
		return elem + "[]", "ARRAY", true
	case "STRUCT":
		if !p.peek().isPunct("<") {
			p.e.invalid(it, "Syntax error: Expected \"<\" after STRUCT")
			return "", "", false
		}
		p.pos++
		p.depth++
		defer func() { p.depth-- }()
		outer := p.depth == 1
		var fields []string
		for k := 1; ; k++ {
			f := p.peek()
			fname := "_field_" + strconv.Itoa(k)
			if f != nil && (f.tok.Kind == Ident || f.tok.Kind == QuotedIdent) && !f.synthetic() {
				if nx := at(p.items, p.pos+1); nx != nil && (nx.tok.Kind == Ident) && !nx.synthetic() {
					fname = f.tok.Text
					if f.tok.Kind == QuotedIdent {
						fname = p.e.identValue(f)
					}
					p.pos++
				}
			}
			ft, _, ok := p.parse()
			if !ok {
				return "", "", false
			}
			fields = append(fields, quoteIdent(fname)+" "+ft)
			if outer {
				p.names = append(p.names, fname)
			}
			if p.peek().isPunct(",") {
				p.pos++
				continue
			}
			if !p.closeAngle() {
				p.e.invalid(p.peek(), "Syntax error: Expected \">\" but got %s", describe(p.peek()))
				return "", "", false
			}
			return "STRUCT(" + strings.Join(fields, ", ") + ")", "STRUCT", true
		}
	}
	duck, known := bqTypes[name]
	if !known {
		p.e.invalid(it, "Type not found: %s", it.tok.Text)
		return "", "", false
	}
	if duck == "" {
		p.e.unsupported(it, "type %s is not supported", name)
		return "", "", false
	}
	// Parameterised types: NUMERIC(P[, S]), STRING(L), BYTES(L).
	if g := p.peek(); g.isGroup("(") {
		p.pos++
		params := splitTop(g.kids)
		switch name {
		case "NUMERIC", "DECIMAL", "BIGNUMERIC", "BIGDECIMAL":
			prec, ok1 := literalInt(argAt(params, 0))
			scale := int64(0)
			ok2 := true
			if len(params) > 1 {
				scale, ok2 = literalInt(params[1])
			}
			if !ok1 || !ok2 || len(params) > 2 || prec < 1 || scale < 0 || scale > prec {
				p.e.invalid(g, "Invalid parameters for type %s", name)
				return "", "", false
			}
			if prec > 38 {
				p.e.unsupported(g, "%s precision above 38 is not supported", name)
				return "", "", false
			}
			return "DECIMAL(" + strconv.FormatInt(prec, 10) + ", " + strconv.FormatInt(scale, 10) + ")", "NUMERIC", true
		case "STRING", "BYTES":
			// The length bound makes BigQuery reject longer values; the
			// embedded engine cannot enforce it cheaply.
			p.e.unsupported(g, "parameterised %s types are not supported", name)
			return "", "", false
		}
		p.e.invalid(g, "Type %s does not take parameters", name)
		return "", "", false
	}
	return duck, name, true
}

// cast translates CAST(x AS T [FORMAT …]) and SAFE_CAST.
func (e *emitter) cast(c *call, safe bool) string {
	a := c.args[0]
	as := -1
	for k := len(a) - 1; k >= 0; k-- {
		if a[k].is("AS") {
			as = k
			break
		}
	}
	if as < 1 || as == len(a)-1 {
		e.invalid(c.it, "Syntax error: Expected keyword AS in %s", c.name)
		return ""
	}
	typeItems := a[as+1:]
	if k := indexWord(typeItems, "FORMAT"); k >= 0 {
		return e.castFormat(c, safe, a[:as], typeItems, k)
	}
	p := &typeParser{e: e, items: typeItems}
	duck, base, ok := p.parse()
	if !ok {
		return ""
	}
	if p.pos < len(typeItems) && !(p.split && p.pos == len(typeItems)-1) {
		e.invalid(typeItems[p.pos], "Syntax error: Unexpected %s", describe(typeItems[p.pos]))
		return ""
	}
	if lit, isLit := e.literalString(a[:as]); isLit && base == "INTERVAL" {
		// ISO 8601 durations, BigQuery's 'Y-M D H:M:S[.F]' text and its
		// unambiguous parts ('Y-M', 'D H:M:S', 'H:M:S'), which DuckDB does
		// not read.
		if v, ok := isoIntervalText(lit); ok {
			return v
		}
		for _, r := range [][2]string{{"YEAR", "SECOND"}, {"YEAR", "MONTH"}, {"DAY", "SECOND"}, {"HOUR", "SECOND"}} {
			if v, err := intervalRange(lit, r[0], r[1]); err == nil {
				return v
			}
		}
		// No BigQuery interval text: DuckDB would read '1' as a second and
		// 'P1' as something, where BigQuery fails (SAFE_CAST: NULL).
		if safe {
			return "CAST(NULL AS INTERVAL)"
		}
		e.invalid(c.it, "Invalid INTERVAL value: %s", duckString(lit))
		return ""
	}
	if lit, isLit := e.literalString(a[:as]); isLit && invalidCivilText(base, lit) {
		// Text DuckDB reads but BigQuery refuses ('24:00:00', a DATETIME
		// with a zone).
		if safe {
			return "CAST(NULL AS " + duck + ")"
		}
		e.invalid(c.it, "Invalid %s string %q", strings.ToLower(base), lit)
		return ""
	}
	if base == "BIGNUMERIC" || base == "BIGDECIMAL" {
		lit, isLit := e.literalString(a[:as])
		if !isLit {
			lit, isLit = numberLiteral(a[:as])
		}
		if isLit && bigNumericTooPrecise(lit) {
			e.unsupported(c.it, "BIGNUMERIC values of more than 18 decimal digits are not supported")
			return ""
		}
	}
	x := e.text(a[:as])
	if base == "NUMERIC" || base == "BIGNUMERIC" {
		// A number literal would pass through DOUBLE and lose digits past
		// the 16th; its text converts exactly.
		if lit, ok := numberLiteral(a[:as]); ok {
			x = "'" + lit + "'"
		}
	}
	if _, lit := numberLiteral(a[:as]); !lit && (base == "NUMERIC" || base == "DECIMAL") && baseType(e.exprType(a[:as])) == "FLOAT64" {
		// A FLOAT64 converts by its exact value (bq_float_to_numeric); a
		// NUMERIC(P, S) is that NUMERIC rounded to S decimals and checked
		// against P digits.
		conv := "bq_float_to_numeric(" + x + ")"
		if safe {
			conv = "bq_safe_float_to_numeric(" + x + ")"
		}
		switch {
		case duck == "DECIMAL(38, 9)":
			return conv
		case safe:
			return "TRY_CAST(" + conv + " AS " + duck + ")"
		}
		return "CAST(" + conv + " AS " + duck + ")"
	}
	switch base {
	case "STRING":
		if safe {
			return "bq_safe_cast_to_string(" + x + ")"
		}
		return "bq_cast_to_string(" + x + ")"
	case "BYTES":
		// Every STRING has its UTF-8 bytes, so SAFE_CAST is the same.
		return "bq_cast_to_bytes(" + x + ")"
	case "INT64", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT":
		if safe {
			return "bq_try_to_int64(" + x + ")"
		}
		return "bq_to_int64(" + x + ")"
	}
	if safe && base == "ARRAY" {
		// BigQuery's SAFE_CAST of an array is NULL when any element fails,
		// DuckDB's TRY_CAST NULLs that element only.
		return "bq_safe_cast_list(" + x + ", TRY_CAST(" + x + " AS " + duck + "))"
	}
	if safe {
		return "TRY_CAST(" + x + " AS " + duck + ")"
	}
	return "CAST(" + x + " AS " + duck + ")"
}

// numberLiteral returns the text of an optionally negated number literal.
func numberLiteral(items []*item) (string, bool) {
	sign := ""
	if len(items) == 2 && items[0].isPunct("-") {
		sign, items = "-", items[1:]
	}
	if len(items) != 1 || items[0].tok.Kind != Number || items[0].synthetic() || items[0].group ||
		strings.ContainsAny(items[0].tok.Text, "xX") { // hexadecimal: DuckDB's decimal cast cannot read it
		return "", false
	}
	return sign + items[0].tok.Text, true
}
