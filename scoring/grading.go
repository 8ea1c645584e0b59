package scoring

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// Record is one node's entry in detailed_grading.json. Early-graded runs
// hold leaves only; later ones also hold inner nodes whose explanation
// starts with "Aggregated from children".
type Record struct {
	Score        float64 `json:"score"`
	Explanation  string  `json:"explanation"`
	Critical     bool    `json:"critical"`
	Weight       float64 `json:"weight"`
	Requirements *string `json:"requirements,omitempty"`
	// NoScore reports that the file gave no score (the key absent or
	// null): Score is then 0, which the reference would sum, but no judge
	// decided it (see Classify).
	NoScore bool `json:"-"`
}

// UnmarshalJSON reads a record, noting a missing or null score.
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	var raw struct {
		plain
		Score *float64 `json:"score"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*r = Record(raw.plain)
	if raw.Score == nil {
		r.Score, r.NoScore = 0, true
	} else {
		r.Score = *raw.Score
	}
	return nil
}

// Evaluation is one task's entry in detailed_grading.json.
type Evaluation struct {
	SamplePath         string            `json:"sample_path"`
	SQLScore           float64           `json:"sql_score"`
	ResultsScore       float64           `json:"results_score"`
	SQLEvaluations     map[string]Record `json:"sql_evaluations"`
	ResultsEvaluations map[string]Record `json:"results_evaluations"`
}

// GradingSummary is the summary block shared by scoring_results.json and
// detailed_grading.json.
type GradingSummary struct {
	ExperimentModel     string                  `json:"experiment_model"`
	Split               string                  `json:"split"`
	TotalSamples        int                     `json:"total_samples"`
	AverageSQLScore     float64                 `json:"average_sql_score"`
	AverageResultsScore float64                 `json:"average_results_score"`
	DifficultyBreakdown map[string]GroupAverage `json:"difficulty_breakdown"`
	// Completeness is clinsql judge's: "complete", "subset" (part of the
	// run's tasks, on purpose), "partial" (a run with tasks missing, judged
	// on purpose) or "interrupted" (leaves left undecided). Published gradings have none: they are complete.
	Completeness string `json:"completeness,omitempty"`
	// Judge is clinsql judge's description of itself (absent in published
	// gradings).
	Judge *GradingJudge `json:"judge,omitempty"`
	// Run is the identity of the run clinsql judge judged (absent in
	// published gradings, which judged the released runs): the answers
	// the decisions were made on.
	Run *runfolder.Identity `json:"run,omitempty"`
}

// GradingJudge is the "judge" block clinsql judge adds to a grading's
// summary.
type GradingJudge struct {
	Name         string `json:"name"`
	Complete     bool   `json:"complete"`
	Completeness string `json:"completeness,omitempty"`
}

// Status is the grading's completeness: "complete" for a published
// grading or a finished judge run.
func (s GradingSummary) Status() string {
	switch {
	case s.Completeness != "":
		return s.Completeness
	case s.Judge != nil && s.Judge.Completeness != "":
		return s.Judge.Completeness
	case s.Judge != nil && !s.Judge.Complete:
		return "interrupted"
	}
	return "complete"
}

// GroupAverage is one difficulty's (or scenario's) averages as published.
type GroupAverage struct {
	TotalSamples        int     `json:"total_samples"`
	AverageSQLScore     float64 `json:"average_sql_score"`
	AverageResultsScore float64 `json:"average_results_score"`
}

// Grading is a detailed_grading.json file.
type Grading struct {
	Summary     GradingSummary `json:"summary"`
	Evaluations []Evaluation   `json:"detailed_evaluations"`
	File        string         `json:"-"`
	// SHA256 is the file's digest: a replay is bound to the decisions it
	// served, not to a path.
	SHA256 string `json:"-"`
}

// ReadGrading reads a detailed_grading.json file. Any model's file in the
// reference format works; problems name the file and the sample.
func ReadGrading(path string) (*Grading, error) {
	b, err := runfolder.ReadFile(path, runfolder.MaxJudgeFileBytes)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	g := &Grading{File: path, SHA256: hex.EncodeToString(sum[:])}
	if err := json.Unmarshal(b, g); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(g.Evaluations) == 0 {
		return nil, fmt.Errorf("%s: no detailed_evaluations", path)
	}
	for i, e := range g.Evaluations {
		if e.SamplePath == "" {
			return nil, fmt.Errorf("%s: detailed_evaluations[%d]: missing sample_path", path, i)
		}
	}
	return g, nil
}

// RequireComplete refuses a grading clinsql judge left partial or
// interrupted: its decisions do not cover the run, so scores computed
// from it would pass for the run's.
func (g *Grading) RequireComplete() error {
	if st := g.Summary.Status(); st != "complete" {
		return fmt.Errorf("%s: the grading is %s (summary.completeness), not a finished judge run over the whole run; finish judging first", g.File, st)
	}
	return nil
}

// Model returns the model name recorded in the summary.
func (g *Grading) Model() string { return g.Summary.ExperimentModel }

// Kinds of recorded replies.
const (
	KindDecided    = "decided"     // a readable 0 or 1
	KindJudgeError = "judge_error" // an API error the reference stored as the reply
	KindUnparsed   = "unparsed"    // a reply the reference parser could not read
	KindNonBinary  = "non_binary"  // a score other than 0 or 1
	KindNoScore    = "no_score"    // no score recorded (absent or null)
)

var (
	// The reference turned API exceptions into "Error: <exception>" and,
	// in the early regime, "Evaluation failed: Azure OpenAI ...".
	judgeErrorPrefix = regexp.MustCompile(`^(?i:error:|evaluation failed:)`)
	// "Score": 0, 'score': 1.0, Score: 1 inside an unparsed reply.
	scoreInReply = regexp.MustCompile(`(?i)["']?score["']?\s*:\s*["']?([01](?:\.0+)?)\b`)
)

// Classify turns a recorded leaf entry into a strict verdict, with the
// kind of reply and a short reason. The verdict's Score keeps the recorded
// value, so Reference mode scores exactly as published whatever the kind.
//
// Judge errors and unreadable replies are Invalid. When the reference
// parser missed a reply that states its score plainly (a JSON answer such
// as {"Score": 0}), the stated score is used: the reference's fallback
// scored such replies 1 whenever the character "1" occurred anywhere.
func Classify(r Record) (v rubric.Verdict, kind, reason string) {
	v.Score = r.Score
	x := strings.TrimSpace(r.Explanation)
	switch {
	case judgeErrorPrefix.MatchString(x):
		v.Status = rubric.Invalid
		return v, KindJudgeError, "judge error recorded as the reply: " + firstLine(x, 100)
	case r.NoScore:
		// Not a fail: nothing decided the leaf.
		v.Status = rubric.Invalid
		return v, KindNoScore, "no score recorded (absent or null)"
	case strings.HasPrefix(x, "{") || strings.HasPrefix(x, "```"):
		stated := map[float64]bool{}
		for _, m := range scoreInReply.FindAllStringSubmatch(x, -1) {
			f, _ := strconv.ParseFloat(m[1], 64)
			stated[f] = true
		}
		switch {
		case len(stated) == 1 && stated[1]:
			v.Status = rubric.Pass
		case len(stated) == 1 && stated[0]:
			v.Status = rubric.Fail
		default:
			v.Status = rubric.Invalid
			return v, KindUnparsed, "reply not in the expected format and states no single score"
		}
		return v, KindUnparsed, fmt.Sprintf("reply not in the expected format; its stated score %s used (recorded %v)", v.Status, r.Score)
	case r.Score == 1:
		v.Status = rubric.Pass
	case r.Score == 0:
		v.Status = rubric.Fail
	default:
		v.Status = rubric.Invalid
		return v, KindNonBinary, fmt.Sprintf("recorded score %v is neither 0 nor 1", r.Score)
	}
	return v, KindDecided, ""
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
