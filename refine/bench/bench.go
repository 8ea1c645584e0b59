package bench

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bigquery"
	"github.com/clinsql/clinsql/executor/bqduck"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/engine"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/runfolder"
)

// Config is the file clinsql run takes. Relative paths are relative to the
// file's folder.
//
//	models: models.yaml        # refine models file
//	tasks: data/clinsql        # ClinSQL tasks (folder or manifest)
//	split: validation          # optional: one split
//	domain: Vital_Signs_Monitoring  # optional subset (as --domain,
//	difficulty: easy           # --difficulty, --task and --limit)
//	task: [validation/...]
//	limit: 6
//	engine: {name: duckdb, db: demo.duckdb, timeout: 300s, max_rows: 100000}
//	                           # or {name: bigquery, bq_config: bq.yaml}
//	out: runs/bench1           # one run folder per model below it
//	prices: prices.yaml        # optional, for costs and the budget
//	budget_usd: 50             # optional cap on what generation into OUT ever spends
//	concurrency: 8             # tasks in flight over all models
//	cache: llm-cache           # optional, default OUT/llm-cache
//	judge: judge.yaml          # the judge's config (clinsql judge --config)
//	report: report             # report folder, default OUT/report
type Config struct {
	Models      string   `yaml:"models"`
	Tasks       string   `yaml:"tasks"`
	Split       string   `yaml:"split,omitempty"`
	Domain      string   `yaml:"domain,omitempty"`
	Difficulty  string   `yaml:"difficulty,omitempty"`
	Task        []string `yaml:"task,omitempty"`
	Limit       int      `yaml:"limit,omitempty"`
	Engine      Engine   `yaml:"engine"`
	Out         string   `yaml:"out"`
	Prices      string   `yaml:"prices,omitempty"`
	BudgetUSD   float64  `yaml:"budget_usd,omitempty"`
	Concurrency int      `yaml:"concurrency,omitempty"`
	Cache       string   `yaml:"cache,omitempty"`
	Judge       string   `yaml:"judge,omitempty"`
	Report      string   `yaml:"report,omitempty"`
	// File is the config's own path, for messages.
	File string `yaml:"-"`
	// JudgeRaw is Judge as written (replay:FILE is not a path).
	JudgeRaw string `yaml:"-"`
	// LoadedModels are the models of the models file.
	LoadedModels []refine.Model `yaml:"-"`
}

// Engine is the engine the queries run on, as the engine flags give it.
type Engine struct {
	Name    string        `yaml:"name"`
	DB      string        `yaml:"db,omitempty"`
	Timeout time.Duration `yaml:"timeout,omitempty"`
	MaxRows int           `yaml:"max_rows,omitempty"`
	// MaxResultBytes is --max-result-bytes ("64MiB" or bytes).
	MaxResultBytes bigquery.ByteSize `yaml:"max_result_bytes,omitempty"`
	Memory         string            `yaml:"memory,omitempty"`
	Threads        int               `yaml:"threads,omitempty"`
	// ZeroDivision is --zero-division (auto, error or null).
	ZeroDivision string `yaml:"zero_division,omitempty"`
	// BQConfig is the bigquery engine's configuration file
	// (executor/bigquery/README.md).
	BQConfig string `yaml:"bq_config,omitempty"`
}

// Load reads and checks a benchmark config and the models file it names.
// Every problem is reported at once, each naming the file and field.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	if err := llm.DecodeYAML(path, data, &c); err != nil {
		return nil, err
	}
	c.File = path
	base := filepath.Dir(path)
	rel := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(base, *p)
		}
	}
	c.JudgeRaw = c.Judge
	for _, p := range []*string{&c.Models, &c.Tasks, &c.Out, &c.Prices, &c.Cache, &c.Report, &c.Engine.DB, &c.Engine.BQConfig} {
		rel(p)
	}
	if !strings.HasPrefix(c.Judge, "replay:") {
		rel(&c.Judge)
	}
	errs := c.check()
	if c.Models != "" {
		ms, err := refine.LoadModels(c.Models)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: models: %w", path, err))
		}
		c.LoadedModels = ms
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if c.Concurrency == 0 {
		c.Concurrency = refine.DefaultConcurrency
	}
	if c.Cache == "" {
		c.Cache = filepath.Join(c.Out, runfolder.LLMCacheDir)
	}
	if c.Report == "" {
		c.Report = filepath.Join(c.Out, "report")
	}
	return &c, nil
}

