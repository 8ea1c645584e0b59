package bqsql

import "strings"

// BigQuery has no equality on ARRAYs: [1, 2] = [1, 2] is its analysis
// error "Equality is not defined for arguments of type ARRAY<INT64>"
// (ZetaSQL's ARRAY_EQUALITY feature, which BigQuery does not enable).
// DuckDB compares lists and takes NULL elements as equal, so the query ran
// and answered TRUE where ZetaSQL's semantics would give NULL. Only
// operands that are certainly arrays are checked: an array literal
// ([…], ARRAY[…], ARRAY<T>[…]), ARRAY(subquery) or a CAST to an ARRAY type.

// checkArrayEquality rejects =, != and <> with an array operand.
func (e *emitter) checkArrayEquality(items []*item) {
	for i, it := range items {
		if e.err != nil {
			return
		}
		if it.group {
			e.checkArrayEquality(it.kids)
			continue
		}
		if it.tok.Kind != Punct || it.synthetic() || (it.tok.Text != "=" && it.tok.Text != "!=" && it.tok.Text != "<>") {
			continue
		}
		l, lok := e.arrayOperand(operandBefore(items, i))
		r, rok := e.arrayOperand(operandAfter(items, i))
		if !lok && !rok {
			continue
		}
		t := l
		if t == "ARRAY" || t == "" {
			t = r
		}
		if t == "" {
			t = "ARRAY"
		}
		e.invalid(it, "Equality is not defined for arguments of type %s", t)
		return
	}
}

// operandEnd reports whether it ends a comparison's operand: a comma, a
// comparison or logical operator, or a reserved word other than those an
// array operand starts with.
func operandEnd(it *item) bool {
	if it == nil || it.synthetic() {
		return true
	}
	if it.group {
		return false
	}
	switch it.tok.Kind {
	case Punct:
		switch it.tok.Text {
		case ",", ";", "=", "!=", "<>", "<=", ">=", "+", "-", "*", "/", "||":
			return true
		}
		return false
	case Ident:
		return bqReserved[it.upper()] && !it.is("ARRAY") && !it.is("CAST") && !it.is("SAFE_CAST")
	}
	return false
}

// operandBefore returns the items of the operand left of items[i].
func operandBefore(items []*item, i int) []*item {
	s := i
	for s > 0 && !operandEnd(items[s-1]) {
		s--
	}
	return items[s:i]
}

// operandAfter returns the items of the operand right of items[i].
func operandAfter(items []*item, i int) []*item {
	t := i + 1
	for t < len(items) && !operandEnd(items[t]) {
		t++
	}
	return items[i+1 : t]
}

// arrayOperand reports whether op is certainly an ARRAY and, where known,
// its type as BigQuery names it ("ARRAY" when the element type is not).
func (e *emitter) arrayOperand(op []*item) (string, bool) {
	n := len(op)
	switch {
	case n == 0:
		return "", false
	case n == 1 && op[0].isGroup("["):
		// [a, b, …]: typed by its first element of known type.
		for _, el := range splitTop(op[0].kids) {
			if t := baseType(e.exprType(el)); t != "" {
				return "ARRAY<" + t + ">", true
			}
		}
		return "ARRAY", true
	case n == 2 && op[0].is("ARRAY") && op[1].isGroup("["):
		// ARRAY[a, b, …].
		return e.arrayOperand(op[1:])
	case n == 2 && op[0].is("ARRAY") && op[1].isGroup("(") && isSubquery(op[1]):
		return "ARRAY", true
	case n >= 4 && op[0].is("ARRAY") && op[1].isPunct("<") && op[n-1].isGroup("["):
		return "ARRAY<" + strings.ToUpper(textOf(op[2:n-2])) + ">", op[n-2].isPunct(">")
	case n == 2 && (op[0].is("CAST") || op[0].is("SAFE_CAST")) && op[1].isGroup("("):
		k := op[1].kids
		for j := len(k) - 1; j > 0; j-- {
			if k[j].is("AS") {
				if at(k, j+1).is("ARRAY") {
					return "ARRAY" + strings.ToUpper(textOf(k[j+2:])), true
				}
				break
			}
		}
	}
	return "", false
}

// textOf writes plain tokens without spaces (a type's name: INT64,
// STRUCT<a INT64> is not expected here).
func textOf(items []*item) string {
	var b strings.Builder
	for _, it := range items {
		if it.group {
			return ""
		}
		b.WriteString(it.tok.Text)
	}
	return b.String()
}
