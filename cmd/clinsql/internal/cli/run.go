package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/bench"
)

const runUsage = `usage: clinsql run --config bench.yaml [--quiet]
       clinsql run --model PROVIDER/NAME --judge PROVIDER/NAME|replay:FILE --tasks DIR --db FILE --out DIR [--split S] [--limit N]

Benchmarks the models of a models file end to end, as a benchmark config
describes (see below): generation with self-refinement ("clinsql
generate") for every model, then judging of each model's run ("clinsql
judge", into OUT/<model>/judge), then one report over all models ("clinsql
report", into OUT/report). Running it again resumes whatever is done:
finished tasks, decided leaves and cached model replies are kept.

A model is judged only once every one of its tasks is finished: the judge
would score a pending task as an empty answer and keep that decision. The
report covers the models that were judged.

bench.yaml (relative paths are relative to its folder):

  models: models.yaml        # the models file (clinsql generate --models)
  tasks: data/clinsql        # ClinSQL tasks: folder holding data/splits, split folder or manifest
  split: validation          # optional: one split
  engine:                    # as clinsql generate's engine flags
    name: duckdb
    db: mimic.duckdb
    timeout: 300s
    max_rows: 100000
    max_result_bytes: 32MiB
  out: runs/bench1           # OUT: one run folder per model, the report in OUT/report
  judge: judge.yaml          # the judge's config (clinsql judge --judge-config), or replay:FILE
  prices: prices.yaml        # optional: generation costs
  budget_usd: 50             # optional: cap on what generation into OUT ever spends (the judge config has its own)
  concurrency: 8             # optional: generation tasks in flight over all models
  cache: llm-cache           # optional: reply cache (default OUT/llm-cache)
  report: report             # optional: report folder (default OUT/report)

With "benchmark: ehrsql" the config runs EHRSQL 2024 instead ("clinsql
generate --benchmark ehrsql", then the report's EHRSQL section): models,
tasks (the data folder; data_dir still read), split, out; optional
calibration_split, limit, calibration_limit, prices, budget_usd,
concurrency, penalty, cache, report.

Without a config, --model names the one model (openai/gpt-4o from
OPENAI_API_KEY and OPENAI_BASE_URL, azure/DEPLOYMENT from AZURE_OPENAI_*,
mock/NAME the built-in model, offline) and --judge its judge (the same
forms, or replay:FILE); the engine is the embedded one on --db. A trial
with no API key:

  clinsql run --model mock/demo --judge mock/demo --tasks DATA --db out/demo/mimic-iv-demo.duckdb --split validation --limit 10 --out ../trial

exit codes: 0 everything generated, judged and reported; 3 something is
pending (a task, a model stopped, a judge run cut short): run again to
resume; 1 other errors; 2 usage errors.
`

