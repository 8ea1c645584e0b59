package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/internal/shared"
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
	if demo.dir != "" {
		os.RemoveAll(demo.dir)
	}
	os.Exit(code)
}

// demo is the MIMIC-IV demo database, built once per test process by
// `clinsql db build` (tests open it read-only, as every engine does): the
// tests on the demo share one build instead of four.
var demo struct {
	once sync.Once
	dir  string
	db   string
	err  error
}

// demoDB returns the demo database, skipping the test when ../shared is
// absent.
func demoDB(t *testing.T) string {
	t.Helper()
	mimicDir := shared.Path(t, "mimic-iv-demo")
	demo.once.Do(func() {
		if demo.dir, demo.err = os.MkdirTemp("", "cli-demo-"); demo.err != nil {
			return
		}
		demo.db = filepath.Join(demo.dir, "demo.duckdb")
		if code, out, errs := runCLI(t, "", "db", "build", "--mimic", mimicDir, "--out", demo.db, "--quiet"); code != 0 {
			demo.err = fmt.Errorf("db build: exit %d: %s%s", code, out, errs)
		}
	})
	if demo.err != nil {
		t.Fatal(demo.err)
	}
	return demo.db
}
