package bqsql

import (
	"context"
	"testing"
)

// A value whose type the bridge cannot tell is written by DuckDB's to_json
// where that agrees with BigQuery, by its engine type where it is a scalar
// of another type, and refused at run time (unsupported) where it is an
// array or struct holding one.
func TestDynamicJSON(t *testing.T) {
	db := openDuck(t)
	ctx := context.Background()
	rows, err := queryRows(ctx, db, "SELECT "+dynamicJSON("x")+" FROM (SELECT {'a': 'q', 'b': [1, 2]} AS x)")
	if err != nil || rows[0][0] != `{"a":"q","b":[1,2]}` {
		t.Errorf("struct of strings and integers: %v, %v", rows, err)
	}
	rows, err = queryRows(ctx, db, "SELECT "+dynamicJSON("x")+" FROM (SELECT 'inf'::DOUBLE AS x)")
	if err != nil || rows[0][0] != `"Infinity"` {
		t.Errorf("a FLOAT64: %v, %v", rows, err)
	}
	_, err = queryRows(ctx, db, "SELECT "+dynamicJSON("x")+" FROM (SELECT [1.5::DOUBLE] AS x)")
	if err == nil {
		t.Fatal("an array of FLOAT64 of unknown type was encoded")
	}
	if msg, unsupported := Explain(err.Error()); !unsupported || msg != ErrUnsupported.Error()+": "+jsonLimit {
		t.Errorf("Explain = %q, %v", msg, unsupported)
	}
}
