package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/internal/safefile"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/runfolder"
)

const generateUsage = `usage: clinsql generate --models models.yaml --tasks DIR --out DIR [--engine duckdb --db FILE] [flags]

Asks every model of the models file for a query per task, runs it on the
engine, and while it fails (and rounds remain, default 2) asks for a minimal
fix. Each model's answers are written in the reference inference layout,
OUT/<model>/<split>/<Domain>/<difficulty>_level_queries/<id>/ with
sql_<id>.sql, result_<id>.csv (when the final query ran) and
execution_summary.json, plus OUT/<model>/benchmark_summary.json with the
attempt-wise success. "clinsql judge --run OUT/<model>" scores them.

Running the same command again resumes: finished tasks are kept, model
replies come from the cache (OUT/llm-cache unless --cache), and a folder
generated with other settings is refused. API keys are read from the
variables the models file names (api_key_env) and are never written.

exit codes: 0 every task finished; 3 some tasks are pending (the model's
endpoint or the engine failed, a model was stopped, or the run was
interrupted): run again to resume; 1 other errors; 2 usage errors.
`

// generateConfig is what generate needs, from flags or a benchmark config.
type generateConfig struct {
	Models      []refine.Model
	Tasks       string      // LoadClinSQL root
	Filter      *taskFilter // --split, --task, --domain, --difficulty, --limit (nil: none)
	Out         string
	Cache       string
	Prices      string
	Budget      float64
	Concurrency int
	Engine      string
	EngineCfg   engineConfig
	Quiet       bool
	BatchWait   time.Duration // --batch-wait (endpoints in mode batch)
}

func runGenerate(ctx context.Context, env *Env, args []string) error {
	if benchmarkOf(args) == "ehrsql" {
		return runGenerateEHRSQL(ctx, env, args)
	}
	fs := newFlagSet(env, "generate")
	fs.Usage = func() { fmt.Fprint(env.Stderr, generateUsage+"\n"); printFlags(fs) }
	benchmark := fs.String("benchmark", "clinsql", "benchmark: clinsql, or ehrsql (see clinsql generate --benchmark ehrsql -h)")
	modelsFile := fs.String("models", "", "models `file` (YAML)")
	modelSpec := fs.String("model", "", modelFlagUsage)
	only := fs.String("only", "", "comma-separated model `names` to run (default: all)")
	tasks := fs.String("tasks", "", "ClinSQL tasks: a `folder` holding data/splits, a split folder, or a manifest .jsonl")
	out := fs.String("out", "", "output `folder`")
	cache := fs.String("cache", "", "model reply cache `folder` (default OUT/llm-cache)")
	prices := fs.String("prices", "", "prices `file` (YAML, dollars per million tokens) for cost reports")
	budget := fs.Float64("budget", 0, "cap in `dollars` on what --out will ever spend, over every run (needs --prices)")
	conc := fs.Int("concurrency", refine.DefaultConcurrency, "tasks in flight over all models")
	estimate := fs.Bool("estimate", false, "print the planned calls and their estimated cost, then exit")
	quiet := fs.Bool("quiet", false, "no progress line")
	batchWait := addBatchWait(fs)
	sel := addTaskFilter(fs)
	eflags := addEngineFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *benchmark != "clinsql" {
		return usagef("--benchmark must be clinsql or ehrsql, not %q", *benchmark)
	}
	if err := checkModelSource(*modelsFile, *modelSpec); err != nil {
		return err
	}
	switch {
	case *tasks == "" || (*out == "" && !*estimate):
		return usagef("--tasks and --out are required")
	case *conc <= 0 || *budget < 0:
		return usagef("--concurrency must be positive, --budget not negative")
	case *budget > 0 && *prices == "":
		return usagef("--budget needs --prices")
	}
	engine, ecfg, err := eflags.config(env, 0)
	if err != nil {
		return err
	}
	models, err := loadModels(env, *modelsFile, *modelSpec)
	if err != nil {
		return err
	}
	if models, err = selectModels(models, *only); err != nil {
		return err
	}
	cfg := generateConfig{
		Models: models, Tasks: *tasks, Filter: sel, Out: *out, Cache: *cache, Prices: *prices,
		Budget: *budget, Concurrency: *conc, Engine: engine, Quiet: *quiet, BatchWait: *batchWait, EngineCfg: ecfg,
	}
	if *estimate {
		return estimateGenerate(env, cfg)
	}
	res, err := generate(ctx, env, cfg)
	if err != nil {
		if ctx.Err() != nil { // interrupted: what is finished is on disk
			return &ExitError{Code: exitIncomplete, Err: fmt.Errorf("%v; run the same command again to resume", err)}
		}
		return err
	}
	if n := res.Pending(); n > 0 {
		return &ExitError{Code: exitIncomplete, Err: pendingError(n, res)}
	}
	return nil
}

