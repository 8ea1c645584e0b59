package bqsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	farm "github.com/dgryski/go-farm"
	duck "github.com/duckdb/duckdb-go/v2"
)

// farmFunc is the Go function FARM_FINGERPRINT becomes: BigQuery's
// FARM_FINGERPRINT is FarmHash's Fingerprint64 of the STRING's UTF-8 bytes
// or of the BYTES, as an INT64 (two's complement).
const farmFunc = "bq_farm_fingerprint"

// goFunctions are the names of the Go functions RegisterFunctions
// registers (translated SQL calls them beside the prelude's macros).
var goFunctions = []string{farmFunc, civilAtFunc, castToStringFunc, castToBytesFunc,
	castParseFunc + "date", castParseFunc + "datetime", castParseFunc + "time", castParseFunc + "timestamp"}

// RegisterFunctions registers the bridge's Go functions on a DuckDB
// connection (database-wide): duckdb.Options.Register for the bridge.
func RegisterFunctions(ctx context.Context, conn *sql.Conn) error {
	if err := duck.RegisterScalarUDF(conn, farmFunc, farmUDF{}); err != nil {
		return err
	}
	if err := registerZoneFunctions(conn); err != nil {
		return err
	}
	return registerCastFormat(conn)
}

type farmUDF struct{}

func (farmUDF) Config() duck.ScalarFuncConfig {
	anyType, _ := duck.NewTypeInfo(duck.TYPE_ANY)
	intType, _ := duck.NewTypeInfo(duck.TYPE_BIGINT)
	return duck.ScalarFuncConfig{InputTypeInfos: []duck.TypeInfo{anyType}, ResultTypeInfo: intType}
}

func (farmUDF) Executor() duck.ScalarFuncExecutor {
	return duck.ScalarFuncExecutor{RowExecutor: markErrors(func(values []driver.Value) (any, error) {
		switch v := values[0].(type) {
		case string:
			return farmFingerprint([]byte(v)), nil
		case []byte:
			return farmFingerprint(v), nil
		}
		return nil, fmt.Errorf("No matching signature for function FARM_FINGERPRINT: its argument must be STRING or BYTES, not %T", values[0])
	})}
}

func farmFingerprint(b []byte) int64 { return int64(farm.Fingerprint64(b)) }
