package scoring

import (
	"errors"
	"fmt"
	"sort"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/rubric"
)

// TaskScore is one task's two scores with their trees.
type TaskScore struct {
	Key        datasets.Key
	SamplePath string
	// SQL and Results are the evaluated rubric trees; their Value is the
	// SQL score and the execution score.
	SQL, Results *rubric.Score
	// Graded is false for a task of the split that the grading file lacks
	// (Strict mode reports it with every leaf missing).
	Graded bool
	// Recorded scores as published, for comparison (Graded tasks only).
	RecordedSQL, RecordedResults float64
	// Counts of recorded leaf replies by kind (KindJudgeError, KindUnparsed,
	// KindNonBinary), over both trees.
	Kinds map[string]int
}

// Invalid is the number of leaves without a valid verdict that could change
// either score.
func (t *TaskScore) Invalid() int { return t.SQL.Invalid + t.Results.Invalid }

// Rescored is a grading file scored again.
type Rescored struct {
	Model, Split string
	Mode         rubric.Mode
	Tasks        []*TaskScore // grading file order, then ungraded tasks by key
	// Completeness is "" or "complete" for finished scores, else
	// "partial" or "interrupted": written into every summary file.
	Completeness string
	// Warnings are problems that did not stop scoring (decisions for nodes
	// the rubric lacks, stray rubric keys).
	Warnings []error
}

// Rescore scores every sample of g against the rubrics of tasks. In Strict
// mode recorded judge errors become invalid verdicts (see Classify), and
// tasks of the grading's split that g lacks are included as ungraded, so
// that no task leaves the denominator silently; Reference mode scores
// exactly the samples present, as the published scorer did.
//
// A sample whose task is not among tasks is an error: its score cannot be
// computed.
func Rescore(g *Grading, tasks []*datasets.Task, mode rubric.Mode) (*Rescored, error) {
	byKey := make(map[datasets.Key]*datasets.Task, len(tasks))
	for _, t := range tasks {
		byKey[t.Key] = t
	}
	r := &Rescored{Model: g.Model(), Split: g.Summary.Split, Mode: mode}
	var errs []error
	seen := map[datasets.Key]bool{}
	splits := map[string]bool{}
	for i, e := range g.Evaluations {
		key, err := datasets.ParseKey(e.SamplePath)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: detailed_evaluations[%d]: %w", g.File, i, err))
			continue
		}
		task := byKey[key]
		if task == nil {
			errs = append(errs, fmt.Errorf("%s: detailed_evaluations[%d]: no task %s in the task folder", g.File, i, key))
			continue
		}
		if seen[key] {
			errs = append(errs, fmt.Errorf("%s: detailed_evaluations[%d]: task %s graded twice", g.File, i, key))
			continue
		}
		seen[key] = true
		splits[key.Split] = true
		ts := &TaskScore{Key: key, SamplePath: e.SamplePath, Graded: true,
			RecordedSQL: e.SQLScore, RecordedResults: e.ResultsScore, Kinds: map[string]int{}}
		sqlD, w1 := decisions(task.SQLRubric.Root, e.SQLEvaluations, ts.Kinds, g.File, key, "sql_evaluations")
		resD, w2 := decisions(task.ResultsRubric.Root, e.ResultsEvaluations, ts.Kinds, g.File, key, "results_evaluations")
		r.Warnings = append(append(r.Warnings, w1...), w2...)
		ts.SQL = rubric.Evaluate(task.SQLRubric.Root, sqlD, mode)
		ts.Results = rubric.Evaluate(task.ResultsRubric.Root, resD, mode)
		r.Tasks = append(r.Tasks, ts)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if mode == rubric.Strict {
		var missing []*TaskScore
		for _, t := range tasks {
			if splits[t.Split] && !seen[t.Key] {
				missing = append(missing, &TaskScore{Key: t.Key, Kinds: map[string]int{},
					SQL:     rubric.Evaluate(t.SQLRubric.Root, nil, mode),
					Results: rubric.Evaluate(t.ResultsRubric.Root, nil, mode)})
				r.Warnings = append(r.Warnings, fmt.Errorf("%s: task %s has no grading; counted with every leaf missing", g.File, t.Key))
			}
		}
		sort.Slice(missing, func(i, j int) bool { return missing[i].Key.Less(missing[j].Key) })
		r.Tasks = append(r.Tasks, missing...)
	}
	return r, nil
}

// decisions maps the recorded entries onto the leaves of a tree.
func decisions(root *rubric.Node, recs map[string]Record, kinds map[string]int, file string, key datasets.Key, field string) (rubric.Decisions, []error) {
	d := rubric.Decisions{}
	var warns []error
	for id, rec := range recs {
		n := root.Find(id)
		switch {
		case n == nil:
			warns = append(warns, fmt.Errorf("%s: %s: %s has a decision for %q, which the rubric lacks", file, key, field, id))
			continue
		case !n.IsLeaf():
			continue // aggregated inner-node entry
		}
		v, kind, _ := Classify(rec)
		if kind != KindDecided {
			kinds[kind]++
		}
		d[id] = v
	}
	return d, warns
}

// Leaves returns every leaf of both trees with its verdict, for callers
// that count or list decisions.
func (t *TaskScore) Leaves() []*rubric.Score {
	var out []*rubric.Score
	var walk func(s *rubric.Score)
	walk = func(s *rubric.Score) {
		if s.Node.IsLeaf() {
			out = append(out, s)
		}
		for _, c := range s.Children {
			walk(c)
		}
	}
	walk(t.SQL)
	walk(t.Results)
	return out
}
