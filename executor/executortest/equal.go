package executortest

import (
	"math/big"
	"reflect"
	"time"

	"github.com/clinsql/clinsql/executor"
)

// EqualValue reports whether an engine's value a equals the expected b.
// Times must be the same instant and in UTC, which is how every engine is
// required to return them; a nil array differs from an empty one, because
// BigQuery and DuckDB tell NULL from [] and so must the CSV writer.
func EqualValue(a, b any) bool {
	switch x := a.(type) {
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y) && x.Location() == time.UTC
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !EqualValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case executor.Struct:
		y, ok := b.(executor.Struct)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Name != y[i].Name || !EqualValue(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
