// Package sqlitetest builds small SQLite fixture databases for tests, so
// that packages working with the EHRSQL database can be tested without the
// licensed file.
package sqlitetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/executor/sqlite/internal/csqlite"
)

// Build runs script (any number of statements) on a new database file in a
// test temporary directory and returns the file's path. The file is made
// read-only, as the EHRSQL database is.
func Build(tb testing.TB, script string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "fixture.sqlite")
	c, err := csqlite.Open(path, csqlite.OpenReadWrite|csqlite.OpenCreate)
	if err != nil {
		tb.Fatalf("sqlitetest: open %s: %v", path, err)
	}
	if err := c.Exec(script); err != nil {
		c.Close()
		tb.Fatalf("sqlitetest: build %s: %v", path, err)
	}
	if err := c.Close(); err != nil {
		tb.Fatalf("sqlitetest: close %s: %v", path, err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		tb.Fatalf("sqlitetest: %v", err)
	}
	return path
}

// BuildFile is Build with the script read from a file (usually under
// testdata).
func BuildFile(tb testing.TB, scriptPath string) string {
	tb.Helper()
	b, err := os.ReadFile(scriptPath)
	if err != nil {
		tb.Fatalf("sqlitetest: %v", err)
	}
	return Build(tb, string(b))
}
