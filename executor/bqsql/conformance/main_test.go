package conformance

import (
	"os"
	"testing"

	"github.com/clinsql/clinsql/executor/bqsql"
	"github.com/clinsql/clinsql/executor/duckdb"
)

// The engine runs queries in a worker process, this test binary started
// again: it serves before any test runs, with the bridge's Go functions
// registered under the name the engine's options give.
func TestMain(m *testing.M) {
	duckdb.RegisterFunctions("bigquery", bqsql.RegisterFunctions)
	duckdb.ServeIfWorker()
	os.Exit(m.Run())
}
