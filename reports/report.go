package reports

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/audit"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/rubric"
)

// Options say what to report on and how.
type Options struct {
	// Tasks are the ClinSQL tasks the decisions refer to.
	Tasks []*datasets.Task
	// Gradings are recorded detailed_grading.json files; Runs run folders;
	// Judged judge output folders (clinsql judge --out), each reported
	// with the run it judged (a Run of the same answers, else the folder
	// its judge_summary.json names), checked to hold those answers still.
	Gradings, Runs, Judged []string
	// Mode is the aggregation mode of the main tables (default Strict, as
	// everywhere in clinsql; Reference reproduces the published numbers);
	// the other mode is shown beside it.
	Mode rubric.Mode
	// Bootstrap configures the confidence intervals.
	Bootstrap Bootstrap
	// RankBy orders the leaderboard (default MetricExec, as the paper).
	RankBy Metric
	// Compare lists model pairs (A, B) whose paired difference A-B to
	// report; empty compares each model with the next one in the ranking.
	Compare [][2]string
	// Reliability configures RS(c) on ClinSQL (abstention marker, the
	// execution score that counts as correct).
	Reliability Reliability
	// PreviewRows bounds the result rows shown per task (default 10).
	PreviewRows int
	// Workers bounds concurrent loading and scoring (default GOMAXPROCS).
	Workers int
	// IncludeIncomplete reports judge outputs that are a subset (part of
	// the run's tasks on purpose), partial (a run judged with tasks
	// missing) or interrupted (leaves undecided). They
	// are refused otherwise; included, each is flagged by a marker in its
	// name ("gpt-5 [partial]"), so every table, CSV and the HTML show it.
	IncludeIncomplete bool
	// Subset describes a task filter (--task, --domain, a domain folder,
	// ...) when Tasks are part of the inputs' tasks on purpose: the
	// report is then over those tasks only and says so in every file.
	Subset string
}

// Report is everything the output files show.
type Report struct {
	Mode        rubric.Mode
	Bootstrap   Bootstrap
	RankBy      Metric
	Reliability Reliability
	// PreviewRows bounds the result preview of each task in the HTML.
	PreviewRows int
	Splits      []string
	Tasks       map[datasets.Key]*datasets.Task
	// Models in input order (gradings, then judged runs).
	Models []*Model
	// Boards[mode][i] is Models[i]'s leaderboard in that mode.
	Boards      map[rubric.Mode][]*Board
	Rankings    []Ranking
	Comparisons []*Comparison
	Taxonomy    *Taxonomy
	Refinement  []RefinementRow
	Health      []HealthRow
	// Audit is a judge audit to show beside the models (clinsql audit).
	Audit *audit.Report
	// Labels is the judges' accuracy against a label set and the
	// leaderboard corrected by it (clinsql report --labels), nil without.
	Labels *LabelPanel
	// EHRSQL is the EHRSQL 2024 section (ehrsqlbench.Section), nil
	// without one.
	EHRSQL *EHRSQL
	// Warnings are problems that did not stop the report, each naming its
	// file.
	Warnings []error
	// Subset describes the task filter of a report over part of the
	// tasks ("" for whole task sets).
	Subset string
}

// Modes lists the report's mode first, then the other.
func (r *Report) Modes() []rubric.Mode {
	if r.Mode == rubric.Strict {
		return []rubric.Mode{rubric.Strict, rubric.Reference}
	}
	return []rubric.Mode{rubric.Reference, rubric.Strict}
}

// Other is the mode shown beside the report's.
func (r *Report) Other() rubric.Mode { return r.Modes()[1] }