// pendingError says what to do about pending tasks: run again, or, when a
// model was stopped (a wrong model id, a refused key), fix what stopped it
// first, since running again unchanged fails the same way.
func pendingError(n int, res *refine.Result) error {
	var stopped []string
	for _, m := range res.Models {
		if m.Stopped != "" {
			stopped = append(stopped, m.Model)
		}
	}
	if len(stopped) == 0 {
		return fmt.Errorf("%d tasks pending; run the same command again to resume", n)
	}
	return fmt.Errorf("%d tasks pending: %s stopped (why is printed above); fix that, then run the same command again (finished tasks are kept)", n, strings.Join(stopped, ", "))
}

// loadModels is the models of a models file, or the one --model names.
func loadModels(env *Env, file, spec string) ([]refine.Model, error) {
	if file != "" {
		return refine.LoadModels(file)
	}
	e, err := specEndpoint(env, spec)
	if err != nil {
		return nil, err
	}
	return []refine.Model{{Endpoint: e}}, nil
}

// loadEHRSQLModels is loadModels for EHRSQL: the models of an EHRSQL
// models file, or the one --model names with the default strategy (the
// model's own abstentions; other strategies need a models file).
func loadEHRSQLModels(env *Env, file, spec string) ([]ehrsqlbench.Model, error) {
	if file != "" {
		return ehrsqlbench.LoadModels(file)
	}
	base, err := loadModels(env, "", spec)
	if err != nil {
		return nil, err
	}
	return []ehrsqlbench.Model{{Model: base[0]}}, nil
}

// selectModels keeps the models named in only (comma-separated).
func selectModels(models []refine.Model, only string) ([]refine.Model, error) {
	return selectNamed(models, func(m refine.Model) string { return m.Name }, only)
}

// selectNamed keeps the entries named in only (comma-separated), in the
// order named; "" keeps all.
func selectNamed[M any](models []M, name func(M) string, only string) ([]M, error) {
	if only == "" {
		return models, nil
	}
	var out []M
	for _, want := range strings.Split(only, ",") {
		want = strings.TrimSpace(want)
		found := false
		for _, m := range models {
			if name(m) == want {
				out = append(out, m)
				found = true
			}
		}
		if !found {
			return nil, usagef("--only: no model named %q in the models file", want)
		}
	}
	return out, nil
}

// loadGenerateTasks loads the tasks and keeps those the flags select,
// reporting tasks that could not be loaded without dropping the others.
func loadGenerateTasks(env *Env, root string, sel *taskFilter) ([]*datasets.Task, string, error) {
	tasks, err := loadClinSQL(root)
	if errors.Is(err, errNoTasksThere) {
		return nil, "", err
	}
	if err != nil && len(tasks) == 0 {
		return nil, "", fmt.Errorf("load tasks: %w", err)
	}
	if err != nil {
		for _, e := range unwrapAll(err) {
			fmt.Fprintf(env.Stderr, "warning: task not loaded: %v\n", e)
		}
	}
	return sel.selectTasks(env, tasks, root, nil, "", "")
}

