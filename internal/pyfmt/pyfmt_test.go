package pyfmt

import (
	"math"
	"testing"
)

func TestFloat(t *testing.T) {
	// Expected strings are Python 3 repr() output.
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1.5, "-1.5"},
		{0.1, "0.1"},
		{1234567, "1234567.0"},
		{123456789, "123456789.0"},
		{1e15, "1000000000000000.0"},
		{1e16, "1e+16"},
		{12345678901234567, "1.2345678901234568e+16"},
		{0.0001, "0.0001"},
		{0.00001, "1e-05"},
		{1.5e-7, "1.5e-07"},
		{2.675, "2.675"},
		{1e100, "1e+100"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{3.5505335661621964, "3.5505335661621964"},
		{20.625000000000004, "20.625000000000004"},
	} {
		if got := Float(tc.in); got != tc.want {
			t.Errorf("Float(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRound(t *testing.T) {
	// Expected values are Python 3 round(x, 3).
	for _, tc := range []struct {
		in, want float64
	}{
		{2.675, 2.675},
		{0.0625, 0.062},
		{0.0005, 0.001},
		{1.0005, 1.0},
		{123456789.0, 123456789.0},
		{-0.0001, math.Copysign(0, -1)},
	} {
		got := Round(tc.in, 3)
		if got != tc.want || math.Signbit(got) != math.Signbit(tc.want) {
			t.Errorf("Round(%v, 3) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
