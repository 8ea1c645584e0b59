// Package shared locates the licensed data that lives beside the project in
// ../shared (ClinSQL validation data, EHRSQL 2024, the MIMIC-IV demo). That data
// may never be copied into the repository, so tests and benchmarks read it in
// place.
//
// The location is $CLINSQL_SHARED, or the folder "shared" beside the
// repository root. When the data is absent, tests that need it are skipped,
// unless $CLINSQL_REQUIRE_SHARED is set (CI sets it), in which case they fail:
// CI must never pass by skipping.
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvDir names the variable that overrides the data location.
const EnvDir = "CLINSQL_SHARED"

// EnvRequire names the variable that turns a missing folder into a test failure.
const EnvRequire = "CLINSQL_REQUIRE_SHARED"

// Dir returns the shared data folder and whether it exists.
func Dir() (string, bool) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		root, ok := repoRoot()
		if !ok {
			return "", false
		}
		dir = filepath.Join(filepath.Dir(root), "shared")
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// Path returns the shared data path for the elements, or skips tb (fails it
// when $CLINSQL_REQUIRE_SHARED is set) if that path does not exist.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, _ := Dir()
	p := filepath.Join(append([]string{dir}, elem...)...)
	if dir == "" {
		p = ""
	}
	if _, err := os.Stat(p); p == "" || err != nil {
		msg := "shared data " + filepath.Join(elem...) + " not found (set " + EnvDir + ")"
		if os.Getenv(EnvRequire) != "" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return p
}

// repoRoot walks up from the working directory to the folder holding go.mod.
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
