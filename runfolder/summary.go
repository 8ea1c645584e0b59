package runfolder

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/clinsql/clinsql/datasets"
)

// RequestRecorded is the request of an attempt whose query came from a
// recorded run, not from a model call (clinsql exec --run), and the kind
// of such a run's settings.
const RequestRecorded = "recorded"

// File and folder names at the top of a run folder and in a task's folder.
const (
	// ExecutionSummaryFile is a task's summary (reference shape).
	ExecutionSummaryFile = "execution_summary.json"
	// BenchmarkSummaryFile is a model's attempt-wise success summary.
	BenchmarkSummaryFile = "benchmark_summary.json"
	// JudgeDir is where clinsql judge writes by default (<run>/judge).
	JudgeDir = "judge"
	// LLMCacheDir is the LLM reply cache's default folder in an output.
	LLMCacheDir = "llm-cache"
)

// Attempt is one execution in a model's self-refinement loop.
type Attempt struct {
	Attempt  int     `json:"attempt"`
	Success  bool    `json:"success"`
	RowCount int64   `json:"row_count"`
	Error    *string `json:"error"`
	// Warnings are clinsql's (not in the reference format): the query ran,
	// but not exactly as BigQuery would have (see executor.Result).
	Warnings []string `json:"warnings,omitempty"`
}

// ExecutionSummary is a task's execution_summary.json in the reference
// inference layout. clinsql writes the same shape, with optional fields of
// its own.
type ExecutionSummary struct {
	Query              string    `json:"query"`
	FinalSQL           string    `json:"final_sql"`
	ExecutionSuccess   bool      `json:"execution_success"`
	RowCount           int64     `json:"row_count"`
	FinalError         *string   `json:"final_error"`
	Model              string    `json:"model"`
	ModelID            string    `json:"model_id,omitempty"`
	RefinementAttempts []Attempt `json:"refinement_attempts"`
}

// Output is one model's answer to one task, as found in a run folder.
type Output struct {
	datasets.Key
	Dir     string // the task's folder in the run
	Summary ExecutionSummary
	// ResultCSV is the path of result_<id>.csv, or "" when the file is
	// absent (the release lacks one 989,918-row result).
	ResultCSV string
	// SQLAbsent marks an answer released as its result CSV alone (no
	// execution_summary.json): the SQL text is unknown, not empty.
	SQLAbsent bool
	// Truncated reports that the result CSV holds only the rows the
	// engine's row or byte cap kept (clinsql's "clinsql.truncated" in
	// execution_summary.json): checks over every row cannot pass on it.
	Truncated bool
	// RecordedResultSHA256 is, in a run that re-executes a recorded run
	// (clinsql exec --run), the SHA-256 of the recorded run's result CSV
	// for the task as the run states it ("clinsql.recorded_result_sha256");
	// "" when the recorded answer had no result file. A claim of the
	// folder itself: the judge compares the recorded run's own file, never
	// this alone.
	RecordedResultSHA256 string
	// ReExecuted reports that the answer's query came from a recorded run,
	// not from a model (clinsql exec --run): its execution summary says so
	// (an attempt of request "recorded", settings of kind "recorded", the
	// recorded outcome or result digest kept beside it). RecordedAnswer is
	// the recorded run's own summary when kept ("clinsql.recorded").
	ReExecuted     bool
	RecordedAnswer *ExecutionSummary
	// Engine and EngineSemantics are the engine clinsql ran the answer's
	// query on ("clinsql.settings"), "" for a run clinsql did not write.
	Engine, EngineSemantics string
	// Detail is clinsql's own section of execution_summary.json ("clinsql",
	// refinefmt.TaskDetail: every attempt's request, SQL, reply, error, tokens
	// and timing) as read, for the readers that show it; nil in runs
	// written by other tools (the released runs).
	Detail json.RawMessage

	// resultSum caches ResultSHA256: the run's identity and the judge's
	// replay rule both need it, and the file is read once.
	resultSum struct {
		done bool
		sum  string
		err  error
	}
}

// ResultSHA256 is the SHA-256 of the answer's result CSV ("" without one),
// read once (not safe for concurrent first calls).
func (o *Output) ResultSHA256() (string, error) {
	if o.ResultCSV == "" {
		return "", nil
	}
	if !o.resultSum.done {
		o.resultSum.sum, o.resultSum.err = FileSHA256(o.ResultCSV, MaxResultBytes)
		o.resultSum.done = true
	}
	return o.resultSum.sum, o.resultSum.err
}

// BenchmarkSummary is a run's benchmark_summary.json (the reference shape,
// which clinsql writes too): attempt-wise success overall and per split,
// and clinsql's additions.
type BenchmarkSummary struct {
	Model string `json:"model"`
	BenchmarkCounts
	Splits map[string]BenchmarkCounts `json:"splits"`
	// Clinsql is present in runs clinsql wrote: tasks the engine could not
	// run faithfully are not counted against the model.
	Clinsql struct {
		Excluded []string `json:"excluded_unsupported"`
	} `json:"clinsql"`
}

// BenchmarkCounts are attempt-wise success counts and rates (keys "1" to
// the number of attempts; rates in percent).
type BenchmarkCounts struct {
	TotalQueries    int                `json:"total_queries"`
	TotalSuccessful int                `json:"total_successful"`
	Counts          map[string]int     `json:"attempt_success_counts"`
	Rates           map[string]float64 `json:"attempt_success_rates"`
	Cumulative      map[string]int     `json:"attempt_cumulative_success_counts"`
	CumulativeRates map[string]float64 `json:"attempt_cumulative_success_rates"`
}

// ReadBenchmarkSummary reads run's benchmark_summary.json; nil, nil when
// there is none.
func ReadBenchmarkSummary(run string) (*BenchmarkSummary, error) {
	path := filepath.Join(run, BenchmarkSummaryFile)
	if !Exists(path) {
		return nil, nil
	}
	b, err := ReadFile(path, MaxSummaryBytes)
	if err != nil {
		return nil, err
	}
	var bs BenchmarkSummary
	if err := json.Unmarshal(b, &bs); err != nil {
		return nil, fmt.Errorf("%s: %s", path, datasets.DescribeJSONError(err))
	}
	return &bs, nil
}
