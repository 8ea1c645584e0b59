package bqsql

import (
	"strconv"
	"strings"
)

// BigQuery compares STRUCTs field by field, in order, ignoring names: FALSE
// if a pair of non-NULL fields differs, else NULL if any field is NULL,
// else TRUE (the three-valued AND of the field comparisons). DuckDB
// compares STRUCTs by field name and takes NULL fields as equal, so
// CASE s WHEN STRUCT(NULL, 2) matches s = (NULL, 2) and
// STRUCT(3 AS a) = STRUCT(3 AS c) is false. Where one side is a STRUCT
// literal, a tuple (a, b) or STRUCT(…), its fields are known and the
// comparison is written out field by field with struct_extract_at, which
// reads the other side by position. Comparisons of two STRUCTs of unknown
// shape keep DuckDB's comparison.

// structFields returns the field expressions of a STRUCT literal at
// items[i] and how many items it spans, or nil.
func structFields(items []*item, i int) ([][]*item, int) {
	it := at(items, i)
	switch {
	case it.isGroup("(") && !isSubquery(it):
		if f := splitTop(it.kids); len(f) > 1 {
			return f, 1
		}
	case it.is("STRUCT") && at(items, i+1).isGroup("("):
		f := splitTop(at(items, i+1).kids)
		for k, el := range f {
			if n := len(el); n >= 3 && el[n-2].is("AS") {
				f[k] = el[:n-2]
			}
			if len(f[k]) == 0 {
				return nil, 0
			}
		}
		if len(f) > 0 {
			return f, 2
		}
	}
	return nil, 0
}

// fieldwiseEq is BigQuery's op = STRUCT(fields…); op is translated text
// that must be safe to repeat.
func (e *emitter) fieldwiseEq(op string, fields [][]*item) string {
	return e.fieldwise(op, fields, "=")
}

// fieldwiseNotDistinct is BigQuery's op IS NOT DISTINCT FROM
// STRUCT(fields…): op is not NULL (a STRUCT literal never is) and no field
// pair is distinct.
func (e *emitter) fieldwiseNotDistinct(op string, fields [][]*item) string {
	return "(" + op + " IS NOT NULL AND " + e.fieldwise(op, fields, "IS NOT DISTINCT FROM") + ")"
}

