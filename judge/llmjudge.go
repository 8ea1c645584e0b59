package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/rubric"
)

// Completer is the part of *llm.Client the LLM judge uses.
type Completer interface {
	Complete(ctx context.Context, r llm.Request) (llm.Response, error)
	Endpoint() llm.Endpoint
}

// verdictSchema is the structured reply: sent as a JSON schema where the
// endpoint supports it, and enforced by ParseVerdict in every case.
var verdictSchema = &llm.Schema{
	Name:   "rubric_verdict",
	Strict: true,
	Schema: json.RawMessage(`{"type":"object","properties":{"reasoning":{"type":"string"},"verdict":{"type":"string","enum":["pass","fail"]}},"required":["reasoning","verdict"],"additionalProperties":false}`),
}

// Reply is the judge's structured answer.
type Reply struct {
	Reasoning string `json:"reasoning"`
	Verdict   string `json:"verdict"`
}

// ParseVerdict reads a judge reply strictly: exactly one JSON object with a
// "reasoning" string and a "verdict" of "pass" or "fail", nothing else, no
// other keys. Prose such as "Score: 1", a JSON object inside a code fence,
// a truncated object or an unknown verdict are errors: such replies are
// retried and finally recorded as invalid, never read as a pass.
func ParseVerdict(text string) (Reply, error) {
	var r Reply
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return r, fmt.Errorf("reply is not a JSON object: %q", clipRunes(t, 60))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(t)))
	dec.DisallowUnknownFields()
	var raw struct {
		Reasoning *string `json:"reasoning"`
		Verdict   *string `json:"verdict"`
	}
	if err := dec.Decode(&raw); err != nil {
		return r, fmt.Errorf("reply is not the verdict object: %v", err)
	}
	if dec.More() {
		return r, errors.New("reply has data after the JSON object")
	}
	if raw.Verdict == nil {
		return r, errors.New(`reply has no "verdict"`)
	}
	if raw.Reasoning == nil {
		return r, errors.New(`reply has no "reasoning"`)
	}
	switch *raw.Verdict {
	case "pass", "fail":
	default:
		return r, fmt.Errorf(`"verdict" is %q, not "pass" or "fail"`, clipRunes(*raw.Verdict, 30))
	}
	return Reply{Reasoning: *raw.Reasoning, Verdict: *raw.Verdict}, nil
}

func validateVerdict(text string) error {
	_, err := ParseVerdict(text)
	return err
}

// LLMJudge decides leaves with a model behind an OpenAI-compatible or
// Azure endpoint.
type LLMJudge struct {
	c Completer
	// Samples is k for a k-sample majority vote (odd, default 1).
	samples int
	prompt  PromptOptions
	prices  llm.Prices
	// down counts the calls in a row that failed on the endpoint's side
	// even after the client's retries; maxDown of them stop the run.
	down    atomic.Int64
	maxDown int64
	// answered reports that the endpoint has answered a call of this run
	// (a cached reply does not count); refused counts the calls in a row
	// it refused as bad requests (4xx) since.
	answered atomic.Bool
	refused  atomic.Int64
}

// LLMOptions configure an LLMJudge.
type LLMOptions struct {
	// Samples draws k replies per leaf and takes the majority; k must be
	// odd. Sampling stops as soon as one verdict has a majority.
	Samples int
	Prompt  PromptOptions
	// Prices, if set, prices the tokens of failed calls in the ledger
	// (successful calls are priced by the client's meter).
	Prices llm.Prices
	// MaxConsecutiveFailures stops the run when that many calls in a row
	// fail on the endpoint's side (unreachable, 5xx, timeouts, rate limits
	// that outlast the retries): the endpoint is down, and going on would
	// only record every remaining leaf as invalid. Zero means 8; negative
	// never stops.
	MaxConsecutiveFailures int
}

// DefaultMaxConsecutiveFailures is LLMOptions.MaxConsecutiveFailures' default.
const DefaultMaxConsecutiveFailures = llm.MaxDownInARow

// NewLLMJudge returns a judge over c.
func NewLLMJudge(c Completer, o LLMOptions) (*LLMJudge, error) {
	if o.Samples == 0 {
		o.Samples = 1
	}
	if o.Samples < 0 || o.Samples%2 == 0 {
		return nil, fmt.Errorf("judge: samples must be a positive odd number, not %d", o.Samples)
	}
	if o.MaxConsecutiveFailures == 0 {
		o.MaxConsecutiveFailures = DefaultMaxConsecutiveFailures
	}
	return &LLMJudge{c: c, samples: o.Samples, prompt: o.Prompt, prices: o.Prices, maxDown: int64(o.MaxConsecutiveFailures)}, nil
}

