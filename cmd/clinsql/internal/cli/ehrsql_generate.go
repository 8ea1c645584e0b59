package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/llm"
)

const ehrsqlGenerateUsage = `usage: clinsql generate --benchmark ehrsql --tasks DIR --split NAME (--models FILE | --model PROVIDER/NAME) --out DIR [flags]

Benchmarks models on EHRSQL 2024: each model answers each question of the
split (validation, test, train) with SQLite SQL for
DIR/mimic_iv/mimic_iv.sqlite (clinsql datasets fetch ehrsql writes DIR;
the split validation is the folder valid) (prompted with the
database's schema and, with shots: N, the N nearest train questions), SQLite
errors fed back for up to the model's rounds. Each model's strategies
(strategies: [model, model+logprob, ...]) are applied side by side; the
thresholds of logprob and consistency are chosen on --calibration-split
(default validation; never the split being scored) to maximise RS(--penalty) and
applied unchanged. Writes, per model and strategy,
OUT/<model>/<split>/<strategy>/prediction.json (the official submission,
"clinsql ehrsql score --run" reads it) and decisions.json, per item
OUT/<model>/<split>/items/<id>.json, OUT/<model>/calibration.json and
OUT/summary.json; prints RS(0), RS(5), RS(10), RS(N) with 95% bootstrap
intervals.

Running the same command again resumes: finished items are kept and model
replies come from the cache (OUT/llm-cache unless --cache).

exit codes: 0 done; 3 items pending (run again); 1 other errors; 2 usage errors.
`

// ehrsqlRequest is what clinsql generate --benchmark ehrsql is asked to
// do: from its flags, or from an EHRSQL benchmark config (clinsql run).
type ehrsqlRequest struct {
	ehrsqlbench.Job
	ModelsFile, Only string
	Model            string // --model PROVIDER/NAME, instead of ModelsFile
	Estimate, Quiet  bool
	BatchWait        time.Duration
}

// runGenerateEHRSQL is "clinsql generate --benchmark ehrsql".
func runGenerateEHRSQL(ctx context.Context, env *Env, args []string) error {
	r, err := parseEHRSQLFlags(env, args)
	if err != nil {
		return err
	}
	return ehrsqlGenerate(ctx, env, r)
}

func parseEHRSQLFlags(env *Env, args []string) (ehrsqlRequest, error) {
	r := ehrsqlRequest{Job: ehrsqlbench.DefaultJob()}
	fs := newFlagSet(env, "generate --benchmark ehrsql")
	fs.Usage = func() { fmt.Fprint(env.Stderr, ehrsqlGenerateUsage+"\n"); cliflag.PrintDefaults(fs) }
	benchmark := fs.String("benchmark", "ehrsql", "benchmark: ehrsql here (clinsql: see clinsql generate -h)")
	fs.StringVar(&r.DataDir, "tasks", "", "EHRSQL 2024 data `folder` (clinsql datasets fetch ehrsql): NAME/data.json, NAME/label.json, mimic_iv/mimic_iv.sqlite")
	fs.StringVar(&r.Split, "split", "", "split `NAME` to answer and score (validation, test)")
	fs.StringVar(&r.CalibrationSplit, "calibration-split", r.CalibrationSplit, "split `NAME` the thresholds are chosen on")
	fs.StringVar(&r.ModelsFile, "models", "", "EHRSQL models `file` (YAML)")
	fs.StringVar(&r.Model, "model", "", modelFlagUsage)
	fs.StringVar(&r.Only, "only", "", "comma-separated model `names` to run (default: all)")
	fs.StringVar(&r.Out, "out", "", "output `folder`")
	fs.IntVar(&r.Limit, "limit", 0, "only the first `N` questions of --split (the predictions then cover only those)")
	fs.IntVar(&r.CalibrationLimit, "calibration-limit", 0, "only the first `N` questions of the calibration split")
	fs.Float64Var(&r.Penalty, "penalty", r.Penalty, "calibration maximises RS(`c`)")
	fs.IntVar(&r.Concurrency, "concurrency", r.Concurrency, "questions in flight over all models")
	fs.StringVar(&r.Cache, "cache", "", "model reply cache `folder` (default OUT/llm-cache)")
	fs.StringVar(&r.Prices, "prices", "", "prices `file` (YAML, dollars per million tokens)")
	fs.Float64Var(&r.Budget, "budget", 0, "stop calling models once this many `dollars` are spent (needs --prices)")
	fs.BoolVar(&r.Estimate, "estimate", false, "print the planned calls, tokens and cost per model and strategy, then exit")
	fs.DurationVar(&r.Timeout, "timeout", r.Timeout, "per-query timeout on SQLite (the official scorer has none)")
	fs.Uint64Var(&r.Seed, "seed", r.Seed, "bootstrap seed")
	fs.BoolVar(&r.Quiet, "quiet", false, "no progress line")
	batchWait := addBatchWait(fs)
	cliflag.Alias(fs, "data-dir", "tasks")
	if err := parseFlags(fs, args); err != nil {
		return r, err
	}
	r.BatchWait = *batchWait
	if *benchmark != "ehrsql" {
		return r, usagef("--benchmark must be ehrsql or clinsql, not %q", *benchmark)
	}
	return r, nil
}

