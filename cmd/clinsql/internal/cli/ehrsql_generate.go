package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/reports"
	"github.com/clinsql/clinsql/runfolder"
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
	DataDir, Split, CalSplit string
	Models, Only, Out        string
	Model                    string // --model PROVIDER/NAME, instead of Models
	Limit, CalLimit          int
	Penalty                  float64
	Concurrency              int
	Cache, Prices            string
	Budget                   float64
	Estimate, Quiet          bool
	Timeout                  time.Duration
	Seed                     uint64
	BatchWait                time.Duration
}

// defaultEHRSQLRequest is the command's defaults.
func defaultEHRSQLRequest() ehrsqlRequest {
	return ehrsqlRequest{CalSplit: "validation", Penalty: ehrsqlbench.DefaultPenalty, Concurrency: 8, Timeout: sqlite.DefaultTimeout, Seed: 1}
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
	r := defaultEHRSQLRequest()
	fs := newFlagSet(env, "generate --benchmark ehrsql")
	fs.Usage = func() { fmt.Fprint(env.Stderr, ehrsqlGenerateUsage+"\n"); printFlags(fs) }
	benchmark := fs.String("benchmark", "ehrsql", "benchmark: ehrsql here (clinsql: see clinsql generate -h)")
	fs.StringVar(&r.DataDir, "tasks", "", "EHRSQL 2024 data `folder` (clinsql datasets fetch ehrsql): NAME/data.json, NAME/label.json, mimic_iv/mimic_iv.sqlite")
	fs.StringVar(&r.Split, "split", "", "split `NAME` to answer and score (validation, test)")
	fs.StringVar(&r.CalSplit, "calibration-split", "validation", "split `NAME` the thresholds are chosen on")
	fs.StringVar(&r.Models, "models", "", "EHRSQL models `file` (YAML)")
	fs.StringVar(&r.Model, "model", "", modelFlagUsage)
	fs.StringVar(&r.Only, "only", "", "comma-separated model `names` to run (default: all)")
	fs.StringVar(&r.Out, "out", "", "output `folder`")
	fs.IntVar(&r.Limit, "limit", 0, "only the first `N` questions of --split (the predictions then cover only those)")
	fs.IntVar(&r.CalLimit, "calibration-limit", 0, "only the first `N` questions of the calibration split")
	fs.Float64Var(&r.Penalty, "penalty", ehrsqlbench.DefaultPenalty, "calibration maximises RS(`c`)")
	fs.IntVar(&r.Concurrency, "concurrency", 8, "questions in flight over all models")
	fs.StringVar(&r.Cache, "cache", "", "model reply cache `folder` (default OUT/llm-cache)")
	fs.StringVar(&r.Prices, "prices", "", "prices `file` (YAML, dollars per million tokens)")
	fs.Float64Var(&r.Budget, "budget", 0, "stop calling models once this many `dollars` are spent (needs --prices)")
	fs.BoolVar(&r.Estimate, "estimate", false, "print the planned calls, tokens and cost per model and strategy, then exit")
	fs.DurationVar(&r.Timeout, "timeout", sqlite.DefaultTimeout, "per-query timeout on SQLite (the official scorer has none)")
	fs.Uint64Var(&r.Seed, "seed", 1, "bootstrap seed")
	fs.BoolVar(&r.Quiet, "quiet", false, "no progress line")
	batchWait := addBatchWait(fs)
	alias(fs, "data-dir", "tasks")
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
	if err := checkModelSource(r.Models, r.Model); err != nil {
		return err
	}
	switch {
	case r.DataDir == "" || r.Split == "" || (r.Out == "" && !r.Estimate):
		return usagef("--tasks (the EHRSQL data folder), --split and --out are required")
	case r.Concurrency <= 0 || r.Limit < 0 || r.CalLimit < 0 || r.Budget < 0 || r.Penalty < 0:
		return usagef("--concurrency must be positive; --limit, --calibration-limit, --budget and --penalty not negative")
	case r.Budget > 0 && r.Prices == "":
		return usagef("--budget needs --prices")
	}
	return nil
}

