package judge

import (
	"context"
	"strings"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/rubric"
)

// LeafRequest is what a backend needs to decide one leaf.
type LeafRequest struct {
	Task   *datasets.Task
	Answer *codecheck.Answer
	Tree   judgefmt.Tree
	Leaf   *rubric.Node
	// ReferenceGuided adds the gold SQL and gold result to an LLM prompt.
	ReferenceGuided bool
}

// Tag labels the request in logs: "validation/.../001 results:acceptable-range".
func (r *LeafRequest) Tag() string {
	return r.Task.Key.String() + " " + string(r.Tree) + ":" + r.Leaf.ID
}

// Decision is a backend's verdict on one leaf.
type Decision struct {
	Verdict     rubric.Verdict
	Explanation string
	// ErrorKind classifies an Invalid verdict (see Record.ErrorKind).
	ErrorKind string
	Samples   int
	Votes     *judgefmt.Votes
	CallStats
}

// CallStats is what a decision's chat completions cost: shared by a leaf's
// Decision and a GroupDecision, and filled the same way for both.
type CallStats struct {
	// Calls, CacheHits and Attempts count chat completions requested,
	// served from the cache, and HTTP requests sent.
	Calls, CacheHits, Attempts int
	Usage                      llm.Usage
	// PerCall is each call's usage when there was more than one.
	PerCall []judgefmt.Usage
	CostUSD float64
	// ReplyCostUSD is what the replies cost when they were bought, by
	// this run or an earlier one (llm.Response.ReplyCostUSD): CostUSD
	// plus the price of the replies read from the cache.
	ReplyCostUSD float64
	Latency      time.Duration
	// Prompt and Replies are what a model backend sent (every sample
	// draws the same prompt) and each call's reply or error: the engine
	// keeps them in the transcript beside the ledger. Empty for backends
	// that call no model.
	Prompt  []llm.Message
	Replies []judgefmt.Reply
}

// addCall counts one completion: its HTTP attempts, tokens and cost, and
// what its reply cost when it was bought.
func (c *CallStats) addCall(attempts int, u llm.Usage, usd, bought float64, cached bool) {
	c.Attempts += attempts
	c.Usage = c.Usage.Add(u)
	c.PerCall = append(c.PerCall, judgefmt.Usage(u))
	c.CostUSD += usd
	c.ReplyCostUSD += bought
	if cached {
		c.CacheHits++
	}
}

// finish records the latency since start and drops PerCall when there was
// a single call (Usage says it all).
func (c *CallStats) finish(start time.Time) {
	c.Latency = time.Since(start)
	if len(c.PerCall) < 2 {
		c.PerCall = nil
	}
}

// Backend decides the leaves code does not. Implementations must be safe
// for concurrent use.
type Backend interface {
	// Name identifies the backend in the ledger and the summaries.
	Name() string
	// Source is SourceLLM or SourceReplay.
	Source() judgefmt.Source
	// Decide returns the leaf's decision. A failure of this leaf (the
	// judge erred after its retries, its reply could not be read) is a
	// Decision with an Invalid verdict, not an error. An error means the
	// run must stop (the budget is spent, the context ended): the leaf
	// stays undecided and is judged when the run is resumed.
	Decide(ctx context.Context, req *LeafRequest) (Decision, error)
}

// BackendIdentity is what a ledger binds to: the backend's Identity when
// it has one (a replay: the grading's digest and model), else its Name (an
// LLM: endpoint, model and prompt versions).
func BackendIdentity(b Backend) string {
	if id, ok := b.(interface{ Identity() string }); ok {
		return id.Identity()
	}
	return b.Name()
}

// SameModel reports whether two model names denote the same model: equal,
// or equal without an organisation prefix ("Qwen/Qwen3-...") and case.
func SameModel(a, b string) bool {
	norm := func(s string) string {
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			s = s[i+1:]
		}
		return strings.ToLower(strings.TrimSpace(s))
	}
	return a == b || norm(a) == norm(b)
}
