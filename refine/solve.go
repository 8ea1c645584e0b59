package refine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
)

// Completer is what the loop needs from a model client (*llm.Client).
type Completer interface {
	Complete(ctx context.Context, r llm.Request) (llm.Response, error)
}

// Task statuses. The first five finish a task (its execution_summary.json is
// written); the last three leave it pending, to be done again on resume.
const (
	StatusOK          = "ok"          // the final query ran and returned rows
	StatusEmpty       = "empty"       // the final query ran and returned no rows
	StatusFailed      = "failed"      // every query the model wrote failed (the model's fault)
	StatusNoSQL       = "no_sql"      // the model never produced a query
	StatusUnsupported = "unsupported" // the engine cannot run the query faithfully: not the model's fault, excluded from its rates
	StatusAbstained   = "abstained"   // the model declined to answer (Solver.Abstains; EHRSQL's "null")

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
	Extraction string         `json:"extraction,omitempty"` // method, see Extract
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
	// call asked for them (Solver.Tune).
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

// Record is one task's outcome.
type Record struct {
	Key      datasets.Key
	Question string
	Status   string
	Attempts []Attempt
	// Final indexes the attempt whose SQL and result are the task's answer
	// (-1: none). SuccessAttempt is the 1-based number of the first attempt
	// that ran without error (0: none), as the reference counts successes.
	Final          int
	SuccessAttempt int
	// Result is the final attempt's result when it ran.
	Result *executor.Result
	// Stopped says why the loop ended before its rounds were used up by
	// failures (a request too long for the model, an unsupported query), or
	// for a pending task what failed.
	Stopped string
	// LLMError is the kind of the model call's error for StatusLLMError;
	// EndpointDown says the call failed because the endpoint did: its kind
	// says so, or the reply was garbage on the wire (a dead proxy), which
	// the kind (malformed_reply) alone does not tell from a model's bad
	// reply (llm.Error.EndpointDown).
	LLMError     llm.ErrorKind
	EndpointDown bool
	Started      time.Time
	Duration     time.Duration
}

// FinalAttempt returns the final attempt, or nil.
func (r *Record) FinalAttempt() *Attempt {
	if r.Final < 0 || r.Final >= len(r.Attempts) {
		return nil
	}
	return &r.Attempts[r.Final]
}

// Usage totals the tokens, cost and calls of the record's attempts.
func (r *Record) Usage() (u llm.Usage, usd float64, cacheHits int) {
	for _, a := range r.Attempts {
		u = u.Add(llm.Usage{PromptTokens: a.LLM.PromptTokens, CompletionTokens: a.LLM.CompletionTokens})
		usd += a.LLM.CostUSD
		if a.LLM.FromCache {
			cacheHits++
		}
	}
	return u, usd, cacheHits
}

// Solver runs the generate, execute, fix loop for one model.
type Solver struct {
	Model    Model
	LLM      Completer
	Exec     executor.Executor
	Prompter *Prompter
	// Prompts, if set, writes the prompts instead of Prompter: another
	// benchmark's wording over the same loop (EHRSQL's SQLite prompts).
	Prompts PromptSource
	// Tune, if set, adjusts every model request before it is sent (a
	// sample index, sampling overrides, log-probabilities).
	Tune func(*llm.Request)
	// Abstains, if set, reports whether a reply declines to answer; such a
	// reply ends the task with status abstained, and nothing runs.
	Abstains func(reply string) bool
	// ExecRetries is how many times a query that failed with
	// executor.ClassInfra is run again (default 3), ExecRetryDelay the first
	// wait, doubled each time (default 2s). Sleep replaces the wait in tests.
	ExecRetries    int
	ExecRetryDelay time.Duration
	Sleep          func(context.Context, time.Duration) error
	// ExecGate, if set, bounds the queries run at once. A model in batch
	// mode has every task in flight at once (each batch then holds every
	// request that is ready), so the engine is bounded here instead.
	ExecGate *semaphore.Weighted
	// MaxSQLBytes bounds an extracted query (default DefaultMaxSQLBytes):
	// a longer one is not run, and fails as the model's error. A reply is
	// as long as the model makes it (one of 20 MB became the query, and its
	// run folder past what the readers take, issue 25).
	MaxSQLBytes int
}

// DefaultMaxSQLBytes is BigQuery's maximum query length: 1,024K
// characters, comments and white space included (BigQuery's quotas and
// limits, "Maximum query length"; its error reads "The query is too large.
// The maximum standard SQL query length is 1024.00K characters"), counted
// here in bytes, which are never fewer.
const DefaultMaxSQLBytes = 1 << 20

// Bounds on what a fix prompt repeats of an earlier attempt: its query and
// the engine's message, cut with a note. A query of a few KB is long; the
// model still sees where its own went wrong.
const (
	shownSQLRunes   = 16 << 10
	shownErrorRunes = 4 << 10
)

// shownOf is what a fix prompt shows of an attempt.
func shownOf(sql, outcome, msg string) Shown {
	if n := len(sql); n > shownSQLRunes {
		if cut := textclip.Runes(sql, shownSQLRunes); len(cut) < n {
			sql = cut + fmt.Sprintf("\n-- (the query goes on: %d bytes in all, the rest not shown)", n)
		}
	}
	return Shown{SQL: sql, Outcome: outcome, Error: textclip.Runes(msg, shownErrorRunes)}
}

// keptErrorBytes bounds an engine's message as an attempt records it
// (encoded, see textclip.JSON).
const keptErrorBytes = 8 << 10

// PromptSource writes a task's prompts; *Prompter is one.
type PromptSource interface {
	Generate(t *datasets.Task) string
	Fix(t *datasets.Task, last Shown, history []Shown) string
}

func (s *Solver) prompts() PromptSource {
	if s.Prompts != nil {
		return s.Prompts
	}
	return s.Prompter
}

// Solve answers one task. It never returns an error: every outcome,
// including the model's endpoint or the engine failing, is a Record status.
func (s *Solver) Solve(ctx context.Context, t *datasets.Task) *Record {
	rec := &Record{Key: t.Key, Question: t.Question, Final: -1, Started: time.Now()}
	defer func() { rec.Duration = time.Since(rec.Started) }()
	rounds := s.Model.RoundsOrDefault()
	var shown []Shown
	results := map[int]*executor.Result{}
	for round := 0; round <= rounds; round++ {
		req, prompt := RequestGenerate, ""
		if round == 0 {
			prompt = s.prompts().Generate(t)
		} else {
			last := shown[len(shown)-1]
			var history []Shown
			if s.Model.History {
				history = shown[:len(shown)-1]
			}
			prompt = s.prompts().Fix(t, last, history)
			switch last.Outcome {
			case outcomeEmpty:
				req = RequestFixEmpty
			case outcomeNoSQL:
				req = RequestFixNoSQL
			default:
				req = RequestFixError
			}
		}
		lreq := llm.Request{
			Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: prompt}},
			Tag:      t.Key.String(),
		}
		if s.Tune != nil {
			s.Tune(&lreq)
		}
		resp, err := s.LLM.Complete(ctx, lreq)
		if err != nil {
			kind := llm.KindOf(err)
			if kind == llm.KindContextLength {
				// The request itself is too long for the model: asking again
				// cannot help. The task ends with what it has.
				rec.Stopped = fmt.Sprintf("%s request: %v", req, err)
				break
			}
			var le *llm.Error
			rec.Status, rec.LLMError = StatusLLMError, kind
			rec.EndpointDown = errors.As(err, &le) && le.EndpointDown() || kind.EndpointDown()
			if kind == llm.KindCanceled || ctx.Err() != nil {
				rec.Status = StatusInterrupted
			}
			rec.Stopped = err.Error()
			if a := llm.Advice(err); a != "" {
				rec.Stopped += " (" + a + ")"
			}
			return rec
		}
		a := Attempt{
			Attempt: round + 1, Request: req,
			LLM: LLMCall{
				PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
				CostUSD: resp.CostUSD, LatencyMS: ms(resp.Latency), FromCache: resp.FromCache,
				HTTPAttempts: resp.Attempts, FinishReason: resp.FinishReason,
				Reply: textclip.Runes(resp.Text, MaxReplyRunes),
			},
		}
		if lreq.Logprobs {
			lp := resp.Logprobs
			a.LLM.Logprobs = &lp
		}
		if s.Abstains != nil && s.Abstains(resp.Text) {
			a.Status, a.SQL = AttemptAbstained, "null"
			rec.Attempts = append(rec.Attempts, a)
			rec.Final, rec.Status = len(rec.Attempts)-1, StatusAbstained
			rec.SuccessAttempt = firstSuccess(rec.Attempts)
			return rec
		}
		x, err := Extract(resp.Text)
		if err != nil {
			a.Status, a.Error = AttemptNoSQL, textclip.JSON(err.Error(), keptErrorBytes)
			if resp.FinishReason == "length" {
				a.Error += " (the reply was cut at the token limit)"
			}
			rec.Attempts = append(rec.Attempts, a)
			shown = append(shown, shownOf("", outcomeNoSQL, a.Error))
			continue
		}
		a.SQL, a.Extraction = x.SQL, x.Method
		if s.tooLarge(&a) {
			rec.Attempts = append(rec.Attempts, a)
			shown = append(shown, shownOf(a.SQL, outcomeError, a.Error))
			continue
		}
		res, err := s.runAttempt(ctx, &a)
		if err != nil {
			return rec.engineFailed(ctx, a)
		}
		rec.Attempts = append(rec.Attempts, a)
		switch a.Status {
		case AttemptUnsupported:
			rec.Final = len(rec.Attempts) - 1
			rec.Status = StatusUnsupported
			rec.Stopped = "the engine cannot run this query faithfully: " + a.Error
			rec.SuccessAttempt = firstSuccess(rec.Attempts)
			return rec
		case AttemptError:
			shown = append(shown, shownOf(x.SQL, outcomeError, a.Error))
			continue
		}
		results[len(rec.Attempts)-1] = res
		if a.Status == AttemptEmpty {
			shown = append(shown, shownOf(x.SQL, outcomeEmpty, ""))
			if s.Model.RefineOnEmpty {
				continue
			}
		}
		break
	}
	rec.Final = chooseFinal(rec.Attempts)
	rec.SuccessAttempt = firstSuccess(rec.Attempts)
	if f := rec.FinalAttempt(); f != nil {
		rec.Result = results[rec.Final]
		switch f.Status {
		case AttemptOK:
			rec.Status = StatusOK
		case AttemptEmpty:
			rec.Status = StatusEmpty
		case AttemptError:
			rec.Status = StatusFailed
		default:
			rec.Status = StatusNoSQL
		}
	} else {
		rec.Status = StatusNoSQL
	}
	return rec
}

