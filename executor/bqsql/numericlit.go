package bqsql

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// BigQuery coerces a FLOAT64 literal to NUMERIC (BIGNUMERIC) where it meets
// a NUMERIC (BIGNUMERIC) value in one column of a set operation or one
// array literal: SELECT CAST(NULL AS NUMERIC) UNION ALL SELECT 0.01 is a
// NUMERIC column, [CAST(1 AS NUMERIC), 1.5] an ARRAY<NUMERIC>. The bridge
// writes FLOAT64 literals as DOUBLE, which DuckDB's supertype rules then
// impose on the whole column; numericLiterals writes them as the DECIMAL
// instead, where every other value's type is known to allow it.

// numericSetOpLiterals applies numericLiterals to each column of every set
// operation in items: the scan of a query the statement model could not
// read (the model notes these literals itself, noteNumericLiterals, and the
// emitter writes them, emitter.numberLit).
func (e *emitter) numericSetOpLiterals(items []*item) {
	for _, it := range items {
		if it.group {
			e.numericSetOpLiterals(it.kids)
		}
	}
	branches, ops := setBranches(items)
	if len(ops) == 0 {
		return
	}
	var cols [][][]*item
	for b, br := range branches {
		sel := indexWord(br, "SELECT")
		if sel < 0 {
			return
		}
		k, end := selectList(br, sel)
		for c, expr := range splitTop(br[k:end]) {
			if b == 0 {
				cols = append(cols, nil)
			}
			if c >= len(cols) {
				return
			}
			cols[c] = append(cols[c], withoutAlias(expr))
		}
	}
	for _, col := range cols {
		if len(col) == len(branches) {
			e.numericLiterals(col)
		}
	}
}

// withoutAlias strips "AS name" or an implicit alias from a select item.
func withoutAlias(expr []*item) []*item {
	n := len(expr)
	switch {
	case n >= 3 && expr[n-2].is("AS"):
		return expr[:n-2]
	case n >= 2 && isName(expr[n-1]) && (expr[n-2].group || expr[n-2].tok.Kind == Number || expr[n-2].tok.Kind == String):
		return expr[:n-1]
	}
	return expr
}

// plainDecimal is a literal numericLiterals rewrites: digits with a
// decimal point, no exponent.
var plainDecimal = regexp.MustCompile(`^([0-9]*)\.([0-9]*)$`)

// numericLiterals rewrites, among exprs (the values of one column or one
// array), the FLOAT64 literals to NUMERIC or BIGNUMERIC when some value is
// of that type and every other is INT64, NUMERIC, BIGNUMERIC, NULL or a
// literal. A literal with more digits than the type holds is left alone.
func (e *emitter) numericLiterals(exprs [][]*item) {
	target := ""
	var lits [][]*item
	for _, x := range exprs {
		if len(x) == 1 && x[0].is("NULL") {
			continue
		}
		t := e.exprType(x)
		if t == "lit:FLOAT64" {
			lits = append(lits, x)
			continue
		}
		var ok bool
		if target, ok = numericTarget(target, baseType(t)); !ok {
			return
		}
	}
	if target != "" {
		decimalLiterals(lits, target)
	}
}

// numericTarget is the type a column's FLOAT64 literals take so far,
// target, after a value of type t that is not one: t's NUMERIC or
// BIGNUMERIC (the wider), unchanged for INT64, and not ok for any other
// type, which leaves the literals FLOAT64.
func numericTarget(target, t string) (string, bool) {
	switch t {
	case "INT64":
	case "NUMERIC":
		if target == "" {
			target = t
		}
	case "BIGNUMERIC":
		target = t
	default:
		return target, false
	}
	return target, true
}

// typedArrayLiterals writes the FLOAT64 literals among the elements of
// ARRAY<NUMERIC>[…] or ARRAY<BIGNUMERIC>[…] as that type: the elements are
// coerced, not first rounded to FLOAT64 (1.234567890123456789 keeps its
// digits).
func (e *emitter) typedArrayLiterals(elems [][]*item, duck string) {
	target := map[string]string{"DECIMAL(38, 9)[]": "NUMERIC", "DECIMAL(38, 18)[]": "BIGNUMERIC"}[duck]
	if target == "" {
		return
	}
	var lits [][]*item
	for _, x := range elems {
		if e.exprType(x) == "lit:FLOAT64" {
			lits = append(lits, x)
		}
	}
	decimalLiterals(lits, target)
}

// decimalLiterals rewrites FLOAT64 literals (a number, perhaps signed) as
// the DECIMAL standing for target, NUMERIC or BIGNUMERIC.
func decimalLiterals(lits [][]*item, target string) {
	for _, x := range lits {
		num, sign := x[len(x)-1], ""
		if len(x) == 2 {
			sign = strings.TrimPrefix(x[0].tok.Text, "+")
		}
		d, ok := decimalLiteral(sign+num.tok.Text, target)
		if !ok {
			continue
		}
		x[0] = &item{isRaw: true, raw: d, tok: x[0].tok, sp: x[0].sp, nl: x[0].nl}
		if len(x) == 2 {
			x[1] = &item{isRaw: true, tok: num.tok}
		}
	}
}

// decimalLiteral writes the FLOAT64 literal text v (perhaps signed) as the
// DECIMAL standing for target, NUMERIC or BIGNUMERIC, unless it is no plain
// decimal or has more digits than the type holds.
func decimalLiteral(v, target string) (string, bool) {
	duck, scale, whole := "DECIMAL(38, 9)", 9, 29
	if target == "BIGNUMERIC" {
		duck, scale, whole = "DECIMAL(38, 18)", 18, 20
	}
	m := plainDecimal.FindStringSubmatch(strings.TrimPrefix(v, "-"))
	if m == nil || len(m[2]) > scale || len(strings.TrimLeft(m[1], "0")) > whole {
		return "", false
	}
	return "CAST('" + v + "' AS " + duck + ")", true
}

// bigNumericTooPrecise reports whether the number text v (a decimal, or
// with an exponent: 1e-29) has a non-zero digit past the 18th after its
// point: BigQuery's BIGNUMERIC keeps 38 decimals, the engine's
// DECIMAL(38, 18) would round them away.
func bigNumericTooPrecise(v string) bool {
	v = strings.TrimSpace(v)
	if len(v) > 200 {
		return false // past any BIGNUMERIC: DuckDB's cast refuses it
	}
	if k := strings.IndexAny(v, "eE"); k >= 0 {
		// Bound the exponent before big.Rat computes 10^exp: a hostile
		// 1e999999999 must not cost memory. Past ±100 the value is out of
		// BIGNUMERIC's range or rounds to 0 in both engines.
		if exp, err := strconv.Atoi(v[k+1:]); err != nil || exp > 100 || exp < -100 {
			return false
		}
	}
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return false // not a number: DuckDB's cast refuses it
	}
	return !r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))).IsInt()
}