// Build loads and scores every input and computes the report.
func Build(ctx context.Context, opt Options) (*Report, error) {
	if len(opt.Tasks) == 0 {
		return nil, errors.New("no tasks")
	}
	if len(opt.Gradings)+len(opt.Runs)+len(opt.Judged) == 0 {
		return nil, errors.New("nothing to report: give at least one grading file or run folder")
	}
	mode := opt.Mode
	if mode == "" {
		mode = rubric.Strict
	}
	if _, err := rubric.ParseMode(string(mode)); err != nil {
		return nil, err
	}
	rankBy := opt.RankBy
	if rankBy == "" {
		rankBy = MetricExec
	}
	if _, err := ParseMetric(string(rankBy)); err != nil {
		return nil, err
	}
	rel := opt.Reliability
	if rel.Threshold == 0 {
		rel.Threshold = 1
	}
	if !(rel.Threshold > 0 && rel.Threshold <= 1) {
		return nil, fmt.Errorf("reliability threshold %v outside (0, 1]", rel.Threshold)
	}
	if rel.Abstention.Marker == "" {
		rel.Abstention.Marker = "null"
	}
	workers := defaultWorkers(opt.Workers)
	srcs, err := loadSources(ctx, opt.Gradings, opt.Runs, opt.Judged, workers)
	if err != nil {
		return nil, err
	}
	models, err := scoreModels(ctx, srcs, opt.Tasks, workers, opt.Subset != "")
	if err != nil {
		return nil, err
	}
	if err := flagIncomplete(models, opt.Tasks, opt.IncludeIncomplete, opt.Subset != ""); err != nil {
		return nil, err
	}
	for _, m := range models {
		m.Database = m.databaseNote() // after the names are final
	}
	r := &Report{Mode: mode, Bootstrap: opt.Bootstrap, RankBy: rankBy, Reliability: rel, PreviewRows: opt.PreviewRows,
		Tasks: map[datasets.Key]*datasets.Task{}, Models: models, Boards: map[rubric.Mode][]*Board{}, Subset: opt.Subset}
	if r.PreviewRows <= 0 {
		r.PreviewRows = 10
	}
	if r.Bootstrap.Resamples <= 0 {
		r.Bootstrap.Resamples = Bootstrap{}.resamples()
	}
	if r.Bootstrap.Level <= 0 || r.Bootstrap.Level >= 1 {
		r.Bootstrap.Level = Bootstrap{}.level()
	}
	for _, t := range opt.Tasks {
		r.Tasks[t.Key] = t
	}
	for _, m := range models {
		r.Warnings = append(r.Warnings, m.Warnings...)
	}
	r.Splits = splitsOf(models)
	for _, md := range r.Modes() {
		r.Boards[md] = make([]*Board, len(models))
	}
	// Boards are independent per model and mode; bootstrap draws are
	// seeded per cell, so the order of work does not matter.
	var g errgroup.Group
	g.SetLimit(workers)
	for i := range models {
		for _, md := range r.Modes() {
			g.Go(func() error {
				r.Boards[md][i] = board(models[i], md, r.Splits, r.Bootstrap, r.Reliability)
				return nil
			})
		}
	}
	g.Wait()
	for _, s := range r.Splits {
		r.Rankings = append(r.Rankings, rankModels(r.Boards[mode], s, rankBy))
	}
	if err := r.compare(opt.Compare); err != nil {
		return nil, err
	}
	r.Taxonomy = taxonomy(models, r.Tasks)
	// Per-model tables follow the first split's ranking.
	for _, name := range r.orderedModels() {
		m := r.Model(name)
		rows, warns := refinement(m, r.Splits)
		r.Refinement = append(r.Refinement, rows...)
		r.Warnings = append(r.Warnings, warns...)
		r.Health = append(r.Health, health(m, r.Tasks))
	}
	return r, ctx.Err()
}

func (r *Report) compare(pairs [][2]string) error {
	if len(pairs) == 0 {
		for _, rk := range r.Rankings {
			for i := 0; i+1 < len(rk.Models); i++ {
				a, b := r.Model(rk.Models[i]), r.Model(rk.Models[i+1])
				r.Comparisons = append(r.Comparisons, filterSplit(compare(a, b, r.Mode, rk.Split, r.Bootstrap), rk.Split)...)
			}
		}
		return nil
	}
	var errs []error
	for _, p := range pairs {
		a, b := r.Model(p[0]), r.Model(p[1])
		for i, m := range []*Model{a, b} {
			if m == nil {
				errs = append(errs, fmt.Errorf("compare %s,%s: no model %q (models: %s)", p[0], p[1], p[i], strings.Join(r.ModelNames(), ", ")))
			}
		}
		if a == nil || b == nil {
			continue
		}
		for _, s := range r.Splits {
			r.Comparisons = append(r.Comparisons, compare(a, b, r.Mode, s, r.Bootstrap)...)
		}
	}
	return errors.Join(errs...)
}

