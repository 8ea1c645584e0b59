package judge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/rubric"
)

// Config is a judge configuration file (clinsql judge --judge-config):
//
//	endpoint:              # an llm endpoint (see package llm)
//	  name: judge
//	  kind: openai
//	  model: gpt-4o-mini
//	  api_key_env: OPENAI_API_KEY
//	  sampling: {temperature: 0, max_tokens: 400}
//	  capabilities: {json_schema: true}
//	  limits: {concurrency: 32, rpm: 500, tpm: 200000}
//	samples: 1             # k for a k-sample majority vote (odd)
//	reference_guided: false
//	prompt: {max_rows: 20}
//	prices: prices.yaml    # price table, relative to this file
//	budget_usd: 20         # stop cleanly when the next call could pass it
//	cache: ""              # cache folder ("" = <out>/llm-cache, "off" = none)
//	group: tree            # leaves per call: leaf, category or tree (see GroupMode)
//	group_gated: false     # also group leaves waiting on a gate in the call
//
// The endpoint's sampling.max_tokens is per leaf: a group of n leaves may
// use n times it.
type Config struct {
	Endpoint        llm.Endpoint `yaml:"endpoint"`
	Samples         int          `yaml:"samples,omitempty"`
	Group           GroupMode    `yaml:"group,omitempty"`
	GroupGated      bool         `yaml:"group_gated,omitempty"`
	ReferenceGuided bool         `yaml:"reference_guided,omitempty"`
	Prompt          PromptConfig `yaml:"prompt,omitempty"`
	Prices          string       `yaml:"prices,omitempty"`
	BudgetUSD       float64      `yaml:"budget_usd,omitempty"`
	Cache           string       `yaml:"cache,omitempty"`
	// MaxConsecutiveFailures is LLMOptions.MaxConsecutiveFailures.
	MaxConsecutiveFailures int `yaml:"max_consecutive_failures,omitempty"`
	// File is the path the config was read from.
	File string `yaml:"-"`
}

// PromptConfig is PromptOptions in YAML.
type PromptConfig struct {
	MaxRows    int `yaml:"max_rows,omitempty"`
	MaxColumns int `yaml:"max_columns,omitempty"`
	MaxCell    int `yaml:"max_cell,omitempty"`
	MaxSQL     int `yaml:"max_sql,omitempty"`
	SQLRows    int `yaml:"sql_rows,omitempty"`
}

// Options returns the prompt bounds.
func (p PromptConfig) Options() PromptOptions {
	return PromptOptions{MaxRows: p.MaxRows, MaxColumns: p.MaxColumns, MaxCell: p.MaxCell, MaxSQL: p.MaxSQL, SQLRows: p.SQLRows}
}

