package judge

import (
	"context"
	"errors"
	"hash/fnv"
	"sync"
	"time"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/rubric"
)

// keyBackend is the engine tests' fake backend. It decides each leaf by
// its key (task, tree, leaf id) through verdict, never from a prompt, so
// a leaf gets the same verdict alone or in a group and a test states the
// verdicts it wants directly. It implements Backend and GroupBackend,
// counts every call with the keys it decided, and reports a fixed usage
// per call (fakeUsage) so the engine's call and token accounting can be
// checked against what the backend saw.
type keyBackend struct {
	// verdict decides a leaf; nil is keyVerdict.
	verdict func(judgefmt.LeafKey) rubric.Status
	// latency is each call's duration (ctx ends it early).
	latency time.Duration
	// budget, when positive, is the number of calls answered; every call
	// after it returns errBudget, as a spent budget stops a run.
	budget int

	mu          sync.Mutex
	calls       [][]judgefmt.LeafKey
	inFlight    int
	maxInFlight int
}

var errBudget = errors.New("fake backend: budget spent")

// keyVerdict fails about a third of the leaves, chosen by a hash of the
// key.
func keyVerdict(k judgefmt.LeafKey) rubric.Status {
	h := fnv.New32a()
	h.Write([]byte(k.Task + "\x00" + string(k.Tree) + "\x00" + k.Leaf))
	if h.Sum32()%3 == 0 {
		return rubric.Fail
	}
	return rubric.Pass
}

// fakeUsage is the usage the fake reports for a call of n leaves.
func fakeUsage(n int) llm.Usage {
	return llm.Usage{PromptTokens: 100 + 20*n, CompletionTokens: 10 * n}
}

func (b *keyBackend) Name() string            { return "fake:by-key" }
func (b *keyBackend) Source() judgefmt.Source { return judgefmt.SourceLLM }

// Calls is the number of calls answered.
func (b *keyBackend) Calls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.calls)
}

// MaxInFlight is the most calls that were in progress at once.
func (b *keyBackend) MaxInFlight() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.maxInFlight
}

// call runs one call of the leaves keys: it waits the latency, refuses it
// beyond the budget, and otherwise records it and returns the verdicts.
func (b *keyBackend) call(ctx context.Context, keys []judgefmt.LeafKey) ([]Decision, CallStats, error) {
	b.mu.Lock()
	if b.budget > 0 && len(b.calls) >= b.budget {
		b.mu.Unlock()
		return nil, CallStats{}, errBudget
	}
	b.calls = append(b.calls, keys)
	b.inFlight++
	b.maxInFlight = max(b.maxInFlight, b.inFlight)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.inFlight--
		b.mu.Unlock()
	}()
	start := time.Now()
	if b.latency > 0 {
		select {
		case <-time.After(b.latency):
		case <-ctx.Done():
			return nil, CallStats{}, ctx.Err()
		}
	}
	decide := b.verdict
	if decide == nil {
		decide = keyVerdict
	}
	ds := make([]Decision, len(keys))
	for i, k := range keys {
		st := decide(k)
		ds[i] = Decision{Verdict: rubric.Verdict{Status: st}, Explanation: "fake verdict for " + k.Leaf, Samples: 1}
		switch st {
		case rubric.Pass:
			ds[i].Verdict.Score = 1
		case rubric.Invalid:
			ds[i].ErrorKind = "fake"
		}
	}
	cs := CallStats{Calls: 1, Attempts: 1, Usage: fakeUsage(len(keys)), CostUSD: 0.001, Latency: time.Since(start)}
	return ds, cs, nil
}

func (b *keyBackend) Decide(ctx context.Context, req *LeafRequest) (Decision, error) {
	k := judgefmt.LeafKey{Task: req.Task.Key.String(), Tree: req.Tree, Leaf: req.Leaf.ID}
	ds, cs, err := b.call(ctx, []judgefmt.LeafKey{k})
	if err != nil {
		return Decision{}, err
	}
	d := ds[0]
	d.CallStats = cs
	return d, nil
}

func (b *keyBackend) DecideGroup(ctx context.Context, req *GroupRequest) (GroupDecision, error) {
	keys := make([]judgefmt.LeafKey, len(req.Leaves))
	for i, l := range req.Leaves {
		keys[i] = judgefmt.LeafKey{Task: req.Task.Key.String(), Tree: req.Tree, Leaf: l.ID}
	}
	ds, cs, err := b.call(ctx, keys)
	if err != nil {
		return GroupDecision{}, err
	}
	return GroupDecision{Leaves: ds, CallStats: cs}, nil
}

// leafOnly hides a backend's DecideGroup: a backend that judges one leaf
// per call.
type leafOnly struct{ Backend }