// ehrsqlInputs are what an EHRSQL generation reads before it calls a
// model: the models, the questions of both splits, the retriever of
// few-shot examples and the database.
type ehrsqlInputs struct {
	models          []ehrsqlbench.Model
	eval, cal       *ehrsql.Split
	evalIDs, calIDs []string
	retriever       *ehrsqlbench.Retriever
	db              *sqlite.DB
	dbSHA, schema   string
	prices          llm.Prices
}

func loadEHRSQLInputs(ctx context.Context, env *Env, r ehrsqlRequest) (*ehrsqlInputs, error) {
	in := &ehrsqlInputs{}
	models, err := loadEHRSQLModels(env, r.Models, r.Model)
	if err != nil {
		return nil, err
	}
	if in.models, err = selectNamed(models, func(m ehrsqlbench.Model) string { return m.Name }, r.Only); err != nil {
		return nil, err
	}
	load := func(name string, n int) (*ehrsql.Split, []string, error) {
		dir, err := ehrsql.SplitDir(r.DataDir, name)
		if err != nil {
			return nil, nil, err
		}
		s, err := ehrsql.LoadSplit(dir)
		if err != nil {
			return nil, nil, err
		}
		ids := s.Data.IDs()
		if n > 0 && n < len(ids) {
			ids = ids[:n]
		}
		return s, ids, nil
	}
	if in.eval, in.evalIDs, err = load(r.Split, r.Limit); err != nil {
		return nil, err
	}
	if ehrsqlbench.NeedsCalibration(in.models) {
		if in.cal, in.calIDs, err = load(r.CalSplit, r.CalLimit); err != nil {
			return nil, err
		}
		if in.cal.Dir == in.eval.Dir {
			return nil, usagef("--calibration-split %s is the split being scored: thresholds are never tuned on it; give another (--calibration-split train)", r.CalSplit)
		}
	}
	for _, m := range in.models {
		if m.Shots > 0 {
			train, err := ehrsql.LoadSplit(filepath.Join(r.DataDir, "train"))
			if err != nil {
				return nil, fmt.Errorf("shots need the train split: %w", err)
			}
			in.retriever = ehrsqlbench.NewRetriever(train)
			break
		}
	}
	dbPath := filepath.Join(r.DataDir, "mimic_iv", "mimic_iv.sqlite")
	if in.dbSHA, err = runfolder.FileSHA256(dbPath, ehrsqlbench.MaxDatabaseBytes); err != nil {
		return nil, err
	}
	in.db, err = sqlite.Open(dbPath,
		sqlite.Options{Limits: executor.Limits{Timeout: r.Timeout, MaxRows: 1_000_000}, MaxIdle: 2 * runtime.GOMAXPROCS(0)})
	if err != nil {
		return nil, err
	}
	if in.schema, err = ehrsqlbench.SchemaText(ctx, in.db); err != nil {
		in.db.Close()
		return nil, err
	}
	if r.Prices != "" {
		if in.prices, err = llm.LoadPrices(r.Prices); err != nil {
			in.db.Close()
			return nil, err
		}
	}
	return in, nil
}

// questionsOf are the questions of s with the ids given.
func questionsOf(s *ehrsql.Split, ids []string) []ehrsql.Question {
	if s == nil {
		return nil
	}
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	var qs []ehrsql.Question
	for _, q := range s.Data.Questions {
		if keep[q.ID] {
			qs = append(qs, q)
		}
	}
	return qs
}

