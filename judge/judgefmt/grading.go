package judgefmt

import (
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/pyjson"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// Graded is one task's decisions, as the grading file lists them.
type Graded struct {
	Task *datasets.Task
	// Records holds the last record of every decided leaf.
	Records map[LeafKey]*Record
}

// MarshalGrading renders detailed_grading.json in the reference shape, leaves
// only (the early-graded variant), each entry with the reference's fields
// (score, explanation, critical, weight) plus verdict and source. Skipped
// leaves are written with score 0 and an explanation saying why, invalid
// ones with an explanation starting "Error:" (so that clinsql rescore
// classifies them as judge errors), undecided ones not at all: rescoring
// the file gives the same scores as the judge. scoring.ReadGrading reads it,
// as it reads the published gradings.
func MarshalGrading(r *scoring.Rescored, tasks map[datasets.Key]Graded, s *Summary) ([]byte, error) {
	b := scoring.Summarise(r.Tasks)
	diff := pyjson.Object{}
	for _, d := range datasets.Difficulties {
		if a, ok := b.ByDifficulty[d]; ok {
			diff = append(diff, pyjson.Member{Key: d, Value: pyjson.Object{
				{Key: "total_samples", Value: a.N},
				{Key: "average_sql_score", Value: scoring.Round6(a.SQL)},
				{Key: "average_results_score", Value: scoring.Round6(a.Results)},
			}})
		}
	}
	summary := pyjson.Object{
		{Key: "experiment_model", Value: r.Model},
		{Key: "split", Value: r.Split},
		{Key: "category", Value: "all_categories"},
		{Key: "difficulty", Value: "all"},
		{Key: "total_samples", Value: b.All.N},
		{Key: "average_sql_score", Value: scoring.Round6(b.All.SQL)},
		{Key: "average_results_score", Value: scoring.Round6(b.All.Results)},
		{Key: "difficulty_breakdown", Value: diff},
		{Key: "scoring_mode", Value: string(r.Mode)},
		{Key: "completeness", Value: s.Completeness},
		{Key: "producer", Value: s.Producer},
		{Key: "judge", Value: pyjson.Object{
			{Key: "name", Value: s.Judge},
			{Key: "reference_guided", Value: s.ReferenceGuided},
			{Key: "code_checks", Value: s.CodeChecks},
			{Key: "skipping", Value: s.Skipping},
			{Key: "samples", Value: s.Samples},
			{Key: "complete", Value: s.Complete},
			{Key: "completeness", Value: s.Completeness},
		}},
	}
	if id := s.Run; id != nil {
		// The answers the decisions were made on: a report pairs the
		// grading only with a run that still holds them.
		run := pyjson.Object{{Key: "model", Value: id.Model}, {Key: "folder", Value: id.Folder}}
		if id.RunID != "" {
			run = append(run, pyjson.Member{Key: "run_id", Value: id.RunID})
		}
		run = append(run, pyjson.Member{Key: "answers_sha256", Value: id.Answers}, pyjson.Member{Key: "tasks", Value: id.Tasks})
		summary = append(summary[:len(summary)-1], pyjson.Member{Key: "run", Value: run}, summary[len(summary)-1])
	}
	var evals []any
	for _, ts := range r.Tasks {
		it := tasks[ts.Key]
		key := ts.Key.String()
		evals = append(evals, pyjson.Object{
			{Key: "sample_path", Value: ts.SamplePath},
			{Key: "sql_score", Value: ts.SQL.Value},
			{Key: "results_score", Value: ts.Results.Value},
			{Key: "sql_evaluations", Value: leafEntries(it.Task.SQLRubric.Root, it.Records, key, TreeSQL)},
			{Key: "results_evaluations", Value: leafEntries(it.Task.ResultsRubric.Root, it.Records, key, TreeResults)},
		})
	}
	return pyjson.Marshal(pyjson.Object{{Key: "summary", Value: summary}, {Key: "detailed_evaluations", Value: evals}})
}

func leafEntries(root *rubric.Node, recs map[LeafKey]*Record, key string, t Tree) pyjson.Object {
	o := pyjson.Object{}
	for _, l := range root.Leaves() {
		r := recs[LeafKey{Task: key, Tree: t, Leaf: l.ID}]
		if r == nil {
			continue
		}
		expl := r.Explanation
		score := r.Score
		switch r.Verdict {
		case rubric.Skipped:
			score = 0
		case rubric.Invalid:
			if len(expl) < 6 || expl[:6] != "Error:" {
				expl = "Error: " + expl
			}
		}
		o = append(o, pyjson.Member{Key: l.ID, Value: pyjson.Object{
			{Key: "score", Value: score},
			{Key: "explanation", Value: expl},
			{Key: "critical", Value: l.Critical},
			{Key: "weight", Value: l.Weight},
			{Key: "verdict", Value: r.Verdict.String()},
			{Key: "source", Value: string(r.Source)},
		}})
	}
	return o
}
