package bqsql

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// roundExact rounds the double's exact value, halfway cases away from
// zero (mathematical functions reference, ROUND), to the nearest double;
// past the largest double it is BigQuery's floating point overflow.
func TestRoundExact(t *testing.T) {
	cases := []struct {
		x      float64
		digits int64
		want   float64
		err    bool
	}{
		// Decimal ties a double is not on: its value decides.
		{0.015, 2, 0.01, false}, // 0.01499999999999999944…
		{1.115, 2, 1.11, false}, // 1.11499999999999999111…
		{2.675, 2, 2.67, false}, // 2.67499999999999982236…
		{1.235, 2, 1.24, false}, // 1.23500000000000009769… (the reference's example)
		{-0.015, 2, -0.01, false},
		// Ties a double is on: away from zero.
		{0.125, 2, 0.13, false},
		{-0.125, 2, -0.13, false},
		{2.5, 0, 3, false},
		{-2.5, 0, -3, false},
		{314159.25, -2, 314200, false},
		{314159.25, -3, 314000, false},
		{3.1415925, 3, 3.142, false},
		// Digits past any double's.
		{3.1415925, math.MaxInt64, 3.1415925, false},
		{3.1415925, math.MinInt64, 0, false},
		{1.6e308, 308, 1.6e308, false},
		{1.6e308, -309, 0, false},
		{4.94e-324, 324, 4.94e-324, false},
		{4.94e-324, 323, 0, false},
		// Rounding up past the largest double.
		{1.6e308, -308, 0, true},
		{0, 5, 0, false},
	}
	for _, c := range cases {
		got, err := roundExact(c.x, c.digits)
		if (err != nil) != c.err || (err == nil && got != c.want) {
			t.Errorf("roundExact(%v, %d) = %v, %v; want %v (error %v)", c.x, c.digits, got, err, c.want, c.err)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, err := roundExact(x, 2); err != nil || !(got == x || math.IsNaN(got) && math.IsNaN(x)) {
			t.Errorf("roundExact(%v, 2) = %v, %v; want the value", x, got, err)
		}
	}
}

// ROUND in translated SQL takes DuckDB's round where the scaled value is
// clear of a tie and the exact computation elsewhere: over decimal ties,
// values near and on binary ties, large and tiny values, each literal digit
// count and a digit count known only as the query runs, it gives what
// roundExact gives.
func TestRoundMatchesExact(t *testing.T) {
	db := openDuck(t)
	r := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for i := 0; i < 400; i++ {
		// Three-decimal values ending in 5, the ties of ROUND(x, 2).
		xs = append(xs, float64(r.IntN(2000000)*10+5)/1000*float64(1-2*r.IntN(2)))
	}
	for i := 0; i < 200; i++ {
		xs = append(xs, r.NormFloat64()*math.Pow(10, float64(r.IntN(30)-10)))
	}
	xs = append(xs, 0.125, 2.5, -2.5, 4503599627370497, 1e300, 5e-324, 1.7976931348623157e308)
	lits := make([]string, len(xs))
	for i, x := range xs {
		lits[i] = fmt.Sprintf("CAST('%v' AS FLOAT64)", x)
	}
	for _, d := range []int64{-15, -2, -1, 0, 1, 2, 3, 6, 12, 20} {
		q := fmt.Sprintf("SELECT ROUND(x, %d), ROUND(x, n) FROM UNNEST([%s]) AS x WITH OFFSET o, UNNEST([%d]) AS n ORDER BY o", d, strings.Join(lits, ", "), d)
		duck, err := Translate(q)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.QueryContext(context.Background(), duck)
		if err != nil {
			t.Fatalf("digits %d: %v", d, err)
		}
		i := 0
		for rows.Next() {
			var lit, run float64
			if err := rows.Scan(&lit, &run); err != nil {
				t.Fatal(err)
			}
			want, err := roundExact(xs[i], d)
			if err != nil {
				t.Fatal(err)
			}
			if lit != want || run != want {
				t.Errorf("ROUND(%v, %d) = %v (literal digits), %v (digits as the query runs); want %v", xs[i], d, lit, run, want)
			}
			i++
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("digits %d: %v", d, err)
		}
		rows.Close()
		if i != len(xs) {
			t.Fatalf("digits %d: %d rows, want %d", d, i, len(xs))
		}
	}
}

// ROUND's rule cases through the engine: the decimal ties, BigQuery's
// overflow error, and a NULL.
func TestRoundRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "ties the double is not on", bq: `SELECT ROUND(x, 2) FROM UNNEST([0.015, 1.115, 2.675, 1.235, -0.015]) AS x WITH OFFSET o ORDER BY o`,
			want: "0.01\n1.11\n2.67\n1.24\n-0.01"},
		{name: "an aggregate's value", bq: `SELECT ROUND(AVG(x), 2) FROM UNNEST([0.01, 0.02]) AS x`, want: "0.01"},
		{name: "past the largest double", bq: `SELECT ROUND(x, -308) FROM UNNEST([1.6e308]) AS x`, err: errRuntime},
		{name: "NULL", bq: `SELECT ROUND(CAST(NULL AS FLOAT64), 2), ROUND(1.5, CAST(NULL AS INT64))`, want: "NULL | NULL"},
	})
}