// check refuses a request the command would refuse on its command line.
func (r *ehrsqlRequest) check() error {
	if err := checkModelSource(r.ModelsFile, r.Model); err != nil {
		return err
	}
	switch {
	case r.DataDir == "" || r.Split == "" || (r.Out == "" && !r.Estimate):
		return usagef("--tasks (the EHRSQL data folder), --split and --out are required")
	case r.Concurrency <= 0 || r.Limit < 0 || r.CalibrationLimit < 0 || r.Budget < 0 || r.Penalty < 0:
		return usagef("--concurrency must be positive; --limit, --calibration-limit, --budget and --penalty not negative")
	case r.Budget > 0 && r.Prices == "":
		return usagef("--budget needs --prices")
	}
	return nil
}

// ehrsqlGenerate runs an EHRSQL generation (ehrsqlbench.Job), or prints
// its estimate.
func ehrsqlGenerate(ctx context.Context, env *Env, r ehrsqlRequest) error {
	if err := r.check(); err != nil {
		return err
	}
	models, err := loadEHRSQLModels(env, r.ModelsFile, r.Model)
	if err != nil {
		return err
	}
	if r.Models, err = selectNamed(models, func(m ehrsqlbench.Model) string { return m.Name }, r.Only); err != nil {
		return err
	}
	in, err := r.Open(ctx)
	if se := (*ehrsqlbench.SameSplitError)(nil); errors.As(err, &se) {
		return usageError{Msg: err.Error()}
	}
	if err != nil {
		return err
	}
	defer in.Close()
	if r.Estimate {
		ehrsqlbench.WriteEstimates(env.Stdout, r.Job.Estimate(in))
		return nil
	}
	endpoints := make([]*llm.Endpoint, len(r.Models))
	for i := range r.Models {
		endpoints[i] = &r.Models[i].Endpoint
	}
	stopMock, err := startMock(ehrsql.GoldByQuestion(in.Eval, in.Calibration), endpoints...)
	if err != nil {
		return err
	}
	defer stopMock()
	fmt.Fprintf(env.Stderr, "generate ehrsql: %d questions (%s %d, calibration %s %d) x %d models; output %s\n",
		len(in.EvalIDs)+len(in.CalibrationIDs), r.Split, len(in.EvalIDs), r.CalibrationSplit, len(in.CalibrationIDs), len(r.Models), r.Out)
	done := 0
	res, err := r.Run(ctx, in, llm.Options{Getenv: env.Getenv, Batch: llm.NewBatchReporter(env.Stderr, "generate ehrsql:").Options(r.BatchWait), Now: env.Now},
		func(model, id string, resumed bool, rec *ehrsqlbench.Record) {
			done++
			if !r.Quiet && done%100 == 0 {
				fmt.Fprintf(env.Stderr, "  %d items answered\n", done)
			}
		})
	if res != nil {
		res.WriteStopped(env.Stderr)
	}
	if err != nil {
		if ctx.Err() != nil {
			return &ExitError{Code: 3, Err: fmt.Errorf("%v; run the same command again to resume", err)}
		}
		return err
	}
	if res.Pending > 0 {
		return &ExitError{Code: 3, Err: fmt.Errorf("%d items pending; run the same command again to resume", res.Pending)}
	}
	ehrsqlbench.WriteResults(env.Stdout, res.Results)
	return nil
}

// benchmarkOf returns the --benchmark value in args (default clinsql).
func benchmarkOf(args []string) string {
	for i, a := range args {
		for _, p := range []string{"--benchmark", "-benchmark"} {
			if a == p && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v
			}
		}
		if a == "--" {
			break
		}
	}
	return "clinsql"
}

// runEHRSQLConfig is clinsql run with an EHRSQL config: generation,
// calibration, scoring, then the report's EHRSQL section.
func runEHRSQLConfig(ctx context.Context, env *Env, path string, quiet bool, batchWait time.Duration) error {
	c, err := ehrsqlbench.LoadRunConfig(path)
	if err != nil {
		return err
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(env.Stderr, "warning:", w)
	}
	fmt.Fprintln(env.Stdout, "== generate (EHRSQL 2024)")
	if err := ehrsqlGenerate(ctx, env, ehrsqlRequest{Job: c.Job(nil), ModelsFile: c.Models, Quiet: quiet, BatchWait: batchWait}); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "\n== report")
	return writeEHRSQLOnly(env, c.Report, []string{c.Out})
}
