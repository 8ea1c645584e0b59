package reliability

import (
	"fmt"
	"math"
)

// Task is one ClinSQL task as a run records it: the model's final SQL and
// the execution score the judge gave it.
type Task struct {
	Key      string  // task key, e.g. "diagnostic_procedures/easy_level_queries/001"
	FinalSQL string  // the model's final SQL; the abstention marker means it abstained
	Exec     float64 // execution score in [0, 1]
	// ExecFailed marks a final SQL that failed to run; it is counted as an
	// error rather than a wrong answer (both score −c).
	ExecFailed bool
	// Unanswerable marks a task with no answer (none in ClinSQL 633; here so
	// that abstaining on it can be rewarded if a benchmark has some).
	Unanswerable bool
}

// TaskOptions configure ScoreTasks.
type TaskOptions struct {
	// Abstention decides whether a FinalSQL abstains (default marker
	// "null").
	Abstention Abstention
	// Threshold is the execution score at which an answer counts as correct
	// (default 1.0: only a fully correct result set is correct).
	Threshold float64
}

// TaskResult is one task's reliability outcome.
type TaskResult struct {
	Key     string  `json:"key"`
	Outcome Outcome `json:"outcome"`
	Score   int     `json:"score"`
}

// TaskReport is reliability over a set of tasks: RS(0), RS(5), RS(10),
// RS(N) × 100 with the outcome counts, and each task's outcome in input
// order.
type TaskReport struct {
	Scores
	Threshold float64      `json:"threshold"`
	Tasks     []TaskResult `json:"tasks"`
}

// ScoreTasks computes the EHRSQL reliability scores for ClinSQL-style runs,
// where answers are judged by an execution score instead of exact result
// equality. Each task scores as in EHRSQL 2024:
//
//	abstained (FinalSQL matches the marker)     0, or +1 if Unanswerable
//	answered an Unanswerable task               −c  (answered_unanswerable)
//	ExecFailed                                  −c  (error)
//	Exec >= Threshold                           +1  (correct)
//	otherwise                                   −c  (wrong)
//
// It returns an error for a duplicate or empty key, an execution score
// outside [0, 1] or NaN, or a threshold outside (0, 1].
func ScoreTasks(tasks []Task, opt TaskOptions) (*TaskReport, error) {
	th := opt.Threshold
	if th == 0 {
		th = 1
	}
	if !(th > 0 && th <= 1) {
		return nil, fmt.Errorf("reliability: threshold %v outside (0, 1]", opt.Threshold)
	}
	rep := &TaskReport{Threshold: th, Tasks: make([]TaskResult, len(tasks))}
	seen := make(map[string]int, len(tasks))
	outcomes := make([]Outcome, len(tasks))
	for i, t := range tasks {
		if t.Key == "" {
			return nil, fmt.Errorf("reliability: task %d: empty key", i)
		}
		if j, dup := seen[t.Key]; dup {
			return nil, fmt.Errorf("reliability: task %q: duplicate key (tasks %d and %d)", t.Key, j, i)
		}
		seen[t.Key] = i
		if math.IsNaN(t.Exec) || t.Exec < 0 || t.Exec > 1 {
			return nil, fmt.Errorf("reliability: task %q: execution score %v outside [0, 1]", t.Key, t.Exec)
		}
		var o Outcome
		abstained := opt.Abstention.Matches(t.FinalSQL)
		switch {
		case t.Unanswerable && abstained:
			o = AbstainedUnanswerable
		case t.Unanswerable:
			o = AnsweredUnanswerable
		case abstained:
			o = AbstainedAnswerable
		case t.ExecFailed:
			o = Error
		case t.Exec >= th:
			o = Correct
		default:
			o = Wrong
		}
		outcomes[i] = o
		rep.Tasks[i] = TaskResult{Key: t.Key, Outcome: o, Score: o.Score()}
	}
	rep.Scores = Summarize(outcomes)
	return rep, nil
}