// check lists the config's problems, each naming its field.
func (c *Config) check() []error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &llm.ConfigError{File: c.File, Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	for _, f := range []struct{ name, value string }{{"models", c.Models}, {"tasks", c.Tasks}, {"out", c.Out}} {
		if f.value == "" {
			bad(f.name, "is required")
		}
	}
	if c.Engine.Name == "" {
		c.Engine.Name = duckdb.EngineName
	}
	if !engine.Known(c.Engine.Name) {
		bad("engine.name", "%q is not an engine (available: %s)", c.Engine.Name, engine.Names())
	}
	if c.Engine.Name == bigquery.Name && c.Engine.BQConfig == "" {
		bad("engine.bq_config", "is required for the bigquery engine")
	}
	switch {
	case c.Engine.Timeout < 0:
		bad("engine.timeout", "must not be negative")
	case c.Engine.MaxRows < 0:
		bad("engine.max_rows", "must not be negative")
	case c.Engine.MaxResultBytes < 0:
		bad("engine.max_result_bytes", "must not be negative")
	case c.Engine.Threads < 0:
		bad("engine.threads", "must not be negative")
	}
	if _, err := bqduck.ParseZeroDivision(c.Engine.ZeroDivision); err != nil {
		bad("engine.zero_division", "must be auto, error or null, not %q", c.Engine.ZeroDivision)
	}
	if c.Concurrency < 0 {
		bad("concurrency", "must not be negative")
	}
	if c.Limit < 0 {
		bad("limit", "must not be negative")
	}
	if err := c.Selection().Check(); err != nil {
		field, problem, _ := strings.Cut(strings.TrimPrefix(err.Error(), "--"), " ")
		field = strings.TrimSuffix(field, ":")
		bad(field, "%s", problem)
	}
	if c.BudgetUSD < 0 {
		bad("budget_usd", "must not be negative")
	}
	if c.BudgetUSD > 0 && c.Prices == "" {
		bad("budget_usd", "needs prices")
	}
	return errs
}

// EngineConfig is the engine's configuration. The bigquery engine takes no
// flags here: its configuration file says everything.
func (c *Config) EngineConfig() engine.Config {
	e := c.Engine
	cfg := engine.Config{DB: e.DB, Limits: executor.Limits{Timeout: e.Timeout, MaxRows: e.MaxRows, MaxResultBytes: int64(e.MaxResultBytes)},
		Memory: e.Memory, Threads: e.Threads, ZeroDivision: e.ZeroDivision}
	if e.Name == bigquery.Name {
		f := bigquery.AddFlags(flag.NewFlagSet("run", flag.ContinueOnError))
		f.ConfigPath = e.BQConfig
		cfg.BigQuery = f
	}
	return cfg
}

// JudgeSpec is the judge setting as written: "replay:FILE" stays a replay
// (its file made relative to the config), anything else is a config file.
func (c *Config) JudgeSpec() string {
	if file, ok := strings.CutPrefix(c.JudgeRaw, "replay:"); ok {
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(c.File), file)
		}
		return "replay:" + file
	}
	return c.Judge
}

// Selection is the config's subset of the tasks, as the subset flags
// (--domain, --difficulty, --task, --limit) give it.
func (c *Config) Selection() *datasets.Selection {
	return &datasets.Selection{Split: c.Split, Keys: c.Task, Domain: c.Domain, Difficulty: c.Difficulty, Limit: c.Limit}
}
