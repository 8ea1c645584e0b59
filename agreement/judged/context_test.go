package judged

import (
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
)

// TestNewContext: the tasks give every results leaf its kind; a run
// folder that cannot be read is an error.
func TestNewContext(t *testing.T) {
	dir := t.TempDir()
	if _, err := fixtures.WriteClinSQL(dir); err != nil {
		t.Fatal(err)
	}
	tasks, err := datasets.LoadClinSQL(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewContext(tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		kinds := c.Kinds[tk.Key.String()]
		if len(kinds) != len(tk.ResultsRubric.Root.Leaves()) {
			t.Errorf("%s: kinds %v", tk.Key, kinds)
		}
		for leaf, k := range kinds {
			if k == "" {
				t.Errorf("%s %s: no kind", tk.Key, leaf)
			}
		}
	}
	if _, err := NewContext(nil, []string{filepath.Join(dir, "no-run")}); err == nil {
		t.Error("a missing run folder gave no error")
	}
}
