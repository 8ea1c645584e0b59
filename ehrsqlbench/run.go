package ehrsqlbench

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/reports"
)

// RunOptions configure Run: Options for generation, plus the splits and
// the calibration.
type RunOptions struct {
	Options
	// Eval is the split to answer and score (Options.Split is ignored);
	// EvalIDs its items (default all).
	Eval    *ehrsql.Split
	EvalIDs []string
	// Calibration is the split the thresholds are chosen on (needed when a
	// strategy has one; never the evaluation split); CalibrationIDs its
	// items (default all).
	Calibration    *ehrsql.Split
	CalibrationIDs []string
	// Penalty is the c of the RS(c) calibration maximises (default 10).
	Penalty   float64
	Bootstrap reports.Bootstrap
	// DatabaseSHA256 fingerprints the database the answers ran on, for
	// summary.json.
	DatabaseSHA256 string
}

// RunInputs are what summary.json's scores are traced to.
type RunInputs struct {
	EvalSplit         string  `json:"eval_split"`
	EvalSHA256        string  `json:"eval_split_sha256"`
	EvalItems         int     `json:"eval_items"`
	CalibrationSplit  string  `json:"calibration_split,omitempty"`
	CalibrationSHA256 string  `json:"calibration_split_sha256,omitempty"`
	CalibrationItems  int     `json:"calibration_items,omitempty"`
	DatabaseSHA256    string  `json:"database_sha256"`
	Penalty           float64 `json:"penalty"`
}

// RunResult is what Run did.
type RunResult struct {
	Generated    map[string][]*ModelResult `json:"-"` // per split
	Calibrations []*Calibration            `json:"-"`
	Results      []*Result                 `json:"results"`
	Pending      int                       `json:"-"`
	// Inputs and Producer trace the scores to the splits, database and
	// build (each model's settings are in OUT/<model>/settings.json).
	Inputs   RunInputs       `json:"inputs"`
	Producer buildinfo.Stamp `json:"producer"`
}

// WriteStopped says which models were stopped on which split, and why.
func (r *RunResult) WriteStopped(w io.Writer) {
	for split, mrs := range r.Generated {
		for _, mr := range mrs {
			if mr.Stopped != "" {
				fmt.Fprintf(w, "%s (%s): %s\n", mr.Model, split, mr.Stopped)
			}
		}
	}
}

// NeedsCalibration reports whether any model has a strategy with a threshold.
func NeedsCalibration(models []Model) bool {
	for _, m := range models {
		for _, st := range m.StrategyList() {
			if st.Calibrated() {
				return true
			}
		}
	}
	return false
}

// Run generates the calibration split (when a strategy needs it) and the
// evaluation split, calibrates each model's thresholds on the former,
// applies them unchanged to the latter, and writes the predictions,
// decisions and OUT/summary.json. With items pending it stops after
// generation (RunResult.Pending > 0): run again to resume.
func Run(ctx context.Context, opt RunOptions) (*RunResult, error) {
	if opt.Penalty == 0 {
		opt.Penalty = DefaultPenalty
	}
	res := &RunResult{Generated: map[string][]*ModelResult{}}
	type job struct {
		split *ehrsql.Split
		ids   []string
	}
	var jobs []job
	if NeedsCalibration(opt.Models) {
		switch {
		case opt.Calibration == nil:
			return nil, errors.New("a strategy has a threshold (logprob, consistency): a calibration split is needed")
		case opt.Calibration.Name == opt.Eval.Name:
			return nil, fmt.Errorf("the calibration split is the evaluation split (%s): thresholds are never tuned on the split being scored", opt.Eval.Name)
		}
		jobs = append(jobs, job{opt.Calibration, orAll(opt.CalibrationIDs, opt.Calibration)})
	}
	jobs = append(jobs, job{opt.Eval, orAll(opt.EvalIDs, opt.Eval)})
	for _, j := range jobs {
		o := opt.Options
		o.Split, o.IDs = j.split, j.ids
		mrs, err := Generate(ctx, o)
		res.Generated[j.split.Name] = mrs
		if err != nil {
			return res, fmt.Errorf("split %s: %w", j.split.Name, err)
		}
		for _, mr := range mrs {
			res.Pending += mr.Pending
		}
	}
	if res.Pending > 0 {
		return res, nil
	}
	load := func(j job) (map[string]map[string]*Record, error) {
		all := map[string]map[string]*Record{}
		for _, m := range opt.Models {
			recs, missing, err := opt.Layout.LoadRecords(m.Name, j.split.Name, j.ids)
			if err != nil {
				return nil, err
			}
			if len(missing) > 0 {
				return nil, fmt.Errorf("model %q, split %s: %d items without a record", m.Name, j.split.Name, len(missing))
			}
			all[m.Name] = recs
		}
		return all, nil
	}
	cals := map[string]*Calibration{}
	if len(jobs) == 2 {
		recs, err := load(jobs[0])
		if err != nil {
			return res, err
		}
		for _, m := range opt.Models {
			cal, err := Calibrate(ctx, opt.DB, jobs[0].split, jobs[0].ids, m, recs, opt.Penalty)
			if err != nil {
				return res, fmt.Errorf("model %q: %w", m.Name, err)
			}
			if err := writeJSON(opt.Layout.Calibration(m.Name), cal); err != nil {
				return res, err
			}
			cals[m.Name] = cal
			res.Calibrations = append(res.Calibrations, cal)
		}
	}
	ev := jobs[len(jobs)-1]
	recs, err := load(ev)
	if err != nil {
		return res, err
	}
	for _, m := range opt.Models {
		rs, err := Evaluate(ctx, opt.DB, opt.Layout, ev.split, ev.ids, m, recs, cals[m.Name], opt.Bootstrap)
		if err != nil {
			return res, fmt.Errorf("model %q: %w", m.Name, err)
		}
		res.Results = append(res.Results, rs...)
	}
	res.Inputs = RunInputs{EvalSplit: ev.split.Name, EvalSHA256: ev.split.SHA256(), EvalItems: len(ev.ids),
		DatabaseSHA256: opt.DatabaseSHA256, Penalty: opt.Penalty}
	if len(jobs) == 2 {
		res.Inputs.CalibrationSplit, res.Inputs.CalibrationSHA256, res.Inputs.CalibrationItems = jobs[0].split.Name, jobs[0].split.SHA256(), len(jobs[0].ids)
	}
	res.Producer = buildinfo.Current()
	return res, writeJSON(opt.Layout.Summary(), res)
}

func orAll(ids []string, s *ehrsql.Split) []string {
	if ids != nil {
		return ids
	}
	return s.Data.IDs()
}
