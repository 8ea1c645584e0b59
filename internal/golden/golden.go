// Package golden compares test output with files under testdata, the
// project's one way of keeping figures and tables reviewable: -update
// rewrites a file, a mismatch leaves the new text beside it as <file>.got.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path, or writes it when update is
// set. A mismatch fails t and writes got to path+".got" for review.
func Check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		_ = os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs; see %s.got (run with -update to accept, and review the diff)", path, path)
	}
}
