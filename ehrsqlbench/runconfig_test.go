package ehrsqlbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every problem of an EHRSQL run config names the file and the key, as
// the ClinSQL config's do; relative paths resolve against the file.
func TestLoadRunConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // substrings of the error; none: loads
	}{
		{"ok", "benchmark: ehrsql\nmodels: m.yaml\ntasks: data\nsplit: validation\nlimit: 5\nout: runs\n", nil},
		{"old data_dir", "benchmark: ehrsql\nmodels: m.yaml\ndata_dir: data\nsplit: validation\nout: runs\n", nil},
		{"unknown key", "benchmark: ehrsql\nmodels: m.yaml\ntasks: data\nsplit: test\nout: runs\nlimt: 3\n", []string{"run.yaml:6", "limt"}},
		{"wrong type", "benchmark: ehrsql\nmodels: m.yaml\ntasks: data\nsplit: test\nout: runs\nlimit: many\n", []string{"run.yaml:6", "limit"}},
		{"missing", "benchmark: ehrsql\nsplit: test\n", []string{"run.yaml: models: is required", "run.yaml: tasks: is required", "run.yaml: out: is required"}},
		{"both names", "benchmark: ehrsql\nmodels: m.yaml\ntasks: a\ndata_dir: b\nsplit: test\nout: runs\n", []string{"run.yaml: data_dir: is the old name of tasks"}},
		{"negative", "benchmark: ehrsql\nmodels: m.yaml\ntasks: a\nsplit: test\nout: runs\nlimit: -1\nbudget_usd: 3\n", []string{"run.yaml: limit: must not be negative", "run.yaml: budget_usd: needs prices"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadRunConfig(path)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if c.Tasks != filepath.Join(dir, "data") || c.Report != filepath.Join(dir, "runs", "report") {
					t.Errorf("paths: tasks %s report %s", c.Tasks, c.Report)
				}
				if strings.Contains(tc.yaml, "data_dir") != (len(c.Warnings) == 1) {
					t.Errorf("warnings %q", c.Warnings)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded %+v", c)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestIsRunConfig: only a config that says benchmark: ehrsql is one; an
// unreadable file is not (the ClinSQL loader then says why).
func TestIsRunConfig(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		yaml string
		want bool
	}{
		"ehrsql.yaml":  {"benchmark: ehrsql\nmodels: m.yaml\n", true},
		"clinsql.yaml": {"models: m.yaml\ntasks: t\nout: o\n", false},
		"broken.yaml":  {"benchmark: [\n", false},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := IsRunConfig(path); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	if IsRunConfig(filepath.Join(dir, "missing.yaml")) {
		t.Error("a missing file is a run config")
	}
}
