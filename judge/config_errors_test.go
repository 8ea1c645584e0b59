package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrorsInUserTerms: a mistake in the judge config is reported
// with the file, the line, the key's path and what is allowed, never with
// Go's type names ("field budget not found in type judge.Config").
func TestConfigErrorsInUserTerms(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "budget: 5\n", []string{"judge.yaml:1: budget: unknown key \"budget\"; allowed here: budget_usd, cache, endpoint, group,"}},
		{"unknown nested key", "endpoint:\n  name: j\n  retri:\n    budget: 30s\n", []string{"judge.yaml:3: endpoint.retri: unknown key \"retri\"; allowed here:", "retry"}},
		{"wrong kind", "samples: many\n", []string{`judge.yaml:1: samples: "many" is text; want a whole number`}},
		{"bad duration", "endpoint:\n  retry:\n    budget: soon\n", []string{`judge.yaml:3: endpoint.retry.budget: "soon" is text; want a duration such as 30s or 5m`}},
		{"not YAML", "endpoint: [\n", []string{"judge.yaml:", "not valid YAML"}},
		{"empty", "", []string{"judge.yaml: the file is empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "judge.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadConfig(path)
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			for _, bad := range []string{"judge.Config", "llm.", "type ", "!!"} {
				if strings.Contains(msg, bad) {
					t.Errorf("error %q names Go or YAML internals (%q)", msg, bad)
				}
			}
		})
	}
}
