package mock_test

import (
	"os"
	"testing"

	"github.com/clinsql/clinsql/executor/duckdb"
)

// The loop test runs queries on the embedded engine, whose worker process
// is this test binary started again: it serves before any test runs.
func TestMain(m *testing.M) {
	duckdb.ServeIfWorker()
	os.Exit(m.Run())
}
