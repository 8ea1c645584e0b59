package engine

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor/duckdb"
)

func TestUsageErrors(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "x.duckdb")
	os.WriteFile(db, nil, 0o644)
	for _, tc := range []struct {
		name string
		open func() error
		want string
	}{
		{"unknown engine", func() error { _, err := Open(ctx, "sqlite3", Config{}); return err }, `unknown engine "sqlite3" (available: bigquery, duckdb)`},
		{"duckdb without a database", func() error { _, err := Open(ctx, duckdb.EngineName, Config{}); return err }, "--db is required for the duckdb engine"},
		{"bad zero division", func() error { _, err := OpenDuckDB(ctx, Config{DB: db, ZeroDivision: "zero"}); return err }, `--zero-division must be auto, error or null, not "zero"`},
		{"bigquery without its flags", func() error { _, err := OpenBigQuery(ctx, Config{}); return err }, "the bigquery engine needs its flags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, ok := IsUsage(tc.open())
			if !ok || !strings.HasPrefix(msg, tc.want) {
				t.Errorf("got %q (usage error %v), want %q", msg, ok, tc.want)
			}
		})
	}
}

func TestFlagsConfig(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		usage bool
	}{
		{[]string{"--db", "a.duckdb", "--timeout", "2s", "--max-result-bytes", "1MiB"}, false},
		{[]string{"--timeout", "0s"}, true},
		{[]string{"--max-rows", "-1"}, true},
		{[]string{"--max-result-bytes", "0"}, true},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f := AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.Config(io.Discard, 3)
		if _, ok := IsUsage(err); ok != tc.usage {
			t.Errorf("%v: error %v, want a usage error: %v", tc.args, err, tc.usage)
		}
		if tc.usage {
			continue
		}
		if f.Engine != duckdb.EngineName || cfg.DB != "a.duckdb" || cfg.Conns != 3 || cfg.Limits.Timeout != 2*time.Second ||
			cfg.Limits.MaxResultBytes != 1<<20 || cfg.Limits.MaxRows != duckdb.DefaultMaxRows {
			t.Errorf("%v: config %+v", tc.args, cfg)
		}
		// Only the flags given override a configuration file of the engine's own.
		if !cfg.Explicit["timeout"] || cfg.Explicit["max-rows"] {
			t.Errorf("%v: explicit %v", tc.args, cfg.Explicit)
		}
	}
}

func TestDatabase(t *testing.T) {
	if got := (Config{}).Database(); got != "" {
		t.Errorf("no database file fingerprinted as %q", got)
	}
}

func TestMissingDatabaseSaysHowToBuildIt(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.duckdb")
	_, err := OpenDuckDB(context.Background(), Config{DB: missing})
	if _, usage := IsUsage(err); usage || err == nil || !strings.Contains(err.Error(), "does not exist: build it with clinsql db build") {
		t.Errorf("error %v", err)
	}
}
