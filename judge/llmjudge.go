package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clinsql/clinsql/llm"
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
}

// NewLLMJudge returns a judge over c.
func NewLLMJudge(c Completer, o LLMOptions) (*LLMJudge, error) {
	if o.Samples == 0 {
		o.Samples = 1
	}
	if o.Samples < 0 || o.Samples%2 == 0 {
		return nil, fmt.Errorf("judge: samples must be a positive odd number, not %d", o.Samples)
	}
	return &LLMJudge{c: c, samples: o.Samples, prompt: o.Prompt, prices: o.Prices}, nil
}

// Name is "llm:<endpoint>/<model>@<prompt version>".
func (j *LLMJudge) Name() string {
	ep := j.c.Endpoint()
	return fmt.Sprintf("llm:%s/%s@%s", ep.Name, ep.Model, PromptVersion)
}

// Source is SourceLLM.
func (j *LLMJudge) Source() Source { return SourceLLM }

// Samples is k.
func (j *LLMJudge) Samples() int { return j.samples }

// Concurrency is the endpoint's limit on calls in flight.
func (j *LLMJudge) Concurrency() int { return j.c.Endpoint().Limits.Concurrency }

// Prompt returns the messages a leaf is judged with.
func (j *LLMJudge) Prompt(req *LeafRequest) []llm.Message { return BuildPrompt(req, j.prompt) }

// Decide asks the model, k times at most, and takes the majority.
func (j *LLMJudge) Decide(ctx context.Context, req *LeafRequest) (Decision, error) {
	start := time.Now()
	msgs := BuildPrompt(req, j.prompt)
	need := j.samples/2 + 1
	var d Decision
	var v Votes
	var reasons [2][]string // fail, pass
	var lastErr *llm.Error
	for s := 0; s < j.samples; s++ {
		resp, err := j.c.Complete(ctx, llm.Request{Messages: msgs, Schema: verdictSchema, Sample: s, Tag: req.Tag(), Validate: validateVerdict})
		d.Calls++
		if err != nil {
			var le *llm.Error
			if !errors.As(err, &le) {
				le = &llm.Error{Kind: llm.KindOf(err), Message: err.Error()}
			}
			switch le.Kind {
			case llm.KindBudget, llm.KindCanceled:
				// Nothing to record: the leaf is judged when the run resumes
				// (samples already drawn come back from the cache).
				return d, err
			}
			d.Attempts += le.Attempts
			d.Usage = d.Usage.Add(le.Usage)
			if c, ok := j.prices.Cost(j.c.Endpoint().Model, le.Usage); ok {
				d.CostUSD += c
			}
			v.Invalid++
			lastErr = le
		} else {
			d.Attempts += resp.Attempts
			d.Usage = d.Usage.Add(resp.Usage)
			d.CostUSD += resp.CostUSD
			if resp.FromCache {
				d.CacheHits++
			}
			r, perr := ParseVerdict(resp.Text)
			if perr != nil { // cannot happen: Validate checked it
				v.Invalid++
				lastErr = &llm.Error{Kind: llm.KindMalformed, Message: perr.Error()}
			} else if r.Verdict == "pass" {
				v.Pass++
				reasons[1] = append(reasons[1], r.Reasoning)
			} else {
				v.Fail++
				reasons[0] = append(reasons[0], r.Reasoning)
			}
		}
		left := j.samples - s - 1
		if v.Pass >= need || v.Fail >= need || (v.Pass+left < need && v.Fail+left < need) {
			break
		}
	}
	d.Samples = v.Pass + v.Fail + v.Invalid
	d.Latency = time.Since(start)
	if j.samples > 1 {
		d.Votes = &v
	}
	switch {
	case v.Pass >= need:
		d.Verdict = rubric.Verdict{Status: rubric.Pass, Score: 1}
		d.Explanation = reasons[1][0]
	case v.Fail >= need:
		d.Verdict = rubric.Verdict{Status: rubric.Fail, Score: 0}
		d.Explanation = reasons[0][0]
	default:
		d.Verdict = rubric.Verdict{Status: rubric.Invalid}
		switch {
		case j.samples == 1 && lastErr != nil:
			d.ErrorKind = string(lastErr.Kind)
			d.Explanation = "Error: " + lastErr.Error()
		default:
			d.ErrorKind = "no_majority"
			d.Explanation = fmt.Sprintf("Error: no majority of %d samples (pass %d, fail %d, invalid %d)", j.samples, v.Pass, v.Fail, v.Invalid)
			if lastErr != nil {
				d.Explanation += "; last error: " + lastErr.Error()
			}
		}
	}
	if j.samples > 1 && v.Pass > 0 && v.Fail > 0 {
		d.Explanation += fmt.Sprintf(" [vote: pass %d, fail %d, invalid %d]", v.Pass, v.Fail, v.Invalid)
	}
	return d, nil
}
