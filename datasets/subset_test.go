package datasets

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
)

// TestLoadSubsets: --tasks takes any part of the tree (a domain, a
// difficulty, one task folder) and one manifest line, and loads exactly the
// tasks below it with their full keys.
func TestLoadSubsets(t *testing.T) {
	root := t.TempDir()
	splits, err := fixtures.WriteClinSQL(root)
	must(t, err)
	all, err := LoadClinSQL(root)
	must(t, err)
	manifest := filepath.Join(t.TempDir(), "tasks.jsonl")
	writeManifest(t, all, manifest)
	for i, ft := range fixtures.Tasks() {
		want := all[0]
		for _, task := range all {
			if task.Split == ft.Split && task.Domain == ft.Domain && task.DifficultyDir() == ft.Level && task.ID == ft.ID {
				want = task
			}
		}
		count := func(keep func(*Task) bool) int {
			n := 0
			for _, task := range all {
				if keep(task) {
					n++
				}
			}
			return n
		}
		for _, tc := range []struct {
			root string
			n    int
		}{
			{filepath.Join(splits, ft.Split, ft.Domain, ft.Level, ft.ID), 1},
			{filepath.Join(splits, ft.Split, ft.Domain, ft.Level), count(func(x *Task) bool {
				return x.Split == ft.Split && x.Domain == ft.Domain && x.DifficultyDir() == ft.Level
			})},
			{filepath.Join(splits, ft.Split, ft.Domain), count(func(x *Task) bool { return x.Split == ft.Split && x.Domain == ft.Domain })},
		} {
			got, err := LoadClinSQL(tc.root)
			if err != nil {
				t.Errorf("%s: %v", tc.root, err)
				continue
			}
			if len(got) != tc.n {
				t.Errorf("%s: %d tasks, want %d", tc.root, len(got), tc.n)
			}
			found := false
			for _, g := range got {
				found = found || g.Key == want.Key
			}
			if !found {
				t.Errorf("%s: lacks %s", tc.root, want.Key)
			}
		}
		line, err := LoadClinSQL(manifest + ":" + strconv.Itoa(i+1))
		if err != nil || len(line) != 1 || line[0].Key != all[i].Key {
			t.Errorf("manifest line %d: %v, %v", i+1, line, err)
		}
	}
	if _, err := LoadClinSQL(manifest + ":99"); err == nil {
		t.Error("a manifest line past the end loads")
	}
}