func runRun(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "run")
	fs.Usage = func() { fmt.Fprint(env.Stderr, runUsage+"\n"); cliflag.PrintDefaults(fs) }
	config := fs.String("config", "", "benchmark config `file` (YAML)")
	quiet := fs.Bool("quiet", false, "no progress line during generation")
	batchWait := addBatchWait(fs)
	model := fs.String("model", "", "without --config: the model as `PROVIDER/NAME` (openai/gpt-4o, azure/DEPLOYMENT, mock/NAME)")
	judgeSpec := fs.String("judge", "", "without --config: the judge as PROVIDER/NAME or replay:`FILE`")
	tasks := fs.String("tasks", "", "without --config: ClinSQL tasks `folder`")
	out := fs.String("out", "", "without --config: output `folder`")
	sel := addTaskFilter(fs)
	eflags := addEngineFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var cfg *bench.Config
	var gcfg generateConfig
	judgeModel := "" // --judge PROVIDER/NAME (no config file)
	switch {
	case *config != "" && *model != "":
		return usagef("give --config FILE or --model PROVIDER/NAME, not both")
	case *config == "" && *model == "":
		return usagef("give --config FILE, or --model PROVIDER/NAME with --judge, --tasks, --db and --out (try --model mock/demo --judge mock/demo: no API key)")
	case *config != "" && ehrsqlbench.IsRunConfig(*config):
		return runEHRSQLConfig(ctx, env, *config, *quiet, *batchWait)
	case *config != "":
		var err error
		if cfg, err = bench.Load(*config); err != nil {
			return err
		}
		gcfg = generateConfig{Models: cfg.LoadedModels, Tasks: cfg.Tasks, Filter: &taskFilter{sel: *cfg.Selection(), keys: cfg.Task}, Out: cfg.Out,
			Cache: cfg.Cache, Prices: cfg.Prices, Budget: cfg.BudgetUSD, Concurrency: cfg.Concurrency, Engine: cfg.Engine.Name, Quiet: *quiet,
			EngineCfg: cfg.EngineConfig()}
	default:
		if *tasks == "" || *out == "" || *judgeSpec == "" {
			return usagef("--model needs --judge, --tasks and --out (and --db for the embedded engine)")
		}
		models, err := loadModels(env, "", *model)
		if err != nil {
			return err
		}
		engine, ecfg, err := eflags.config(env, 0)
		if err != nil {
			return err
		}
		cfg = &bench.Config{Tasks: *tasks, Out: *out, Judge: *judgeSpec, JudgeRaw: *judgeSpec, Report: filepath.Join(*out, "report"), LoadedModels: models}
		if _, ok := strings.CutPrefix(*judgeSpec, "replay:"); !ok {
			if _, err := llm.ParseModelSpec(*judgeSpec); err != nil {
				return usagef("--judge %q: want PROVIDER/NAME or replay:FILE: %v", *judgeSpec, err)
			}
			cfg.Judge, judgeModel = "", *judgeSpec
		}
		gcfg = generateConfig{Models: models, Tasks: *tasks, Filter: sel, Out: *out, Concurrency: refine.DefaultConcurrency,
			Engine: engine, EngineCfg: ecfg, Quiet: *quiet}
	}
	var pending []string

	fmt.Fprintf(env.Stdout, "== generate (%d models)\n", len(cfg.LoadedModels))
	gcfg.BatchWait = *batchWait
	res, err := generate(ctx, env, gcfg)
	if err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: exitIncomplete, Err: fmt.Errorf("%v; run the same command again to resume", err)}
		}
		return err
	}

	fmt.Fprintln(env.Stdout, "\n== judge")
	judged, notJudged, err := judgeBenchmark(ctx, env, cfg, judgeModel, res, *batchWait)
	if err != nil {
		return err
	}
	pending = append(pending, notJudged...)
	if cfg.Judge == "" && judgeModel == "" {
		fmt.Fprintln(env.Stdout, "no judge in the config: runs are not judged")
	}

	if len(judged) > 0 {
		fmt.Fprintf(env.Stdout, "\n== report (%d models) -> %s\n", len(judged), cfg.Report)
		req := defaultReportRequest()
		req.TasksDir, req.Out, req.Runs = cfg.Tasks, cfg.Report, judged
		if err := reportRun(ctx, env, req); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if len(pending) > 0 {
		for _, p := range pending {
			fmt.Fprintln(env.Stderr, "pending:", p)
		}
		return &ExitError{Code: exitIncomplete, Err: fmt.Errorf("the benchmark is not complete; run the same command again to resume")}
	}
	return nil
}

// judgeBenchmark judges each model whose every task is generated (the
// judge would score a pending task as an empty answer and keep that
// decision), and returns the run folders judged and what is pending.
func judgeBenchmark(ctx context.Context, env *Env, cfg *bench.Config, judgeModel string, res *refine.Result, batchWait time.Duration) (judged, pending []string, err error) {
	for _, m := range res.Models {
		switch {
		case m.Summary == nil || len(m.Summary.Pending) > 0:
			n := 0
			if m.Summary != nil {
				n = len(m.Summary.Pending)
			}
			pending = append(pending, fmt.Sprintf("%s: %d tasks not generated yet, not judged", m.Model, n))
			continue
		case cfg.Judge == "" && judgeModel == "":
			continue
		}
		fmt.Fprintf(env.Stdout, "-- %s\n", m.Model)
		req := defaultJudgeRequest()
		req.TasksDir, req.Run, req.BatchWait = cfg.Tasks, m.Dir, batchWait
		if file, ok := strings.CutPrefix(cfg.JudgeSpec(), "replay:"); ok {
			req.Replay = file
		} else if judgeModel != "" {
			req.Model = judgeModel
		} else {
			req.Config = cfg.Judge
		}
		err := judgeRun(ctx, env, req)
		var ee *ExitError
		switch {
		case errors.As(err, &ee) && ee.Code == exitIncomplete:
			// An interrupted judge output is not ranked: the report
			// would refuse it (see reports.Options.IncludeIncomplete).
			pending = append(pending, fmt.Sprintf("%s: judging stopped early, not reported: %v", m.Model, ee.Err))
		case err != nil:
			return nil, nil, fmt.Errorf("judge %s: %w", m.Model, err)
		default:
			judged = append(judged, m.Dir)
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
	}
	return judged, pending, nil
}
