package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/judge"
)

// The duckdb engine runs queries in a worker process, this test binary
// started again: it serves before any test runs. Tests keep the local key
// and the judge's default output folder in a folder of their own, never
// the user's configuration or the package's source folder.
func TestMain(m *testing.M) {
	duckdb.ServeIfWorker()
	tmp, err := os.MkdirTemp("", "clinsql-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(localkey.EnvDir, filepath.Join(tmp, "config"))
	judge.DefaultOutDir = filepath.Join(tmp, "out", "judge")
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}