// fieldwise compares op with STRUCT(fields…) field by field, by position,
// with cmp; a nested STRUCT literal compares field by field too.
func (e *emitter) fieldwise(op string, fields [][]*item, cmp string) string {
	parts := make([]string, len(fields))
	for k, f := range fields {
		field := "struct_extract_at(" + op + ", " + strconv.Itoa(k+1) + ")"
		switch sub, n := structFields(f, 0); {
		case sub != nil && n == len(f) && cmp == "=":
			parts[k] = e.fieldwiseEq(field, sub)
		case sub != nil && n == len(f):
			parts[k] = e.fieldwiseNotDistinct(field, sub)
		default:
			parts[k] = field + " " + cmp + " (" + e.text(f) + ")"
		}
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// structOperands finds, around the comparison operator at items[i], a
// STRUCT literal on one side and a repeatable operand on the other: the
// operand, the literal's fields and the span [start, end) to replace.
func structOperands(items []*item, i int) (op []*item, fields [][]*item, start, end int, ok bool) {
	ls := primaryStart(items, i-1)
	if i == 0 || ls < 0 {
		return nil, nil, 0, 0, false
	}
	if rf, rn := structFields(items, i+1); rf != nil && repeatable(items[ls:i]) {
		return items[ls:i], rf, ls, i + 1 + rn, true
	}
	lf, ln := structFields(items, ls)
	re := primaryEnd(items, i+1)
	if lf == nil || ln != i-ls || re < 0 || !repeatable(items[i+1:re+1]) {
		return nil, nil, 0, 0, false
	}
	return items[i+1 : re+1], lf, ls, re + 1, true
}

// repeatable reports whether an operand can be evaluated more than once:
// a name, a path or a call without subqueries or RAND.
func repeatable(el []*item) bool {
	if len(el) == 0 || len(el) > 2 {
		return false
	}
	if len(el) == 2 && !(el[1].isGroup("(") && (el[0].path != nil || el[0].tok.Kind == Ident)) {
		return false
	}
	var volatile func(seq []*item) bool
	volatile = func(seq []*item) bool {
		for _, it := range seq {
			if it.is("RAND") || it.is("GENERATE_UUID") || it.is("SELECT") || (it.group && volatile(it.kids)) {
				return true
			}
		}
		return false
	}
	return !volatile(el)
}

// structComparisons rewrites, in one sibling sequence, op = STRUCT(…) and
// op != STRUCT(…) (either side), op IS [NOT] DISTINCT FROM STRUCT(…)
// (either side), op [NOT] IN (STRUCT(…), …), NULLIF(op, STRUCT(…)) and
// CASE op WHEN STRUCT(…) … into field-by-field comparisons.
func (e *emitter) structComparisons(items []*item) []*item {
	for i := 0; i < len(items); i++ {
		it := items[i]
		switch {
		case it.isPunct("=") || it.isPunct("!=") || it.isPunct("<>"):
			op, fields, ls, end, ok := structOperands(items, i)
			if !ok {
				continue
			}
			text := e.fieldwiseEq(e.text(op), fields)
			if !it.isPunct("=") {
				text = "(NOT " + text + ")"
			}
			items = e.replaceRaw(items, ls, end, text)
			i = ls
		case isDistinctFromOp(it):
			// IS [NOT] DISTINCT FROM compares STRUCTs field by field too,
			// ignoring names, with NULL not distinct from NULL (operators
			// reference, IS DISTINCT FROM; comparison of STRUCTs).
			op, fields, ls, end, ok := structOperands(items, i)
			if !ok {
				continue
			}
			text := e.fieldwiseNotDistinct(e.text(op), fields)
			if it.raw == "IS DISTINCT FROM" {
				text = "(NOT " + text + ")"
			}
			items = e.replaceRaw(items, ls, end, text)
			i = ls
		case it.is("IN") && at(items, i+1).is("UNNEST") && at(items, i+2).isGroup("("):
			// STRUCT(…) [NOT] IN UNNEST(array): compared with each element
			// field by field; TRUE if one is equal, else NULL if one
			// comparison is NULL, else FALSE (also for no elements).
			neg := at(items, i-1).is("NOT")
			opEnd := i
			if neg {
				opEnd = i - 1
			}
			if opEnd == 0 {
				continue
			}
			ls := primaryStart(items, opEnd-1)
			f, n := structFields(items, ls)
			if f == nil || n != opEnd-ls {
				continue
			}
			text := "(SELECT CASE WHEN bool_or(bq_m) THEN TRUE WHEN bool_or(bq_m IS NULL) THEN NULL ELSE FALSE END FROM (SELECT " +
				e.fieldwiseEq("bq_u.bq_p", f) + " AS bq_m FROM unnest(" + e.text(at(items, i+2).kids) + ") AS bq_u(bq_p)))"
			if neg {
				text = "(NOT " + text + ")"
			}
			items = e.replaceRaw(items, ls, i+3, text)
			i = ls
		case it.is("IN") && at(items, i+1).isGroup("(") && !isSubquery(at(items, i+1)):
			ls := primaryStart(items, i-1)
			neg := at(items, i-1).is("NOT")
			if neg {
				ls = primaryStart(items, i-2)
			}
			if i == 0 || ls < 0 || (neg && i < 2) {
				continue
			}
			opEnd := i
			if neg {
				opEnd = i - 1
			}
			op := items[ls:opEnd]
			list := splitTop(at(items, i+1).kids)
			var ors []string
			for _, el := range list {
				f, n := structFields(el, 0)
				if f == nil || n != len(el) {
					ors = nil
					break
				}
				ors = append(ors, e.fieldwiseEq(e.text(op), f))
			}
			if len(ors) == 0 || !repeatable(op) {
				continue
			}
			text := "(" + strings.Join(ors, " OR ") + ")"
			if neg {
				text = "(NOT " + text + ")"
			}
			items = e.replaceRaw(items, ls, i+2, text)
			i = ls
		case it.is("NULLIF") && at(items, i+1).isGroup("("):
			args := splitTop(at(items, i+1).kids)
			if len(args) != 2 || !repeatable(args[0]) {
				continue
			}
			f, n := structFields(args[1], 0)
			if f == nil || n != len(args[1]) {
				continue
			}
			op := e.text(args[0])
			items = e.replaceRaw(items, i, i+2, "(CASE WHEN "+e.fieldwiseEq(op, f)+" THEN NULL ELSE "+op+" END)")
		case it.is("CASE"):
			items = e.structCase(items, i)
		}
	}
	return items
}

// structCase rewrites CASE op WHEN v THEN … END, where some v is a STRUCT
// literal, into a searched CASE comparing field by field there (a nested
// CASE is left alone). It returns the new sequence.
func (e *emitter) structCase(items []*item, c int) []*item {
	// Find the operand, the WHEN/THEN/ELSE parts and END at this level.
	k := c + 1
	for k < len(items) && !items[k].is("WHEN") {
		if items[k].is("CASE") || items[k].is("END") {
			return items
		}
		k++
	}
	op := items[c+1 : k]
	if len(op) == 0 || !repeatable(op) {
		return items
	}
	var b strings.Builder
	b.WriteString("CASE")
	found := false
	opText := ""
	for k < len(items) && items[k].is("WHEN") {
		start := k + 1
		for k = start; k < len(items) && !items[k].is("THEN"); k++ {
			if items[k].is("CASE") || items[k].is("END") {
				return items
			}
		}
		if k == len(items) {
			return items
		}
		val := items[start:k]
		rstart := k + 1
		for k = rstart; k < len(items) && !items[k].is("WHEN") && !items[k].is("ELSE") && !items[k].is("END"); k++ {
			if items[k].is("CASE") {
				return items
			}
		}
		if opText == "" {
			opText = e.text(op)
		}
		if f, n := structFields(val, 0); f != nil && n == len(val) {
			found = true
			b.WriteString(" WHEN " + e.fieldwiseEq(opText, f))
		} else {
			b.WriteString(" WHEN (" + opText + ") = (" + e.text(val) + ")")
		}
		b.WriteString(" THEN " + e.text(items[rstart:k]))
	}
	if !found {
		return items
	}
	if at(items, k).is("ELSE") {
		rstart := k + 1
		for k = rstart; k < len(items) && !items[k].is("END"); k++ {
			if items[k].is("CASE") {
				return items
			}
		}
		b.WriteString(" ELSE " + e.text(items[rstart:k]))
	}
	if !at(items, k).is("END") {
		return items
	}
	b.WriteString(" END")
	return e.replaceRaw(items, c, k+1, b.String())
}

// replaceRaw replaces items[from:to] by one raw node of text.
func (e *emitter) replaceRaw(items []*item, from, to int, text string) []*item {
	node := &item{tok: items[from].tok, nl: items[from].nl, sp: items[from].sp, isRaw: true, raw: text}
	rest := append([]*item{node}, items[to:]...)
	return append(items[:from:from], rest...)
}

// structCtorArgs returns the fields of an array element that constructs a
// STRUCT, STRUCT(…) or a tuple (a, b), or nil. A tuple is a STRUCT with
// anonymous fields; written as DuckDB's unnamed row inside an array, its
// values cannot be read back (the driver refuses empty field names), so
// arrayLiteral names them as BigQuery does.
func structCtorArgs(el []*item) [][]*item {
	switch {
	case len(el) == 2 && el[0].is("STRUCT") && el[1].isGroup("("):
		if f := splitTop(el[1].kids); f != nil {
			return f
		}
		return [][]*item{}
	case len(el) == 1 && el[0].isGroup("(") && !isSubquery(el[0]):
		if f := splitTop(el[0].kids); len(f) > 1 {
			return f
		}
	}
	return nil
}

// quantifiedLikeRows is x [NOT] LIKE ANY|ALL over the patterns of a table
// expression (UNNEST(array) or a subquery of one column): ANY is TRUE if a
// pattern matches, else NULL if a comparison is NULL, else FALSE (so FALSE
// for no patterns, even for a NULL x); ALL is FALSE if one fails, else NULL
// if one is NULL, else TRUE. A pattern escapes with a backslash, as
// BigQuery's LIKE does, and one that ends in a lone backslash is an error.
func quantifiedLikeRows(x, op string, all bool, from string, bytes bool) string {
	p := "bq_like_pattern(bq_p)"
	if bytes {
		x, p = bytesText(x), bytesText("bq_p")
	}
	m := "(" + x + " " + op + " " + p + ` ESCAPE '\')`
	decide := "CASE WHEN bool_or(bq_m) THEN TRUE WHEN bool_or(bq_m IS NULL) THEN NULL ELSE FALSE END"
	if all {
		decide = "CASE WHEN bool_or(NOT bq_m) THEN FALSE WHEN bool_or(bq_m IS NULL) THEN NULL ELSE TRUE END"
	}
	return "(SELECT " + decide + " FROM (SELECT " + m + " AS bq_m FROM " + from + " AS bq_u(bq_p)))"
}
