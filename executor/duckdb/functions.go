package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	duck "github.com/duckdb/duckdb-go/v2"
)

// A Function is a Go scalar function to register on a database: a dialect's
// function no SQL macro can compute (the bridge's FARM_FINGERPRINT). Its
// fields are those of the dialect's own description (bqsql.Function), so a
// caller converts one into the other.
type Function struct {
	Name string
	// Params and Result are DuckDB type names: VARCHAR, BOOLEAN, BIGINT,
	// DOUBLE, BLOB, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, or ANY.
	Params []string
	Result string
	// Eval computes one row's value; DuckDB gives NULL for a row with a
	// NULL argument without calling it.
	Eval func(args []driver.Value) (any, error)
}

// functionTypes are the type names a Function may use.
var functionTypes = map[string]duck.Type{
	"VARCHAR": duck.TYPE_VARCHAR, "BOOLEAN": duck.TYPE_BOOLEAN, "BIGINT": duck.TYPE_BIGINT, "DOUBLE": duck.TYPE_DOUBLE, "BLOB": duck.TYPE_BLOB,
	"DATE": duck.TYPE_DATE, "TIME": duck.TYPE_TIME, "TIMESTAMP": duck.TYPE_TIMESTAMP, "TIMESTAMPTZ": duck.TYPE_TIMESTAMP_TZ,
	"ANY": duck.TYPE_ANY,
}

// RegisterFunctions registers fns on the database of conn (functions are
// database-wide, registered through any one connection): what an engine
// does with the sets Options.Functions names (DefineFunctions). Functions
// of one name are registered as one overloaded set.
func RegisterFunctions(_ context.Context, conn *sql.Conn, fns []Function) error {
	var names []string
	byName := map[string][]duck.ScalarFunc{}
	for _, f := range fns {
		u, err := scalarOf(f)
		if err != nil {
			return fmt.Errorf("function %s: %w", f.Name, err)
		}
		if byName[f.Name] == nil {
			names = append(names, f.Name)
		}
		byName[f.Name] = append(byName[f.Name], u)
	}
	for _, name := range names {
		set := byName[name]
		var err error
		if len(set) == 1 {
			err = duck.RegisterScalarUDF(conn, name, set[0])
		} else {
			err = duck.RegisterScalarUDFSet(conn, name, set...)
		}
		if err != nil {
			return fmt.Errorf("function %s: %w", name, err)
		}
	}
	return nil
}

// scalar is a Function as the driver takes it.
type scalar struct {
	cfg  duck.ScalarFuncConfig
	eval func(args []driver.Value) (any, error)
}

func (s scalar) Config() duck.ScalarFuncConfig { return s.cfg }

func (s scalar) Executor() duck.ScalarFuncExecutor {
	return duck.ScalarFuncExecutor{RowExecutor: s.eval}
}

func scalarOf(f Function) (scalar, error) {
	info := func(name string) (duck.TypeInfo, error) {
		t, ok := functionTypes[name]
		if !ok {
			return nil, fmt.Errorf("unknown type %q", name)
		}
		return duck.NewTypeInfo(t)
	}
	s := scalar{eval: f.Eval}
	for _, p := range f.Params {
		ti, err := info(p)
		if err != nil {
			return s, err
		}
		s.cfg.InputTypeInfos = append(s.cfg.InputTypeInfos, ti)
	}
	var err error
	s.cfg.ResultTypeInfo, err = info(f.Result)
	return s, err
}
