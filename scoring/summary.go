package scoring

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/internal/pyfmt"
	"github.com/clinsql/clinsql/internal/pyjson"
)

// Average is the mean SQL and execution score over a group of tasks.
type Average struct {
	N int
	// SQL and Results are unrounded means, summed in task order as the
	// reference does; Round6 gives the published 6-decimal figures.
	SQL, Results float64
	// InvalidTasks counts tasks in the group with invalid leaves.
	InvalidTasks int
}

// Round6 rounds as the reference's round(x, 6) does.
func Round6(x float64) float64 { return pyfmt.Round(x, 6) }

func average(ts []*TaskScore) Average {
	a := Average{N: len(ts)}
	for _, t := range ts {
		a.SQL += t.SQL.Value
		a.Results += t.Results.Value
		if t.Invalid() > 0 {
			a.InvalidTasks++
		}
	}
	if a.N > 0 {
		a.SQL /= float64(a.N)
		a.Results /= float64(a.N)
	}
	return a
}

// Breakdown holds the averages the reference publishes: overall, per
// difficulty, per scenario and per scenario x difficulty. Groups without
// tasks are absent.
type Breakdown struct {
	All          Average
	ByDifficulty map[string]Average
	ByScenario   map[string]Average
	// ByCell is keyed by scenario, then difficulty.
	ByCell map[string]map[string]Average
}

// Summarise computes the breakdown of task scores, in their order.
func Summarise(ts []*TaskScore) *Breakdown {
	b := &Breakdown{All: average(ts), ByDifficulty: map[string]Average{}, ByScenario: map[string]Average{}, ByCell: map[string]map[string]Average{}}
	byDiff := map[string][]*TaskScore{}
	byScen := map[string][]*TaskScore{}
	byCell := map[[2]string][]*TaskScore{}
	for _, t := range ts {
		byDiff[t.Key.Difficulty] = append(byDiff[t.Key.Difficulty], t)
		byScen[t.Key.Domain] = append(byScen[t.Key.Domain], t)
		byCell[[2]string{t.Key.Domain, t.Key.Difficulty}] = append(byCell[[2]string{t.Key.Domain, t.Key.Difficulty}], t)
	}
	for d, g := range byDiff {
		b.ByDifficulty[d] = average(g)
	}
	for s, g := range byScen {
		b.ByScenario[s] = average(g)
		b.ByCell[s] = map[string]Average{}
	}
	for k, g := range byCell {
		b.ByCell[k[0]][k[1]] = average(g)
	}
	return b
}