// ehrsqlGenerate runs an EHRSQL generation (ehrsqlbench.Run), or prints
// its estimate.
func ehrsqlGenerate(ctx context.Context, env *Env, r ehrsqlRequest) error {
	if err := r.check(); err != nil {
		return err
	}
	in, err := loadEHRSQLInputs(ctx, env, r)
	if err != nil {
		return err
	}
	defer in.db.Close()
	if r.Estimate {
		printEHRSQLEstimate(env.Stdout, ehrsqlbench.EstimateRun(in.models, questionsOf(in.eval, in.evalIDs), questionsOf(in.cal, in.calIDs), in.schema, in.retriever, in.prices))
		return nil
	}
	endpoints := make([]*llm.Endpoint, len(in.models))
	for i := range in.models {
		endpoints[i] = &in.models[i].Endpoint
	}
	stopMock, err := startEHRSQLMock([]*ehrsql.Split{in.eval, in.cal}, endpoints...)
	if err != nil {
		return err
	}
	defer stopMock()
	layout := ehrsqlbench.Layout{Root: r.Out}
	lock, err := layout.Lock()
	if err != nil {
		return err
	}
	defer lock.Release()
	cacheDir := r.Cache
	if cacheDir == "" {
		cacheDir = layout.Cache()
	}
	c, err := openCache(cacheDir)
	if err != nil {
		return err
	}
	var meter *llm.Meter
	if in.prices != nil {
		meter = llm.NewMeter(in.prices, r.Budget)
	}
	total := len(in.evalIDs) + len(in.calIDs)
	fmt.Fprintf(env.Stderr, "generate ehrsql: %d questions (%s %d, calibration %s %d) x %d models; output %s\n",
		total, r.Split, len(in.evalIDs), r.CalSplit, len(in.calIDs), len(in.models), r.Out)
	done := 0
	res, err := ehrsqlbench.Run(ctx, ehrsqlbench.RunOptions{
		Options: ehrsqlbench.Options{
			Layout: layout, Models: in.models, DB: in.db, Schema: in.schema, Retriever: in.retriever,
			LLM:         llm.Options{Cache: c, Meter: meter, Getenv: env.Getenv, Batch: newBatchReporter(env.Stderr, "generate ehrsql:").options(r.BatchWait)},
			Concurrency: r.Concurrency,
			Progress: func(model, id string, resumed bool, rec *ehrsqlbench.Record) {
				done++
				if !r.Quiet && done%100 == 0 {
					fmt.Fprintf(env.Stderr, "  %d items answered\n", done)
				}
			},
		},
		Eval: in.eval, EvalIDs: in.evalIDs, Calibration: in.cal, CalibrationIDs: in.calIDs,
		Penalty: r.Penalty, Bootstrap: reports.Bootstrap{Seed: r.Seed}, DatabaseSHA256: in.dbSHA,
	})
	if res != nil {
		for split, mrs := range res.Generated {
			for _, mr := range mrs {
				if mr.Stopped != "" {
					fmt.Fprintf(env.Stderr, "%s (%s): %s\n", mr.Model, split, mr.Stopped)
				}
			}
		}
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
	printEHRSQLResults(env.Stdout, res.Results)
	return nil
}

func printEHRSQLResults(w io.Writer, rs []*ehrsqlbench.Result) { ehrsqlbench.WriteResults(w, rs) }

func printEHRSQLEstimate(w io.Writer, es []ehrsqlbench.Estimate) { ehrsqlbench.WriteEstimates(w, es) }

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

// isEHRSQLConfig reports whether the run config at path says benchmark: ehrsql.
func isEHRSQLConfig(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var peek struct {
		Benchmark string `yaml:"benchmark"`
	}
	return yaml.Unmarshal(b, &peek) == nil && peek.Benchmark == "ehrsql"
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
	r := defaultEHRSQLRequest()
	r.Models, r.DataDir, r.Split, r.Out, r.Quiet, r.BatchWait = c.Models, c.Tasks, c.Split, c.Out, quiet, batchWait
	r.Prices, r.Cache, r.Budget, r.Limit, r.CalLimit = c.Prices, c.Cache, c.BudgetUSD, c.Limit, c.CalibrationLimit
	if c.CalibrationSplit != "" {
		r.CalSplit = c.CalibrationSplit
	}
	if c.Concurrency != 0 {
		r.Concurrency = c.Concurrency
	}
	if c.Penalty != nil {
		r.Penalty = *c.Penalty
	}
	fmt.Fprintln(env.Stdout, "== generate (EHRSQL 2024)")
	if err := ehrsqlGenerate(ctx, env, r); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "\n== report")
	return writeEHRSQLOnly(env, c.Report, []string{c.Out})
}