// Name is "llm:<endpoint>/<model>@<prompt version>+<group prompt
// version>": a ledger is resumed only by a judge with the same prompts.
func (j *LLMJudge) Name() string {
	ep := j.c.Endpoint()
	return fmt.Sprintf("llm:%s/%s@%s+%s", ep.Name, ep.Model, PromptVersion, GroupPromptVersion)
}

// Source is SourceLLM.
func (j *LLMJudge) Source() judgefmt.Source { return judgefmt.SourceLLM }

// Samples is k.
func (j *LLMJudge) Samples() int { return j.samples }

// MaxTokens is the endpoint's max_tokens per leaf (a group of n leaves may
// use n times it).
func (j *LLMJudge) MaxTokens() int { return j.c.Endpoint().Sampling.MaxTokens }

// Concurrency is the endpoint's limit on calls in flight; in batch mode,
// a batch's requests: every task is judged at once, so that each batch
// holds every group that is ready.
func (j *LLMJudge) Concurrency() int {
	if ep := j.c.Endpoint(); ep.Batched() {
		return ep.Batch.MaxRequests
	}
	return j.c.Endpoint().Limits.Concurrency
}

// Batched reports whether the endpoint sends its requests in batches
// (mode batch).
func (j *LLMJudge) Batched() bool { return j.c.Endpoint().Batched() }

// Prompt returns the messages a leaf is judged with.
func (j *LLMJudge) Prompt(req *LeafRequest) []llm.Message { return BuildPrompt(req, j.prompt) }

// Decide asks the model, k times at most, and takes the majority.
func (j *LLMJudge) Decide(ctx context.Context, req *LeafRequest) (Decision, error) {
	start := time.Now()
	msgs := BuildPrompt(req, j.prompt)
	var d Decision
	var t tally
	for s := 0; s < j.samples; s++ {
		resp, le, stop := j.complete(ctx, llm.Request{Messages: msgs, Schema: verdictSchema, Sample: s, Tag: req.Tag(), Validate: validateVerdict}, &d.CallStats)
		switch {
		case stop != nil:
			// Nothing to record: the leaf is judged when the run resumes
			// (samples already drawn come back from the cache).
			return d, stop
		case le != nil:
			t.invalid(le)
		default:
			r, perr := ParseVerdict(resp.Text)
			if perr != nil { // cannot happen: Validate checked it
				t.invalid(&llm.Error{Kind: llm.KindMalformed, Message: perr.Error()})
			} else {
				t.vote(r)
			}
		}
		if t.settled(j.samples, s+1) {
			break
		}
	}
	d.finish(start)
	t.decide(&d, j.samples)
	return d, nil
}

// complete asks for one sample and counts it in stats. It returns the
// reply, or the failure to record as an invalid vote, or stop: an error
// that must end the run with the leaves undecided (see failed). A reply
// resets the endpoint's count of failures in a row.
func (j *LLMJudge) complete(ctx context.Context, r llm.Request, stats *CallStats) (llm.Response, *llm.Error, error) {
	resp, err := j.c.Complete(ctx, r)
	stats.Calls++
	stats.Prompt = r.Messages
	if err != nil {
		le, stop := j.failed(err)
		if stop != nil {
			return llm.Response{}, nil, stop
		}
		usd := j.cost(le.Usage)
		stats.addCall(le.Attempts, le.Usage, usd, usd, false)
		stats.Replies = append(stats.Replies, judgefmt.Reply{Error: le.Error()})
		return llm.Response{}, le, nil
	}
	j.down.Store(0)
	if !resp.FromCache {
		j.answered.Store(true)
		j.refused.Store(0)
	}
	stats.addCall(resp.Attempts, resp.Usage, resp.CostUSD, resp.ReplyCostUSD, resp.FromCache)
	stats.Replies = append(stats.Replies, judgefmt.Reply{Text: resp.Text, FromCache: resp.FromCache})
	return resp, nil, nil
}