// chooseFinal picks the answer: the last attempt that returned rows, else
// the last that ran (empty), else the last with a query, else the last.
func chooseFinal(as []Attempt) int {
	for _, want := range []string{AttemptOK, AttemptEmpty} {
		for i := len(as) - 1; i >= 0; i-- {
			if as[i].Status == want {
				return i
			}
		}
	}
	for i := len(as) - 1; i >= 0; i-- {
		if as[i].SQL != "" {
			return i
		}
	}
	return len(as) - 1
}

func firstSuccess(as []Attempt) int {
	for _, a := range as {
		if a.Status == AttemptOK || a.Status == AttemptEmpty {
			return a.Attempt
		}
	}
	return 0
}

// execute runs sql, repeating it after infrastructure errors (never after
// the model's own errors), and returns how many repeats it took and the wall
// time of the last try.
// runAttempt executes a.SQL and records in a what became of it: status,
// error class and message, rows, columns and timings. It returns the result
// when the query ran. The error is not nil only when the engine failed for a
// reason that is not the query's (executor.ClassInfra, after retries); a
// failure that is the model's, or a query the engine cannot run faithfully,
// is a status of a.
func (s *Solver) runAttempt(ctx context.Context, a *Attempt) (*executor.Result, error) {
	if s.ExecGate != nil {
		if err := s.ExecGate.Acquire(ctx, 1); err != nil {
			return nil, err
		}
		defer s.ExecGate.Release(1)
	}
	res, tries, took, err := s.execute(ctx, a.SQL)
	a.ExecRetries, a.ExecMS = tries, ms(took)
	if err != nil {
		class := executor.ClassOf(err)
		a.ErrorClass, a.Error = class, textclip.JSON(message(err), keptErrorBytes)
		switch {
		case class == executor.ClassUnsupported:
			a.Status = AttemptUnsupported
		case !class.ModelFault():
			return nil, err
		default:
			a.Status = AttemptError
		}
		return nil, nil
	}
	a.RowCount = int64(len(res.Rows))
	if res.Truncated && res.TotalRows >= 0 {
		a.RowCount = res.TotalRows
	}
	a.Truncated, a.ByteCapped = res.Truncated, res.ByteCapped
	a.Warnings = res.Warnings
	a.Columns = make([]string, len(res.Columns))
	for i, c := range res.Columns {
		a.Columns[i] = c.Name
	}
	a.Status = AttemptOK
	if a.RowCount == 0 && !res.Truncated {
		a.Status = AttemptEmpty
	}
	return res, nil
}

