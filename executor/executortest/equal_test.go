package executortest

import (
	"math/big"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
)

func TestEqualValue(t *testing.T) {
	utc := time.Date(2150, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name string
		a, b any
		want bool
	}{
		{"rat by value", big.NewRat(1, 2), big.NewRat(2, 4), true},
		{"rat differs", big.NewRat(1, 2), big.NewRat(1, 3), false},
		{"rat vs float", big.NewRat(1, 2), 0.5, false},
		{"bytes", []byte("ab"), []byte("ab"), true},
		{"time utc", utc, utc, true},
		{"time same instant other zone", utc.In(time.FixedZone("x", 3600)), utc, false},
		{"nested array", []any{int64(1), []any{"a"}}, []any{int64(1), []any{"a"}}, true},
		{"nil array vs empty", []any(nil), []any{}, false},
		{"struct", executor.Struct{{Name: "a", Value: int64(1)}}, executor.Struct{{Name: "a", Value: int64(1)}}, true},
		{"struct field name", executor.Struct{{Name: "a", Value: int64(1)}}, executor.Struct{{Name: "b", Value: int64(1)}}, false},
		{"int64", int64(3), int64(3), true},
		{"int64 vs int", int64(3), 3, false},
		{"nil", nil, nil, true},
	}
	for _, c := range cases {
		if got := EqualValue(c.a, c.b); got != c.want {
			t.Errorf("%s: EqualValue(%v, %v) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}