// failed reads a Complete error: stop reports the errors that must stop
// the run with the leaf undecided; every other error is a failed sample,
// recorded as invalid. The run stops when the budget is spent or the
// context ended, when a batch is still running at the provider after the
// batch wait (the leaf is judged when a rerun collects it), when the
// endpoint refuses the key or the quota is used up
// (every later call would fail the same way), and when the endpoint has
// failed maxDown calls in a row.
func (j *LLMJudge) failed(err error) (le *llm.Error, stop error) {
	if !errors.As(err, &le) {
		le = &llm.Error{Kind: llm.KindOf(err), Message: err.Error()}
	}
	switch k := le.Kind; {
	case k == llm.KindBudget || k == llm.KindCanceled || k == llm.KindAuth || k == llm.KindQuota || k == llm.KindBatchPending:
		return le, err
	case le.EndpointDown():
		// Transport garbage (a body cut off, not JSON) counts too: an
		// endpoint that only ever sends it is as down as one that resets.
		if n := j.down.Add(1); j.maxDown > 0 && n >= j.maxDown {
			return le, &EndpointDownError{Calls: n, Last: err}
		}
	case k == llm.KindBadRequest && !contentFiltered(le):
		// The endpoint refused the request (400, 404, 422, ...). Before
		// it has answered anything, that is its configuration (a model
		// name it does not serve, a parameter the model does not take),
		// and every call will be refused the same way: stop, as generate
		// stops a model, rather than record every leaf invalid. After
		// answers, a refusal is the request's, unless maxDown come in a
		// row.
		j.down.Store(0)
		n := j.refused.Add(1)
		if !j.answered.Load() || (j.maxDown > 0 && n >= j.maxDown) {
			return le, &ConfigError{Calls: n, Answered: j.answered.Load(), Last: err}
		}
	default:
		// A malformed reply or a refused request: the endpoint answered.
		j.down.Store(0)
	}
	return le, nil
}

// contentFiltered reports a request refused for its content (OpenAI's
// and Azure's content_filter): that prompt's refusal, not the endpoint's
// configuration.
func contentFiltered(le *llm.Error) bool {
	m := strings.ToLower(le.Message)
	return strings.Contains(m, "content_filter") || strings.Contains(m, "content management policy")
}

// ConfigError stops a run whose judge endpoint refuses its requests as
// bad (HTTP 4xx other than rate limits, keys and context length): before
// any answer, or call after call. No leaf is recorded for a refused call:
// fix the configuration and run again.
type ConfigError struct {
	Calls    int64 // calls in a row refused
	Answered bool  // the endpoint had answered calls of this run before
	Last     error
}

func (e *ConfigError) Error() string {
	what := "refused the first request sent"
	if e.Answered {
		what = fmt.Sprintf("refused %d requests in a row", e.Calls)
	}
	return fmt.Sprintf("the judge endpoint %s (%v): every call would be refused the same way, a configuration error "+
		"(a model name the endpoint does not serve, a wrong base URL, deployment or api_version, a sampling parameter the model does not accept, "+
		"such as max_tokens or temperature for reasoning models); fix the judge configuration and run the same command again: "+
		"no leaf was recorded for a refused call, what was decided is kept", what, e.Last)
}

func (e *ConfigError) Unwrap() error { return e.Last }

// EndpointDownError stops a run whose judge endpoint failed call after
// call even with retries. The leaves it failed before are recorded as
// invalid; --retry-invalid judges them again.
type EndpointDownError struct {
	Calls int64 // calls in a row that failed
	Last  error
}

func (e *EndpointDownError) Error() string {
	return fmt.Sprintf("the judge endpoint failed %d calls in a row, each after its retries (last: %v); "+
		"the leaves it failed are recorded as invalid: resume with --retry-invalid once the endpoint is back", e.Calls, e.Last)
}

func (e *EndpointDownError) Unwrap() error { return e.Last }

// cost prices the tokens of a failed call (successful calls are priced by
// the client's meter).
// Spending is what the judge's meter records, once the run's calls have
// ended: what this process's calls were charged (every attempt, failed
// ones and replies never recorded included) and the output folder's
// total over every run into it (unsettled reservations at their worst
// case: never less than the provider billed). ok is false without a
// meter.
func (j *LLMJudge) Spending() (thisRun, folder float64, ok bool) {
	mc, is := j.c.(interface{ Meter() *llm.Meter })
	if !is || mc.Meter() == nil {
		return 0, 0, false
	}
	m := mc.Meter()
	return m.SpentThisRun(), m.Spent(), true
}

func (j *LLMJudge) cost(u llm.Usage) float64 {
	c, _ := j.prices.Cost(j.c.Endpoint().Model, u)
	return c
}

// tally is one leaf's votes over the samples drawn for it.
type tally struct {
	v       judgefmt.Votes
	reasons [2][]string // fail, pass
	lastErr *llm.Error
	done    bool
}

func (t *tally) vote(r Reply) {
	if r.Verdict == "pass" {
		t.v.Pass++
		t.reasons[1] = append(t.reasons[1], r.Reasoning)
	} else {
		t.v.Fail++
		t.reasons[0] = append(t.reasons[0], r.Reasoning)
	}
}

func (t *tally) invalid(le *llm.Error) {
	t.v.Invalid++
	t.lastErr = le
}