func filterSplit(cs []*Comparison, split string) []*Comparison {
	var out []*Comparison
	for _, c := range cs {
		if c.Split == split {
			out = append(out, c)
		}
	}
	return out
}

// Model returns the model of a name, nil if none.
func (r *Report) Model(name string) *Model {
	for _, m := range r.Models {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// ModelNames lists the models in input order.
func (r *Report) ModelNames() []string {
	var out []string
	for _, m := range r.Models {
		out = append(out, m.Name)
	}
	return out
}

// Board returns a model's board in a mode.
func (r *Report) Board(mode rubric.Mode, model string) *Board {
	for _, b := range r.Boards[mode] {
		if b.Model == model {
			return b
		}
	}
	return nil
}

// Ranking returns the ranking of a split.
func (r *Report) Ranking(split string) Ranking {
	for _, rk := range r.Rankings {
		if rk.Split == split {
			return rk
		}
	}
	return Ranking{Split: split}
}

// sortedKeys returns the task keys sorted.
func (r *Report) sortedKeys() []datasets.Key {
	keys := make([]datasets.Key, 0, len(r.Tasks))
	for k := range r.Tasks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	return keys
}

// flagIncomplete refuses models whose decisions are not a finished judge
// run over a whole run, or, when they are asked for, marks their names. A
// judge output over a subset is no refusal in a report over a subset
// (subset) that it grades every task of: it is then as complete as the
// report, which says "Subset" in every file.
func flagIncomplete(models []*Model, tasks []*datasets.Task, include, subset bool) error {
	var errs []error
	for _, m := range models {
		if m.Completeness == "complete" {
			continue
		}
		if m.Completeness == "failed" {
			errs = append(errs, fmt.Errorf("%s: the judge run of model %q failed (its judge endpoint refused its calls: a configuration error; see stopped_by in %s): it decided nothing to report, and is never reported; fix the judge configuration and judge again",
				m.Run, m.Name, JudgeSummaryFile))
			continue
		}
		ungraded := m.ungraded(tasks)
		if m.Completeness == "subset" && subset && len(ungraded) == 0 {
			continue
		}
		if !include {
			errs = append(errs, m.incompleteError(ungraded))
			continue
		}
		m.Name += " [" + m.Completeness + "]"
	}
	return errors.Join(errs...)
}

// ungraded lists the tasks that the model's decisions lack.
func (m *Model) ungraded(tasks []*datasets.Task) []string {
	var out []string
	for _, t := range tasks {
		if st := m.strict[t.Key]; st == nil || !st.Graded {
			out = append(out, t.Key.String())
		}
	}
	return out
}

// incompleteError says why a model's decisions are refused and what to do.
func (m *Model) incompleteError(ungraded []string) error {
	where := strings.Join(m.Gradings, ", ")
	if m.Run != "" {
		where = m.Run
	}
	var todo string
	switch m.Completeness {
	case "interrupted":
		todo = "finish it: run the same clinsql judge again"
	case "partial":
		todo = "finish generating the run (the same clinsql generate again), then judge it again"
	case "subset":
		what := "a subset"
		if m.Judge != nil && m.Judge.Subset != "" {
			what += " (" + m.Judge.Subset + ")"
		}
		first := ""
		if len(ungraded) > 0 {
			first = fmt.Sprintf(", which lacks %d of the report's tasks (first: %s)", len(ungraded), ungraded[0])
		}
		return fmt.Errorf("%s: model %q was judged on %s%s: report over the tasks it was judged on (drop the subset flags; a report over its runs takes their subset), "+
			"or judge the whole run (clinsql judge without subset flags)", where, m.Name, what, first)
	default:
		todo = "judge it again"
	}
	return fmt.Errorf("%s: the judge output of model %q is %s, not a score of the whole run: %s, or pass --include-incomplete to report it flagged",
		where, m.Name, m.Completeness, todo)
}
