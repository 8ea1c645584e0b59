package judge

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/llm"
)

// TestBackendSpec: the settings given on the command line win over the
// judge config's, the config's grouping and reference-guided mode apply
// where the command line is silent, a budget needs a price table, and
// the opened judge keeps its cache and spending record in the output
// folder.
func TestBackendSpec(t *testing.T) {
	t.Setenv(localkey.EnvDir, t.TempDir())
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	endpoint := "endpoint: {name: fake, kind: openai, base_url: 'http://127.0.0.1:1/v1', model: judge-test, api_key_env: K, sampling: {max_tokens: 300}}\n"
	cfg := write("judge.yaml", endpoint+"samples: 3\ngroup: category\ngroup_gated: true\n")
	prices := write("prices.yaml", "prices:\n  judge-test: {prompt: 1000, completion: 1000}\n")
	ep := llm.Endpoint{Name: "cli", Kind: llm.KindOpenAI, BaseURL: "http://127.0.0.1:1/v1", Model: "m", APIKeyEnv: "K"}
	for _, tc := range []struct {
		name    string
		spec    BackendSpec
		samples int
		group   GroupMode
		gated   bool
		guided  bool
		cache   bool
		budget  float64
		err     error
	}{
		{name: "config", spec: BackendSpec{Config: cfg, Budget: -1}, samples: 3, group: GroupCategory, gated: true, cache: true},
		{name: "flags over config", spec: BackendSpec{Config: cfg, Budget: -1, Samples: 5, ReferenceGuided: true, Cache: "off", GroupSet: true, GatedSet: true},
			samples: 5, group: GroupTree, guided: true},
		{name: "budget with prices", spec: BackendSpec{Config: cfg, Budget: 2, Prices: prices}, samples: 3, group: GroupCategory, gated: true, cache: true, budget: 2},
		{name: "budget without prices", spec: BackendSpec{Config: cfg, Budget: 2}, err: ErrBudgetWithoutPrices},
		{name: "endpoint, default settings", spec: BackendSpec{Endpoint: &ep, Budget: -1}, samples: 1, group: GroupTree, cache: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			opts := Options{Group: GroupTree}
			spec := tc.spec
			spec.LLM, spec.Log = llm.Options{Getenv: func(string) string { return "key" }}, io.Discard
			defer spec.Close()
			err := spec.Open(nil, out, &opts)
			if tc.err != nil || err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			o := spec.Opened()
			if o == nil || opts.Backend != o.Judge {
				t.Fatalf("opened %v, backend %v", o, opts.Backend)
			}
			if o.Judge.Samples() != tc.samples || opts.Group != tc.group || opts.GroupGated != tc.gated || opts.ReferenceGuided != tc.guided {
				t.Errorf("samples %d, group %s, gated %v, guided %v", o.Judge.Samples(), opts.Group, opts.GroupGated, opts.ReferenceGuided)
			}
			if c := o.Client.Cache(); (c != nil) != tc.cache || c != nil && c.Dir() != filepath.Join(out, "llm-cache") {
				t.Errorf("cache %v", c)
			}
			if o.Meter.Budget() != tc.budget {
				t.Errorf("budget %v, want %v", o.Meter.Budget(), tc.budget)
			}
			audit := tc.spec
			audit.LLM, audit.Log = spec.LLM, io.Discard
			defer audit.Close()
			aj, err := audit.OpenAudit(t.TempDir(), Options{CodeChecks: true}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if aj.Samples != tc.samples || aj.Model != "judge-test" && aj.Model != "m" || filepath.Base(aj.Dir) != "ledgers" || aj.Prompter == nil || aj.Meter == nil {
				t.Errorf("audit judge %+v", aj)
			}
		})
	}
}
