package bqsql

import (
	"database/sql/driver"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// ROUND(FLOAT64, digits) rounds the double's own value, read as an exact
// real number, to a multiple of 10^-digits, halfway cases away from zero,
// and returns the double nearest that (mathematical functions reference,
// ROUND; GoogleSQL computes it in extended precision). DuckDB's round(x, d)
// scales x by 10^d in double arithmetic first, and that product can land
// on a tie the value is not on: 0.015 is 0.01499999…944 as a double, so
// BigQuery's ROUND(0.015, 2) is 0.01 while DuckDB's product 1.5 gives 0.02
// (so did the bridge's earlier detour through DECIMAL(38, 20), whose
// conversion scales the same way).
//
// The prelude's ROUND macros keep DuckDB's round where the scaled value is
// clear of a tie, where it is exact, and call roundExactFunc, this exact
// computation in Go, where it is within a few units in the last place of
// one, or where the scaled value is too large for the product to be exact
// (at or past 2^52), or where the result may overflow.
const roundExactFunc = "bq_round_exact"

// roundExact is ROUND(x, digits) for a FLOAT64 x: exact, half away from
// zero, the nearest double to the rounded value; an error where that is
// past the largest double (BigQuery's floating point overflow).
func roundExact(x float64, digits int64) (float64, error) {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x, nil
	}
	switch {
	case digits > 1100:
		// Past the last decimal digit any double has (2^-1074 has 1074).
		return x, nil
	case digits < -400:
		// Past the first (the largest double is below 10^309).
		return 0, nil
	}
	v := new(big.Rat).SetFloat64(x)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(digits)), nil)
	if digits >= 0 {
		v.Mul(v, new(big.Rat).SetInt(scale))
	} else {
		v.Quo(v, new(big.Rat).SetInt(scale))
	}
	neg := v.Sign() < 0
	num := new(big.Int).Abs(v.Num())
	q, rem := new(big.Int).QuoRem(num, v.Denom(), new(big.Int))
	if rem.Lsh(rem, 1).Cmp(v.Denom()) >= 0 { // the remainder is half or more
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	r := new(big.Rat).SetInt(q)
	if digits >= 0 {
		r.Quo(r, new(big.Rat).SetInt(scale))
	} else {
		r.Mul(r, new(big.Rat).SetInt(scale))
	}
	f, _ := r.Float64() // the nearest float64
	if math.IsInf(f, 0) {
		return 0, fmt.Errorf("Floating point overflow in function: ROUND(%s, %d)", strconv.FormatFloat(x, 'g', -1, 64), digits)
	}
	return f, nil
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// roundFunction is roundExact as a Go function translated SQL calls.
func roundFunction() Function {
	return Function{Name: roundExactFunc, Params: []string{"DOUBLE", "BIGINT"}, Result: "DOUBLE", Eval: func(v []driver.Value) (any, error) {
		return roundExact(v[0].(float64), v[1].(int64))
	}}
}

// roundMacros are the clear cases of ROUND(x, d) of a FLOAT64 x:
// bq_round_<d> for each literal d the translator names (roundMacro), and
// bq_round_n for digits only known as the query runs. y is |x| scaled to
// the digit to round at; DuckDB's round is exact where y is finite, below
// 2^52 (so its fraction is representable) and more than a few units in its
// last place from a half: the scaling's error is at most one. Elsewhere, or
// where |x| plus half the rounding unit nears the largest double and the
// rounded value may overflow (BigQuery's error), a macro gives NULL and
// the translation calls roundExactFunc on that row (roundCall): the prelude
// cannot name a Go function, which the engine registers after it.
func roundMacros() string {
	var b []byte
	clear := func(y, half, fast string) string {
		return "CASE WHEN NOT isfinite(" + y + ") OR " + y + " >= 4503599627370496 OR abs(" + y + " - floor(" + y + ") - 0.5) <= " + y + " * 1e-15" +
			" OR abs(x) + " + half + " > 1.7e308 THEN NULL ELSE " + fast + " END"
	}
	for d := minRoundDigits; d <= maxRoundDigits; d++ {
		b = fmt.Appendf(b, "CREATE OR REPLACE TEMP MACRO %s(x DOUBLE) AS %s;\n", roundMacro(d),
			clear(fmt.Sprintf("(abs(x) * 1e%d)", d), fmt.Sprintf("5e%d", -d-1), fmt.Sprintf("round(x, %d)", d)))
	}
	b = fmt.Appendf(b, "CREATE OR REPLACE TEMP MACRO bq_round_n(x DOUBLE, d BIGINT) AS CASE WHEN d > 400 OR d < -400 THEN NULL ELSE %s END;\n",
		clear("(abs(x) * pow(10, d))", "0.5 * pow(10, -d)", "round(x, CAST(d AS INTEGER))"))
	return string(b)
}

// roundCall is ROUND(x, digits) of a FLOAT64 x, x and digits translated
// SQL (x written twice): the macro's value where it is clear, else the
// exact one. COALESCE evaluates its second argument only on the rows whose
// first is NULL; where x itself is NULL both are.
func roundCall(macro, x, digits string) string {
	return "COALESCE(" + macro + ", " + roundExactFunc + "(" + x + ", " + digits + "))"
}