// LoadConfig reads and validates a judge config. Unknown fields are errors;
// every problem names the file and the field.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Config{File: path}
	if err := llm.DecodeYAML(path, data, c); err != nil {
		return nil, err
	}
	var errs []error
	if err := c.Endpoint.Validate(); err != nil {
		errs = append(errs, llm.InFile(err, path, "endpoint"))
	}
	bad := func(field, format string, a ...any) {
		errs = append(errs, &llm.ConfigError{File: path, Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	if c.Samples < 0 || (c.Samples > 0 && c.Samples%2 == 0) {
		bad("samples", "must be a positive odd number, not %d", c.Samples)
	}
	if c.Group != "" {
		if _, err := ParseGroupMode(string(c.Group)); err != nil {
			bad("group", "%v", err)
		}
	}
	if c.GroupGated && c.Group == GroupLeaf {
		bad("group_gated", "needs group: category or tree")
	}
	if c.BudgetUSD < 0 {
		bad("budget_usd", "must not be negative")
	}
	if c.BudgetUSD > 0 && c.Prices == "" {
		bad("budget_usd", "needs a price table (prices)")
	}
	for f, v := range map[string]int{"prompt.max_rows": c.Prompt.MaxRows, "prompt.max_columns": c.Prompt.MaxColumns,
		"prompt.max_cell": c.Prompt.MaxCell, "prompt.max_sql": c.Prompt.MaxSQL, "prompt.sql_rows": c.Prompt.SQLRows} {
		if v < 0 {
			bad(f, "must not be negative")
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if c.Samples == 0 {
		c.Samples = 1
	}
	return c, nil
}

// PricesPath resolves the price table path against the config's folder.
func (c *Config) PricesPath() string {
	if c.Prices == "" || filepath.IsAbs(c.Prices) {
		return c.Prices
	}
	return filepath.Join(filepath.Dir(c.File), c.Prices)
}

// Estimate is the expected size of a judging run, printed before it
// starts.
type Estimate struct {
	// Leaves still to decide, of which CodeLeaves code decides and
	// BackendLeaves need the backend (an upper bound: gate skipping saves
	// some, about a third on the released runs).
	Leaves, CodeLeaves, BackendLeaves int
	// Calls is the backend calls x samples, leaves judged alone or in the
	// groups of the run's grouping, assuming no leaf is skipped (votes stop
	// early). Grouped, it counts the waves of ready leaves the plan
	// allows; calls that return at different times can split a wave.
	Calls int
	// PromptTokens is the estimated prompt size of those calls;
	// CompletionTokens assumes each leaf's verdict uses max_tokens (per
	// leaf), or 200 when unset.
	PromptTokens, CompletionTokens int
}

// Prompter builds an LLM backend's prompts; EstimateRun measures them.
// *LLMJudge is one.
type Prompter interface {
	Prompt(*LeafRequest) []llm.Message
	GroupPrompt(*GroupRequest) []llm.Message
}

// EstimateRun counts what a run would do: leaves the ledger lacks, those
// code decides, the backend calls for the rest under opts.Group, and their
// prompt tokens (p may be nil for a backend without prompts).
func EstimateRun(items []Item, led *judgefmt.Ledger, opts Options, p Prompter, samples, maxTokens int) Estimate {
	var e Estimate
	if samples < 1 {
		samples = 1
	}
	completion := maxTokens
	if completion <= 0 {
		completion = 200
	}
	group := opts.Group.orLeaf()
	for _, it := range items {
		key := it.Task.Key.String()
		for _, t := range []struct {
			tree judgefmt.Tree
			root *rubric.Node
		}{{judgefmt.TreeSQL, it.Task.SQLRubric.Root}, {judgefmt.TreeResults, it.Task.ResultsRubric.Root}} {
			pl := newPlan(t.root, opts.Mode)
			// wave numbers the backend calls a leaf waits for (1 = the
			// first); 0 for a leaf already decided or decided by code.
			wave := map[*rubric.Node]int{}
			type unitWave struct {
				unit *rubric.Node
				wave int
			}
			var order []unitWave
			groups := map[unitWave][]*rubric.Node{}
			for _, l := range pl.leaves {
				if led != nil {
					r := led.Get(judgefmt.LeafKey{Task: key, Tree: t.tree, Leaf: l.ID})
					if r != nil && !(opts.RetryInvalid && r.Verdict == rubric.Invalid) {
						continue
					}
				}
				e.Leaves++
				if opts.CodeChecks && codecheck.CheckLeaf(t.tree, l, it.Answer).Decided {
					e.CodeLeaves++
					continue
				}
				e.BackendLeaves++
				u := group.unit(l)
				w := 1
				for _, b := range pl.blockers[l] {
					if wb := wave[b]; wb > 0 {
						if !(opts.GroupGated && group.unit(b) == u) {
							wb++
						}
						w = max(w, wb)
					}
				}
				wave[l] = w
				k := unitWave{u, w}
				if group == GroupLeaf {
					k.unit = l
				}
				if groups[k] == nil {
					order = append(order, k)
				}
				groups[k] = append(groups[k], l)
			}
			e.Calls += samples * len(order)
			e.CompletionTokens += samples * completion * len(wave)
			if p == nil {
				continue
			}
			for _, k := range order {
				leaves := groups[k]
				var msgs []llm.Message
				if group == GroupLeaf {
					msgs = p.Prompt(&LeafRequest{Task: it.Task, Answer: it.Answer, Tree: t.tree, Leaf: leaves[0], ReferenceGuided: opts.ReferenceGuided})
				} else {
					sort.Slice(leaves, func(i, j int) bool { return pl.file[leaves[i]] < pl.file[leaves[j]] })
					msgs = p.GroupPrompt(&GroupRequest{Task: it.Task, Answer: it.Answer, Tree: t.tree, Leaves: leaves, ReferenceGuided: opts.ReferenceGuided})
				}
				e.PromptTokens += samples * llm.EstimateTokens(msgs)
			}
		}
	}
	if p == nil {
		e.CompletionTokens = 0
	}
	return e
}