// Scenarios returns the scenarios present, sorted.
func (b *Breakdown) Scenarios() []string {
	var out []string
	for s := range b.ByScenario {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// difficulties lists the present difficulties in benchmark order, then any
// others sorted.
func difficulties[V any](m map[string]V) []string {
	var out []string
	for _, d := range datasets.Difficulties {
		if _, ok := m[d]; ok {
			out = append(out, d)
		}
	}
	var extra []string
	for d := range m {
		if _, known := indexOf(datasets.Difficulties, d); !known {
			extra = append(extra, d)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

func indexOf(list []string, s string) (int, bool) {
	for i, x := range list {
		if x == s {
			return i, true
		}
	}
	return -1, false
}

func group(a Average) pyjson.Object {
	return pyjson.Object{
		{Key: "total_samples", Value: a.N},
		{Key: "average_sql_score", Value: Round6(a.SQL)},
		{Key: "average_results_score", Value: Round6(a.Results)},
	}
}

func difficultyBreakdown(m map[string]Average) pyjson.Object {
	var o pyjson.Object
	for _, d := range difficulties(m) {
		o = append(o, pyjson.Member{Key: d, Value: group(m[d])})
	}
	return o
}

// Files holds the reference's three summary files, encoded.
type Files struct {
	Scoring, Difficulty, Scenario []byte
}

// Encode renders r in the reference's shapes, byte-compatible with Python's
// json.dump(indent=2). Strict-mode runs add fields of their own (the mode,
// the clinsql build, invalid counts and score bounds); reference-mode files
// carry none, so that they can equal the published ones: their mode is
// stated beside them (rescore_summary.json, judge_summary.json, a report's
// models/<model>/<split>/reference/ folder).
func (r *Rescored) Encode() (Files, error) {
	b := Summarise(r.Tasks)
	summary := pyjson.Object{
		{Key: "experiment_model", Value: r.Model},
		{Key: "split", Value: r.Split},
		{Key: "category", Value: "all_categories"},
		{Key: "difficulty", Value: "all"},
		{Key: "total_samples", Value: b.All.N},
		{Key: "average_sql_score", Value: Round6(b.All.SQL)},
		{Key: "average_results_score", Value: Round6(b.All.Results)},
		{Key: "difficulty_breakdown", Value: difficultyBreakdown(b.ByDifficulty)},
	}
	if r.Completeness != "" && r.Completeness != "complete" {
		// Never mistaken for a finished run's scores; finished runs keep
		// the reference's bytes.
		summary = append(summary, pyjson.Member{Key: "completeness", Value: r.Completeness})
	}
	strict := r.Mode != "reference"
	if strict {
		summary = append(summary,
			pyjson.Member{Key: "scoring_mode", Value: string(r.Mode)},
			pyjson.Member{Key: "producer", Value: buildinfo.Current()},
			pyjson.Member{Key: "tasks_with_invalid_leaves", Value: b.All.InvalidTasks})
	}
	var samples []any
	for _, t := range r.Tasks {
		s := pyjson.Object{
			{Key: "sample_path", Value: samplePath(t)},
			{Key: "sql_score", Value: t.SQL.Value},
			{Key: "results_score", Value: t.Results.Value},
		}
		if strict {
			s = append(s,
				pyjson.Member{Key: "graded", Value: t.Graded},
				pyjson.Member{Key: "invalid_leaves", Value: t.Invalid()},
				pyjson.Member{Key: "sql_score_bounds", Value: []any{t.SQL.Lo, t.SQL.Hi}},
				pyjson.Member{Key: "results_score_bounds", Value: []any{t.Results.Lo, t.Results.Hi}})
		}
		samples = append(samples, s)
	}
	var f Files
	var err error
	if f.Scoring, err = pyjson.Marshal(pyjson.Object{{Key: "summary", Value: summary}, {Key: "samples", Value: samples}}); err != nil {
		return f, err
	}
	mark := func(o pyjson.Object) pyjson.Object {
		if r.Completeness != "" && r.Completeness != "complete" {
			o = append(o, pyjson.Member{Key: "completeness", Value: r.Completeness})
		}
		return o
	}
	if f.Difficulty, err = pyjson.Marshal(mark(pyjson.Object{
		{Key: "experiment_model", Value: r.Model},
		{Key: "split", Value: r.Split},
		{Key: "difficulty_breakdown", Value: difficultyBreakdown(b.ByDifficulty)},
	})); err != nil {
		return f, err
	}
	var scen []any
	for _, s := range b.Scenarios() {
		scen = append(scen, append(pyjson.Object{{Key: "category", Value: s}}, append(group(b.ByScenario[s]),
			pyjson.Member{Key: "difficulty_breakdown", Value: difficultyBreakdown(b.ByCell[s])})...))
	}
	f.Scenario, err = pyjson.Marshal(mark(pyjson.Object{
		{Key: "experiment_model", Value: r.Model},
		{Key: "split", Value: r.Split},
		{Key: "scenarios", Value: scen},
	}))
	return f, err
}

func samplePath(t *TaskScore) string {
	if t.SamplePath != "" {
		return t.SamplePath
	}
	return t.Key.String()
}

// File names of the reference's summaries.
const (
	ScoringFile    = "scoring_results.json"
	DifficultyFile = "difficulty_scoring_results.json"
	ScenarioFile   = "scenario_scoring_results.json"
)

// WriteFiles writes the three summaries into dir. Like Python's json.dump,
// it writes no trailing newline, so the files equal the published ones byte
// for byte.
func (r *Rescored) WriteFiles(dir string) error {
	f, err := r.Encode()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{ScoringFile: f.Scoring, DifficultyFile: f.Difficulty, ScenarioFile: f.Scenario} {
		if err := atomicfile.Write(filepath.Join(dir, name), b); err != nil {
			return err
		}
	}
	return nil
}
