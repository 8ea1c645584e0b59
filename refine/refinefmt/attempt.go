package refinefmt

import (
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/runfolder"
)

// Task statuses. The first six finish a task (its execution_summary.json is
// written); the last three leave it pending, to be done again on resume.
const (
	StatusOK          = "ok"          // the final query ran and returned rows
	StatusEmpty       = "empty"       // the final query ran and returned no rows
	StatusFailed      = "failed"      // every query the model wrote failed (the model's fault)
	StatusNoSQL       = "no_sql"      // the model never produced a query
	StatusUnsupported = "unsupported" // the engine cannot run the query faithfully: not the model's fault, excluded from its rates
	StatusAbstained   = "abstained"   // the model declined to answer (refine.Solver.Abstains; EHRSQL's "null")

	StatusLLMError    = "llm_error"   // the model endpoint failed after its retries
	StatusInfraError  = "infra_error" // the engine failed after retries
	StatusInterrupted = "interrupted" // the run was stopped
)

// Finished reports whether a task with this status is done.
func Finished(status string) bool {
	switch status {
	case StatusOK, StatusEmpty, StatusFailed, StatusNoSQL, StatusUnsupported, StatusAbstained:
		return true
	}
	return false
}

// Requests: why a model call was made.
const (
	RequestGenerate = "generate"
	RequestFixError = "fix_error"
	RequestFixEmpty = "fix_empty"
	RequestFixNoSQL = "fix_no_sql"
	// RequestRecorded marks an attempt whose query came from a recorded run,
	// not from a model call (refine.Replay). runfolder reads it as the sign
	// of a re-execution, so the value is runfolder's.
	RequestRecorded = runfolder.RequestRecorded
)

// Attempt statuses: what became of one answer.
const (
	AttemptOK          = "ok"          // ran, returned rows
	AttemptEmpty       = "empty"       // ran, no rows
	AttemptError       = "error"       // failed on the engine, the model's fault
	AttemptNoSQL       = "no_sql"      // the reply held no query
	AttemptUnsupported = "unsupported" // the engine cannot run it faithfully
	AttemptAbstained   = "abstained"   // the reply declined to answer; nothing ran
)

// Attempt is one model answer and what became of it.
type Attempt struct {
	Attempt    int            `json:"attempt"` // 1-based
	Request    string         `json:"request"` // generate, fix_error, fix_empty, fix_no_sql
	SQL        string         `json:"sql"`
	Extraction string         `json:"extraction,omitempty"` // method, see refine.Extract
	Status     string         `json:"status"`
	ErrorClass executor.Class `json:"error_class,omitempty"`
	Error      string         `json:"error,omitempty"`
	RowCount   int64          `json:"row_count"`
	Truncated  bool           `json:"truncated,omitempty"`
	// ByteCapped: the result byte cap, not the row cap, cut the rows kept.
	ByteCapped bool     `json:"byte_capped,omitempty"`
	Columns    []string `json:"columns,omitempty"`
	// Warnings are the engine's (executor.Result.Warnings): the query ran,
	// but not exactly as BigQuery would have.
	Warnings []string `json:"warnings,omitempty"`
	// ExecMS is the engine's wall time for the query (the last try);
	// ExecRetries counts the tries repeated after infrastructure errors.
	ExecMS      float64 `json:"exec_ms"`
	ExecRetries int     `json:"exec_retries,omitempty"`
	LLM         LLMCall `json:"llm"`
}

// LLMCall describes the model call of an attempt.
type LLMCall struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	LatencyMS        float64 `json:"latency_ms"`
	FromCache        bool    `json:"from_cache,omitempty"`
	HTTPAttempts     int     `json:"http_attempts"`
	FinishReason     string  `json:"finish_reason,omitempty"`
	// Logprobs summarises the reply's token log-probabilities when the
	// call asked for them (refine.Solver.Tune).
	Logprobs *llmfmt.Logprobs `json:"logprobs,omitempty"`
	// Reply is the model's reply as received (its reasoning and the query
	// the SQL was extracted from), cut at MaxReplyRunes characters: the
	// transcript a report shows beside the SQL. Runs written before it
	// was recorded lack it.
	Reply string `json:"reply,omitempty"`
}

// MaxReplyRunes bounds the reply an attempt records: a reasoning model's
// reply can be long, and the summary is read back by every report.
const MaxReplyRunes = 32 << 10

// KeptAttempts returns the attempts as a record file keeps them: each
// query and message cut to sqlBytes and errBytes encoded bytes
// (textclip.JSON).
func KeptAttempts(as []Attempt, sqlBytes, errBytes int) []Attempt {
	out := make([]Attempt, len(as))
	for i, a := range as {
		a.SQL = textclip.JSON(a.SQL, sqlBytes)
		a.Error = textclip.JSON(a.Error, errBytes)
		out[i] = a
	}
	return out
}
