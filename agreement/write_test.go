package agreement

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFiles: the report's files are written in name order, each what
// its TSV writer gives, and their paths returned; so are the label
// files.
func TestWriteFiles(t *testing.T) {
	r := Compute([]Item{item("m1", "t1", "csv", "csv_exists", true, Pass, Fail)}, Options{Seed: 1, Resamples: 10})
	dir := filepath.Join(t.TempDir(), "new")
	paths, err := r.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "agreement.tsv"), filepath.Join(dir, "disagreements.tsv")}; strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths %v, want %v", paths, want)
	}
	var want strings.Builder
	if err := r.WriteDisagreementsTSV(&want); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(paths[1]); err != nil || string(got) != want.String() {
		t.Errorf("disagreements.tsv %q, %v; want %q", got, err, want.String())
	}
	paths, err = WriteLabelFiles(dir, nil)
	if err != nil || len(paths) != 2 || filepath.Base(paths[0]) != "accuracy.tsv" || filepath.Base(paths[1]) != "wrong.tsv" {
		t.Errorf("label files %v, %v", paths, err)
	}
}
