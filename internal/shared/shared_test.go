package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder stands in for a test to observe whether Path skips or fails.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(...any)       { r.skipped = true }
func (r *recorder) Fatal(args ...any) { r.failed = true }

func TestPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "clinsql-data"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDir, dir)

	t.Setenv(EnvRequire, "")
	r := &recorder{TB: t}
	if got := Path(r, "clinsql-data"); got != filepath.Join(dir, "clinsql-data") || r.skipped || r.failed {
		t.Errorf("present: %q skipped=%v failed=%v", got, r.skipped, r.failed)
	}
	r = &recorder{TB: t}
	Path(r, "ehrsql-2024")
	if !r.skipped || r.failed {
		t.Errorf("missing without %s: skipped=%v failed=%v", EnvRequire, r.skipped, r.failed)
	}
	t.Setenv(EnvRequire, "1")
	r = &recorder{TB: t}
	Path(r, "ehrsql-2024")
	if !r.failed {
		t.Errorf("missing with %s set must fail", EnvRequire)
	}
}
