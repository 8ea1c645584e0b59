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
	"github.com/clinsql/clinsql/refine/refinefmt"
)

// Completer is what the loop needs from a model client (*llm.Client).
type Completer interface {
	Complete(ctx context.Context, r llm.Request) (llm.Response, error)
}

// Record is one task's outcome.
type Record struct {
	Key      datasets.Key
	Question string
	Status   string
	Attempts []refinefmt.Attempt
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
func (r *Record) FinalAttempt() *refinefmt.Attempt {
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
		req, prompt := refinefmt.RequestGenerate, ""
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
				req = refinefmt.RequestFixEmpty
			case outcomeNoSQL:
				req = refinefmt.RequestFixNoSQL
			default:
				req = refinefmt.RequestFixError
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
			rec.Status, rec.LLMError = refinefmt.StatusLLMError, kind
			rec.EndpointDown = errors.As(err, &le) && le.EndpointDown() || kind.EndpointDown()
			if kind == llm.KindCanceled || ctx.Err() != nil {
				rec.Status = refinefmt.StatusInterrupted
			}
			rec.Stopped = err.Error()
			if a := llm.Advice(err); a != "" {
				rec.Stopped += " (" + a + ")"
			}
			return rec
		}
		a := refinefmt.Attempt{
			Attempt: round + 1, Request: req,
			LLM: refinefmt.LLMCall{
				PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
				CostUSD: resp.CostUSD, LatencyMS: ms(resp.Latency), FromCache: resp.FromCache,
				HTTPAttempts: resp.Attempts, FinishReason: resp.FinishReason,
				Reply: textclip.Runes(resp.Text, refinefmt.MaxReplyRunes),
			},
		}
		if lreq.Logprobs {
			lp := resp.Logprobs
			a.LLM.Logprobs = &lp
		}
		if s.Abstains != nil && s.Abstains(resp.Text) {
			a.Status, a.SQL = refinefmt.AttemptAbstained, "null"
			rec.Attempts = append(rec.Attempts, a)
			rec.Final, rec.Status = len(rec.Attempts)-1, refinefmt.StatusAbstained
			rec.SuccessAttempt = firstSuccess(rec.Attempts)
			return rec
		}
		x, err := Extract(resp.Text)
		if err != nil {
			a.Status, a.Error = refinefmt.AttemptNoSQL, textclip.JSON(err.Error(), keptErrorBytes)
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
		case refinefmt.AttemptUnsupported:
			rec.Final = len(rec.Attempts) - 1
			rec.Status = refinefmt.StatusUnsupported
			rec.Stopped = "the engine cannot run this query faithfully: " + a.Error
			rec.SuccessAttempt = firstSuccess(rec.Attempts)
			return rec
		case refinefmt.AttemptError:
			shown = append(shown, shownOf(x.SQL, outcomeError, a.Error))
			continue
		}
		results[len(rec.Attempts)-1] = res
		if a.Status == refinefmt.AttemptEmpty {
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
		case refinefmt.AttemptOK:
			rec.Status = refinefmt.StatusOK
		case refinefmt.AttemptEmpty:
			rec.Status = refinefmt.StatusEmpty
		case refinefmt.AttemptError:
			rec.Status = refinefmt.StatusFailed
		default:
			rec.Status = refinefmt.StatusNoSQL
		}
	} else {
		rec.Status = refinefmt.StatusNoSQL
	}
	return rec
}

// chooseFinal picks the answer: the last attempt that returned rows, else
// the last that ran (empty), else the last with a query, else the last.
func chooseFinal(as []refinefmt.Attempt) int {
	for _, want := range []string{refinefmt.AttemptOK, refinefmt.AttemptEmpty} {
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

func firstSuccess(as []refinefmt.Attempt) int {
	for _, a := range as {
		if a.Status == refinefmt.AttemptOK || a.Status == refinefmt.AttemptEmpty {
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
func (s *Solver) runAttempt(ctx context.Context, a *refinefmt.Attempt) (*executor.Result, error) {
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
			a.Status = refinefmt.AttemptUnsupported
		case !class.ModelFault():
			return nil, err
		default:
			a.Status = refinefmt.AttemptError
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
	a.Status = refinefmt.AttemptOK
	if a.RowCount == 0 && !res.Truncated {
		a.Status = refinefmt.AttemptEmpty
	}
	return res, nil
}

// tooLarge fails an attempt whose query is over MaxSQLBytes, as BigQuery
// refuses a query over its maximum length, before anything runs it; the
// attempt keeps the query's head only.
func (s *Solver) tooLarge(a *refinefmt.Attempt) bool {
	max := s.MaxSQLBytes
	if max <= 0 {
		max = DefaultMaxSQLBytes
	}
	n := len(a.SQL)
	if n <= max {
		return false
	}
	a.SQL = textclip.JSON(a.SQL, keptSQLBytes)
	a.Status, a.ErrorClass = refinefmt.AttemptError, executor.ClassSyntax
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
func (rec *Record) engineFailed(ctx context.Context, a refinefmt.Attempt) *Record {
	rec.Status = refinefmt.StatusInfraError
	if ctx.Err() != nil {
		rec.Status = refinefmt.StatusInterrupted
	}
	rec.Stopped = fmt.Sprintf("engine failed after %d retries: %s", a.ExecRetries, a.Error)
	return rec
}

// Fatal returns why no further task of the model should be started after
// this record (a wrong key, an exhausted quota or budget, a request the
// endpoint refuses: every call would fail alike), or "".
func (rec *Record) Fatal() string { return fatalFor(rec) }