// settled reports, after drawn of k samples, whether one verdict has a
// majority or none can get one: no further sample could change the
// outcome. It latches, so a leaf's later samples in a group are not
// counted.
func (t *tally) settled(k, drawn int) bool {
	need, left := k/2+1, k-drawn
	if t.v.Pass >= need || t.v.Fail >= need || (t.v.Pass+left < need && t.v.Fail+left < need) {
		t.done = true
	}
	return t.done
}

// decide writes the outcome of the vote into d: the majority verdict with
// its first reasoning, or invalid with the last error (k = 1) or
// "no_majority".
func (t *tally) decide(d *Decision, k int) {
	need := k/2 + 1
	v := t.v
	d.Samples = v.Pass + v.Fail + v.Invalid
	if k > 1 {
		d.Votes = &v
	}
	switch {
	case v.Pass >= need:
		d.Verdict = rubric.Verdict{Status: rubric.Pass, Score: 1}
		d.Explanation = t.reasons[1][0]
	case v.Fail >= need:
		d.Verdict = rubric.Verdict{Status: rubric.Fail, Score: 0}
		d.Explanation = t.reasons[0][0]
	default:
		d.Verdict = rubric.Verdict{Status: rubric.Invalid}
		switch {
		case k == 1 && t.lastErr != nil:
			d.ErrorKind = string(t.lastErr.Kind)
			d.Explanation = "Error: " + t.lastErr.Error()
		default:
			d.ErrorKind = "no_majority"
			d.Explanation = fmt.Sprintf("Error: no majority of %d samples (pass %d, fail %d, invalid %d)", k, v.Pass, v.Fail, v.Invalid)
			if t.lastErr != nil {
				d.Explanation += "; last error: " + t.lastErr.Error()
			}
		}
	}
	if k > 1 && v.Pass > 0 && v.Fail > 0 {
		d.Explanation += fmt.Sprintf(" [vote: pass %d, fail %d, invalid %d]", v.Pass, v.Fail, v.Invalid)
	}
}

// GroupPrompt returns the messages a group is judged with.
func (j *LLMJudge) GroupPrompt(req *GroupRequest) []llm.Message {
	return BuildGroupPrompt(req, j.prompt)
}

// DecideGroup asks the model about every leaf of the group in one call,
// with a reply schema naming exactly the group's ids. The endpoint's
// max_tokens is per leaf: a group of n leaves may use n times it.
//
// With k samples, sample s is the s-th draw of the same group prompt (so
// each is cached under its own key) and each leaf keeps its own vote: a
// leaf's votes stop counting once it has a majority or can get none, and
// sampling stops when every leaf is settled. A sample that fails (an
// infrastructure error after its retries, a reply that stayed unreadable)
// is an invalid vote for every leaf still voting; so with k = 1 every leaf
// of a failed call is invalid, never pass or fail.
func (j *LLMJudge) DecideGroup(ctx context.Context, req *GroupRequest) (GroupDecision, error) {
	start := time.Now()
	msgs := BuildGroupPrompt(req, j.prompt)
	ids := req.IDs()
	schema := groupSchema(ids)
	validate := func(text string) error {
		_, err := ParseGroupVerdicts(text, ids)
		return err
	}
	var sampling llmfmt.Sampling
	if mt := j.c.Endpoint().Sampling.MaxTokens; mt > 0 {
		sampling.MaxTokens = mt * len(ids)
	}
	var gd GroupDecision
	tallies := make([]tally, len(ids))
	for s := 0; s < j.samples; s++ {
		resp, le, stop := j.complete(ctx, llm.Request{Messages: msgs, Schema: schema, Sampling: sampling, Sample: s, Tag: req.Tag(), Validate: validate}, &gd.CallStats)
		if stop != nil {
			return gd, stop
		}
		var replies map[string]Reply
		var perr error
		if le == nil {
			if replies, perr = ParseGroupVerdicts(resp.Text, ids); perr != nil { // cannot happen: Validate checked it
				le = &llm.Error{Kind: llm.KindMalformed, Message: perr.Error()}
			}
		}
		all := true
		for i, id := range ids {
			switch {
			case tallies[i].done:
			case le != nil:
				tallies[i].invalid(le)
			default:
				tallies[i].vote(replies[id])
			}
			if !tallies[i].settled(j.samples, s+1) {
				all = false
			}
		}
		if all {
			break
		}
	}
	gd.finish(start)
	gd.Leaves = make([]Decision, len(ids))
	for i := range tallies {
		tallies[i].decide(&gd.Leaves[i], j.samples)
	}
	return gd, nil
}
