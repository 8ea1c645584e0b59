package ehrsqlbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clinsql/clinsql/llm"
	"gopkg.in/yaml.v3"
)

// RunConfig is a clinsql run config with benchmark: ehrsql, in the words
// of the ClinSQL config where they mean the same. Relative paths are
// relative to the file's folder.
//
//	benchmark: ehrsql
//	models: ehrsql-models.yaml     # EHRSQL models file
//	tasks: ../ehrsql-data          # the data folder (clinsql datasets fetch ehrsql)
//	split: test                    # the split answered and scored
//	calibration_split: validation  # optional (default validation)
//	limit: 100                     # optional: the first N questions of split
//	calibration_limit: 200         # optional: of calibration_split
//	out: runs/ehrsql
//	prices: prices.yaml            # optional
//	budget_usd: 20                 # optional (needs prices)
//	concurrency: 32                # optional: questions in flight
//	penalty: 10                    # optional: calibration maximises RS(penalty)
//	cache: llm-cache               # optional (default OUT/llm-cache)
//	report: report                 # optional (default OUT/report)
//
// data_dir is the old name of tasks, still read.
type RunConfig struct {
	Benchmark        string   `yaml:"benchmark"`
	Models           string   `yaml:"models"`
	Tasks            string   `yaml:"tasks"`
	DataDir          string   `yaml:"data_dir"`
	Split            string   `yaml:"split"`
	CalibrationSplit string   `yaml:"calibration_split,omitempty"`
	Limit            int      `yaml:"limit,omitempty"`
	CalibrationLimit int      `yaml:"calibration_limit,omitempty"`
	Out              string   `yaml:"out"`
	Prices           string   `yaml:"prices,omitempty"`
	BudgetUSD        float64  `yaml:"budget_usd,omitempty"`
	Concurrency      int      `yaml:"concurrency,omitempty"`
	Penalty          *float64 `yaml:"penalty,omitempty"`
	Cache            string   `yaml:"cache,omitempty"`
	Report           string   `yaml:"report,omitempty"`
	// Warnings are old spellings read (data_dir).
	Warnings []string `yaml:"-"`
}

// IsRunConfig reports whether the clinsql run config at path says
// benchmark: ehrsql (false for one that cannot be read: the ClinSQL
// loader then says why).
func IsRunConfig(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var peek struct {
		Benchmark string `yaml:"benchmark"`
	}
	return yaml.Unmarshal(b, &peek) == nil && peek.Benchmark == "ehrsql"
}

// LoadRunConfig reads and checks an EHRSQL run config: every problem at
// once, each naming the file, the line and the key, as the ClinSQL
// config's are.
func LoadRunConfig(path string) (*RunConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c RunConfig
	if err := llm.DecodeYAML(path, b, &c); err != nil {
		return nil, err
	}
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &llm.ConfigError{File: path, Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	switch {
	case c.DataDir != "" && c.Tasks != "":
		bad("data_dir", "is the old name of tasks: give tasks only")
	case c.DataDir != "":
		c.Tasks = c.DataDir
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: data_dir is deprecated; call it tasks", path))
	}
	for _, f := range []struct{ name, v string }{{"models", c.Models}, {"tasks", c.Tasks}, {"split", c.Split}, {"out", c.Out}} {
		if f.v == "" {
			bad(f.name, "is required")
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"limit", float64(c.Limit)}, {"calibration_limit", float64(c.CalibrationLimit)}, {"budget_usd", c.BudgetUSD}, {"concurrency", float64(c.Concurrency)}} {
		if f.v < 0 {
			bad(f.name, "must not be negative")
		}
	}
	if c.Penalty != nil && *c.Penalty < 0 {
		bad("penalty", "must not be negative")
	}
	if c.BudgetUSD > 0 && c.Prices == "" {
		bad("budget_usd", "needs prices")
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	base := filepath.Dir(path)
	for _, p := range []*string{&c.Models, &c.Tasks, &c.Out, &c.Prices, &c.Cache, &c.Report} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(base, *p)
		}
	}
	if c.Report == "" {
		c.Report = filepath.Join(c.Out, "report")
	}
	return &c, nil
}
