package conformance

import (
	"os"
	"testing"

	"github.com/clinsql/clinsql/executor/duckdb"
)

// The engine runs queries in a worker process, this test binary started
// again: it serves before any test runs (executor/bqduck's init has defined
// the bridge's Go functions by then).
func TestMain(m *testing.M) {
	duckdb.ServeIfWorker()
	os.Exit(m.Run())
}
