package judge

import (
	"context"
	"fmt"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// Replay serves recorded decisions (a reference detailed_grading.json) as
// the judge, so published runs can be re-scored and compared offline. A
// recorded judge error or unreadable reply becomes an invalid verdict (see
// scoring.Classify) that keeps the recorded score, so that reference-mode
// scores equal the published ones.
type Replay struct {
	file  string
	model string
	sha   string
	evals map[datasets.Key]scoring.Evaluation
	order map[datasets.Key]int // position in the file
	// reExecuted is set by ReExecuted: the run judged re-executed the
	// recorded run's SQL on another engine.
	reExecuted bool
	// sameSQL and sameResult, when known (the recorded run was checked),
	// say for which tasks the run's final SQL and result are the ones the
	// recorded decisions judged; sameResult nil replays no results
	// decision.
	sameSQL, sameResult map[datasets.Key]bool
	engine              string
	// recordedRun identifies the recorded run checked ("" when none was).
	recordedRun string
}

// ErrorKindOtherResult marks a results leaf of a re-executed run whose
// recorded decision is not replayed: it judged another result (or the
// result could not be checked against the recorded run's).
const ErrorKindOtherResult = "other_result"

// ErrorKindOtherSQL marks an SQL leaf of a re-executed run whose final SQL
// is not the recorded run's: the recorded decision judged other SQL.
const ErrorKindOtherSQL = "other_sql"

// ReExecuted declares that the run being judged re-executed the recorded
// run's SQL on engine (clinsql exec --run). A results-tree decision judged
// the result the recorded engine returned: it is replayed only for the
// tasks of sameResult (result bytes identical to the recorded run's, both
// read); with sameResult nil (the recorded run could not be checked) for
// none. An SQL-tree decision judged the recorded query text: it is
// replayed where the final SQL is the recorded one (sameSQL), or, when the
// recorded run could not be checked (sameSQL nil), wherever the run states
// its query came from the recorded run. Every other leaf code cannot
// decide is invalid (ErrorKindOtherResult, ErrorKindOtherSQL), never
// another answer's verdict. recordedRun identifies the recorded run
// checked ("" for none): a ledger is resumed only with the same.
func (r *Replay) ReExecuted(sameSQL, sameResult map[datasets.Key]bool, engine, recordedRun string) {
	r.reExecuted, r.sameSQL, r.sameResult, r.engine, r.recordedRun = true, sameSQL, sameResult, engine, recordedRun
}

// NewReplay reads the recorded decisions in path.
func NewReplay(path string) (*Replay, error) {
	g, err := scoring.ReadGrading(path)
	if err != nil {
		return nil, err
	}
	if err := g.RequireComplete(); err != nil {
		return nil, err
	}
	r := &Replay{file: path, model: g.Model(), sha: g.SHA256, evals: map[datasets.Key]scoring.Evaluation{}, order: map[datasets.Key]int{}}
	for i, e := range g.Evaluations {
		k, err := datasets.ParseKey(e.SamplePath)
		if err != nil {
			return nil, fmt.Errorf("%s: detailed_evaluations[%d]: %w", path, i, err)
		}
		if _, dup := r.evals[k]; dup {
			return nil, fmt.Errorf("%s: detailed_evaluations[%d]: task %s graded twice", path, i, k)
		}
		r.evals[k] = e
		r.order[k] = i
	}
	return r, nil
}

// Name is "replay:<file>".
func (r *Replay) Name() string { return "replay:" + r.file }

// Model is the model the recorded decisions are about (the grading's
// summary.experiment_model).
func (r *Replay) Model() string { return r.model }

// Identity binds a ledger to the recorded decisions themselves: the
// grading file's digest and model, not its path.
func (r *Replay) Identity() string {
	id := fmt.Sprintf("replay:sha256:%s model %q", r.sha, r.model)
	if r.reExecuted {
		// A ledger of a re-executed run's judging is not resumed by one
		// that replays every results decision, nor the reverse, nor by
		// one checked against another recorded run.
		id += " results only where the result is the recorded one"
		if r.recordedRun != "" {
			id += " (checked against " + r.recordedRun + ")"
		} else {
			id += " (no recorded run checked: none)"
		}
	}
	return id
}

// Has reports whether the recording holds the task's decisions.

// Source is SourceReplay.
func (r *Replay) Source() judgefmt.Source { return judgefmt.SourceReplay }

// Has reports whether the recording holds the task.
func (r *Replay) Has(k datasets.Key) bool {
	_, ok := r.evals[k]
	return ok
}

// Recorded returns the task's sample_path as recorded (the answer's folder
// on the machine that graded it) and its position in the recording; ok is
// false when the recording lacks the task.
func (r *Replay) Recorded(k datasets.Key) (samplePath string, index int, ok bool) {
	index, ok = r.order[k]
	return r.evals[k].SamplePath, index, ok
}

// Decide returns the recorded decision. A leaf the recording lacks is
// invalid ("not_recorded"), scored 0 as the reference scores it.
func (r *Replay) Decide(_ context.Context, req *LeafRequest) (Decision, error) {
	e, ok := r.evals[req.Task.Key]
	recs := e.SQLEvaluations
	if req.Tree == judgefmt.TreeResults {
		recs = e.ResultsEvaluations
	}
	rec, found := recs[req.Leaf.ID]
	if !ok || !found {
		what := "task"
		if ok {
			what = "leaf"
		}
		return Decision{Verdict: rubric.Verdict{Status: rubric.Invalid}, ErrorKind: "not_recorded",
			Explanation: fmt.Sprintf("Error: the recording has no decision for this %s", what)}, nil
	}
	if r.reExecuted {
		switch {
		case req.Tree == judgefmt.TreeResults && r.sameResult == nil:
			return Decision{Verdict: rubric.Verdict{Status: rubric.Invalid}, ErrorKind: ErrorKindOtherResult,
				Explanation: fmt.Sprintf("Error: the recorded decision judged the result the recorded run's engine returned; "+
					"this run re-executed the query on %s and its result could not be checked against the recorded run's, so the decision is not replayed (pass --recorded-run, or judge the run with --judge-config)", r.engine)}, nil
		case req.Tree == judgefmt.TreeResults && !r.sameResult[req.Task.Key]:
			return Decision{Verdict: rubric.Verdict{Status: rubric.Invalid}, ErrorKind: ErrorKindOtherResult,
				Explanation: fmt.Sprintf("Error: the recorded decision judged the result the recorded run's engine returned; "+
					"this run re-executed the query on %s and its result differs, so the decision is not replayed (judge the run with --judge-config)", r.engine)}, nil
		case req.Tree == judgefmt.TreeSQL && r.sameSQL != nil && !r.sameSQL[req.Task.Key]:
			return Decision{Verdict: rubric.Verdict{Status: rubric.Invalid}, ErrorKind: ErrorKindOtherSQL,
				Explanation: "Error: the recorded decision judged the recorded run's SQL; this answer's final SQL is not that text, so the decision is not replayed (judge the run with --judge-config)"}, nil
		}
	}
	v, kind, reason := scoring.Classify(rec)
	d := Decision{Verdict: v, Explanation: rec.Explanation}
	if kind != scoring.KindDecided {
		d.ErrorKind = kind
		if v.Status == rubric.Invalid {
			d.Explanation = "Error: " + reason + " | recorded: " + clipRunes(rec.Explanation, 500)
		}
	}
	return d, nil
}

// DecideGroup returns the recorded decision of every leaf of the group. It
// simulates grouped judging for measurement: decisions are the recorded
// ones, whatever the grouping, and each group is one backend call in the
// summary (Summary.BackendCalls), though no LLM is called.
func (r *Replay) DecideGroup(ctx context.Context, req *GroupRequest) (GroupDecision, error) {
	gd := GroupDecision{Leaves: make([]Decision, len(req.Leaves))}
	for i, l := range req.Leaves {
		d, err := r.Decide(ctx, &LeafRequest{Task: req.Task, Answer: req.Answer, Tree: req.Tree, Leaf: l, ReferenceGuided: req.ReferenceGuided})
		if err != nil {
			return GroupDecision{}, err
		}
		gd.Leaves[i] = d
	}
	return gd, nil
}