// generate runs refine.Generate with a progress line and prints the
// per-model table.
func generate(ctx context.Context, env *Env, cfg generateConfig) (*refine.Result, error) {
	tasks, _, err := loadGenerateTasks(env, cfg.Tasks, cfg.Filter)
	if err != nil {
		return nil, err
	}
	open, ok := engines[cfg.Engine]
	if !ok {
		return nil, usagef("unknown engine %q (available: %s)", cfg.Engine, engineNames())
	}
	endpoints := make([]*llm.Endpoint, len(cfg.Models))
	for i := range cfg.Models {
		endpoints[i] = &cfg.Models[i].Endpoint
	}
	stopMock, err := startMock(tasks, endpoints...)
	if err != nil {
		return nil, err
	}
	defer stopMock()
	if cfg.EngineCfg.DB != "" {
		if err := checkDuckDBFile(cfg.EngineCfg.DB); err != nil {
			return nil, err // before OUT is made
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	cacheDir := cfg.Cache
	if cacheDir == "" {
		cacheDir = filepath.Join(cfg.Out, runfolder.LLMCacheDir)
	}
	cache, err := openCache(cacheDir)
	if err != nil {
		return nil, err
	}
	var meter *llm.Meter
	if cfg.Prices != "" {
		prices, err := llm.LoadPrices(cfg.Prices)
		if err != nil {
			return nil, err
		}
		if meter, err = openMeter(env.Stderr, cfg.Out, prices, cfg.Budget); err != nil {
			return nil, err
		}
		defer meter.Close()
	}
	// Retries and other client events go to a log file: on the terminal
	// they would bury the progress line. Opened without following a link
	// (a FIFO or a link there is refused, never written through).
	logFile, err := safefile.OpenFile(cfg.Out, "generate.log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	logger := slog.New(slog.NewTextHandler(logFile, nil))

	ecfg := cfg.EngineCfg
	ecfg.Conns = max(ecfg.Conns, min(cfg.Concurrency, 8))
	ex, err := open(ctx, ecfg)
	if err != nil {
		return nil, err
	}
	defer ex.Close()

	names := make([]string, len(cfg.Models))
	for i, m := range cfg.Models {
		names[i] = m.Name
	}
	fmt.Fprintf(env.Stderr, "generate: %d tasks x %d models (%s) on %s; output %s\n",
		len(tasks), len(cfg.Models), strings.Join(names, ", "), ex.Name(), cfg.Out)
	bar := newBar(env, "generate", len(tasks)*len(cfg.Models), cfg.Quiet)
	batches := newBatchReporter(env.Stderr, "generate:")
	batches.setBar(bar)
	res, err := refine.Generate(ctx, refine.Options{
		Out: cfg.Out, Tasks: tasks, Models: cfg.Models, Executor: ex, Schema: mimic.V31,
		LLM:         llm.Options{Cache: cache, Meter: meter, Logger: logger, Getenv: env.Getenv, Batch: batches.options(cfg.BatchWait)},
		Concurrency: cfg.Concurrency, Selection: cfg.Filter.selection(cfg.Tasks), Database: databaseOf(cfg.EngineCfg),
		Events: func(e refine.Event) {
			logger.Info("task", "model", e.Model, "task", e.Key.String(), "status", e.Status, "resumed", e.Resumed, "detail", e.Detail)
			if bar == nil {
				return
			}
			status := e.Status
			if e.Resumed {
				status = "resumed"
			}
			if e.Detail != "" {
				bar.Log("%s %s: %s: %s", e.Model, e.Key, e.Status, firstLine(e.Detail))
			}
			bar.Step(status, e.Usage.PromptTokens+e.Usage.CompletionTokens, e.CostUSD, e.Resumed)
		},
	})
	if bar != nil {
		bar.Finish()
	}
	if res != nil {
		printGenerateTable(env.Stdout, res)
	}
	noteRejected(env.Stderr, cache)
	if err != nil {
		return res, err
	}
	return res, nil
}

func printGenerateTable(w io.Writer, res *refine.Result) { res.WriteTable(w) }

// estimateGenerate prints the calls a run would make and their cost.
func estimateGenerate(env *Env, cfg generateConfig) error {
	tasks, _, err := loadGenerateTasks(env, cfg.Tasks, cfg.Filter)
	if err != nil {
		return err
	}
	var prices llm.Prices
	if cfg.Prices != "" {
		if prices, err = llm.LoadPrices(cfg.Prices); err != nil {
			return err
		}
	}
	refine.WriteEstimate(env.Stdout, cfg.Models, tasks, prices)
	return nil
}
