package ehrsqlbench

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/reports"
	"github.com/clinsql/clinsql/runfolder"
)

// Job is an EHRSQL generation as clinsql generate --benchmark ehrsql (or
// clinsql run with an EHRSQL config) runs it: each model answers the
// questions of Split (the first Limit; 0: all), the thresholds are chosen
// on CalibrationSplit (the first CalibrationLimit; never the split being
// scored) to maximise RS(Penalty), and everything is written under Out
// ([Layout]), resumable ([Run]).
type Job struct {
	// DataDir is the EHRSQL data folder (clinsql datasets fetch ehrsql):
	// NAME/data.json, NAME/label.json, mimic_iv/mimic_iv.sqlite.
	DataDir                 string
	Split, CalibrationSplit string
	Limit, CalibrationLimit int
	Models                  []Model
	Out                     string
	Penalty                 float64
	// Concurrency bounds the questions in flight over all models.
	Concurrency int
	// Cache is the reply cache folder ("": Layout.Cache); Prices a price
	// table file ("": none), which Budget (0: none) caps the spending by.
	Cache, Prices string
	Budget        float64
	// Timeout bounds each query on SQLite; Seed is the bootstrap's.
	Timeout time.Duration
	Seed    uint64
}

// DefaultJob is the job's defaults (clinsql generate --benchmark
// ehrsql's).
func DefaultJob() Job {
	return Job{CalibrationSplit: "validation", Penalty: DefaultPenalty, Concurrency: 8, Timeout: sqlite.DefaultTimeout, Seed: 1}
}

// Job is the config's job over DefaultJob, with the models of its models
// file (which the caller loads).
func (c *RunConfig) Job(models []Model) Job {
	j := DefaultJob()
	j.Models, j.DataDir, j.Split, j.Out = models, c.Tasks, c.Split, c.Out
	j.Prices, j.Cache, j.Budget, j.Limit, j.CalibrationLimit = c.Prices, c.Cache, c.BudgetUSD, c.Limit, c.CalibrationLimit
	if c.CalibrationSplit != "" {
		j.CalibrationSplit = c.CalibrationSplit
	}
	if c.Concurrency != 0 {
		j.Concurrency = c.Concurrency
	}
	if c.Penalty != nil {
		j.Penalty = *c.Penalty
	}
	return j
}

// SameSplitError refuses a calibration split that is the split being
// scored: thresholds are never tuned on it.
type SameSplitError struct{ Split string }

func (e *SameSplitError) Error() string {
	return fmt.Sprintf("--calibration-split %s is the split being scored: thresholds are never tuned on it; give another (--calibration-split train)", e.Split)
}

// Inputs are what a job reads before it calls a model: the questions of
// both splits (the calibration split only when a strategy has a
// threshold), the retriever of few-shot examples (when a model has
// shots), the database with its schema and fingerprint, and the prices.
// Close closes the database.
type Inputs struct {
	Eval, Calibration       *ehrsql.Split
	EvalIDs, CalibrationIDs []string
	Retriever               *Retriever
	DB                      *sqlite.DB
	DatabaseSHA256, Schema  string
	Prices                  llm.Prices
}

// Open reads the job's inputs.
func (j Job) Open(ctx context.Context) (*Inputs, error) {
	in := &Inputs{}
	load := func(name string, n int) (*ehrsql.Split, []string, error) {
		dir, err := ehrsql.SplitDir(j.DataDir, name)
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
	var err error
	if in.Eval, in.EvalIDs, err = load(j.Split, j.Limit); err != nil {
		return nil, err
	}
	if NeedsCalibration(j.Models) {
		if in.Calibration, in.CalibrationIDs, err = load(j.CalibrationSplit, j.CalibrationLimit); err != nil {
			return nil, err
		}
		if in.Calibration.Dir == in.Eval.Dir {
			return nil, &SameSplitError{Split: j.CalibrationSplit}
		}
	}
	for _, m := range j.Models {
		if m.Shots > 0 {
			train, err := ehrsql.LoadSplit(filepath.Join(j.DataDir, "train"))
			if err != nil {
				return nil, fmt.Errorf("shots need the train split: %w", err)
			}
			in.Retriever = NewRetriever(train)
			break
		}
	}
	dbPath := filepath.Join(j.DataDir, "mimic_iv", "mimic_iv.sqlite")
	if in.DatabaseSHA256, err = runfolder.FileSHA256(dbPath, MaxDatabaseBytes); err != nil {
		return nil, err
	}
	in.DB, err = sqlite.Open(dbPath,
		sqlite.Options{Limits: executor.Limits{Timeout: j.Timeout, MaxRows: 1_000_000}, MaxIdle: 2 * runtime.GOMAXPROCS(0)})
	if err != nil {
		return nil, err
	}
	if in.Schema, err = SchemaText(ctx, in.DB); err != nil {
		in.DB.Close()
		return nil, err
	}
	if j.Prices != "" {
		if in.Prices, err = llm.LoadPrices(j.Prices); err != nil {
			in.DB.Close()
			return nil, err
		}
	}
	return in, nil
}

// Close closes the database.
func (in *Inputs) Close() error { return in.DB.Close() }

// Estimate plans the job's calls and their cost (EstimateRun).
func (j Job) Estimate(in *Inputs) []Estimate {
	return EstimateRun(j.Models, questionsOf(in.Eval, in.EvalIDs), questionsOf(in.Calibration, in.CalibrationIDs), in.Schema, in.Retriever, in.Prices)
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

// Run runs the job on its inputs ([Run]) under an exclusive lock on Out,
// with the reply cache authenticated with this machine's key and, with
// prices, a meter capped by Budget. lo are the caller's collaborators
// (Getenv, Batch, Now); progress, if set, is Options.Progress.
func (j Job) Run(ctx context.Context, in *Inputs, lo llm.Options, progress func(model, id string, resumed bool, rec *Record)) (*RunResult, error) {
	layout := Layout{Root: j.Out}
	lock, err := layout.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	cacheDir := j.Cache
	if cacheDir == "" {
		cacheDir = layout.Cache()
	}
	if lo.Cache, err = llm.OpenLocalCache(cacheDir); err != nil {
		return nil, err
	}
	if in.Prices != nil {
		lo.Meter = llm.NewMeter(in.Prices, j.Budget)
	}
	return Run(ctx, RunOptions{
		Options: Options{Layout: layout, Models: j.Models, DB: in.DB, Schema: in.Schema, Retriever: in.Retriever,
			LLM: lo, Concurrency: j.Concurrency, Progress: progress},
		Eval: in.Eval, EvalIDs: in.EvalIDs, Calibration: in.Calibration, CalibrationIDs: in.CalibrationIDs,
		Penalty: j.Penalty, Bootstrap: reports.Bootstrap{Seed: j.Seed}, DatabaseSHA256: in.DatabaseSHA256,
	})
}
