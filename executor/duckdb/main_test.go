package duckdb

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	ServeIfWorker()
	os.Exit(m.Run())
}