// tooLarge fails an attempt whose query is over MaxSQLBytes, as BigQuery
// refuses a query over its maximum length, before anything runs it; the
// attempt keeps the query's head only.
func (s *Solver) tooLarge(a *Attempt) bool {
	max := s.MaxSQLBytes
	if max <= 0 {
		max = DefaultMaxSQLBytes
	}
	n := len(a.SQL)
	if n <= max {
		return false
	}
	a.SQL = textclip.JSON(a.SQL, keptSQLBytes)
	a.Status, a.ErrorClass = AttemptError, executor.ClassSyntax
	a.Error = fmt.Sprintf("The query is too large (%d bytes). The maximum query length is %d bytes, including comments and white space characters.", n, max)
	return true
}

func (s *Solver) execute(ctx context.Context, sql string) (*executor.Result, int, time.Duration, error) {
	retries := s.ExecRetries
	if retries == 0 {
		retries = 3
	}
	delay := s.ExecRetryDelay
	if delay == 0 {
		delay = 2 * time.Second
	}
	sleep := s.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	for try := 0; ; try++ {
		start := time.Now()
		res, err := s.Exec.Query(ctx, sql)
		took := time.Since(start)
		if err == nil || executor.ClassOf(err) != executor.ClassInfra || try >= retries || ctx.Err() != nil {
			return res, try, took, err
		}
		if serr := sleep(ctx, delay<<try); serr != nil {
			return nil, try, took, err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// message is the engine's message as a model is shown it.
func message(err error) string {
	var xe *executor.Error
	if errors.As(err, &xe) && xe.Message != "" {
		return xe.Message
	}
	return err.Error()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// engineFailed ends a record whose engine failed even after retries: an
// infrastructure error (or an interruption, if the run was stopped), never
// the model's fault, so the task is left to be retried on resume.
func (rec *Record) engineFailed(ctx context.Context, a Attempt) *Record {
	rec.Status = StatusInfraError
	if ctx.Err() != nil {
		rec.Status = StatusInterrupted
	}
	rec.Stopped = fmt.Sprintf("engine failed after %d retries: %s", a.ExecRetries, a.Error)
	return rec
}

// Fatal returns why no further task of the model should be started after
// this record (a wrong key, an exhausted quota or budget, a request the
// endpoint refuses: every call would fail alike), or "".
func (rec *Record) Fatal() string { return fatalFor(rec) }
