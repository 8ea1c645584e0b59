package pyfmt

import (
	"math"
	"strconv"
	"testing"
)

// FuzzFloat checks that Float round-trips: Python repr is the shortest
// string that parses back to the same float.
func FuzzFloat(f *testing.F) {
	for _, x := range []float64{0, 1, 0.1, 1e16, 1e-5, 123456789, -2.5e-300} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		s := Float(x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != x || math.Signbit(back) != math.Signbit(x) {
			t.Fatalf("Float(%v) = %q does not round-trip", x, s)
		}
	})
}
