package judge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

// Item is one task with the model's answer to it.
type Item struct {
	Task   *datasets.Task
	Answer *codecheck.Answer
}

// Options configure a judging run.
type Options struct {
	// Mode is the scoring mode: it decides which leaves can be skipped and
	// how the scores are aggregated.
	Mode rubric.Mode
	// Backend decides the leaves code does not. nil leaves them undecided.
	Backend Backend
	// CodeChecks lets code decide the results leaves it can (see Check).
	CodeChecks bool
	// Skipping marks leaves that cannot change the score as skipped
	// instead of judging them (see rubric.Skippable). Scores are
	// identical either way.
	Skipping bool
	// ReferenceGuided shows the backend the gold SQL and result.
	ReferenceGuided bool
	// Tasks bounds the tasks judged at once; Leaves the leaves of one task
	// judged at once (default 16; 1,024 for a backend sending batches, so
	// that a batch holds every leaf that is ready). The endpoint's own
	// concurrency limit bounds the calls in flight across all of them.
	// Tasks defaults to 1.25
	// x the backend's concurrency (64 for a backend without a limit): a
	// few more tasks than call slots keep the slots busy while tasks wait
	// on their gates, and few enough that a task's chain of gated leaves
	// does not queue behind a crowd (BenchmarkJudge190: 1.34 x the ideal
	// wall time with 128 tasks at once, 1.06 with 40).
	Tasks, Leaves int
	// Group is how many leaves one backend call decides (see GroupMode):
	// the zero value judges each leaf alone. Grouping needs a GroupBackend.
	Group GroupMode
	// GroupGated also puts in a group the leaves that wait on an undecided
	// gate in the same group (a critical sibling, an earlier sequential
	// sibling): fewer calls, but verdicts the gate may make uncounted are
	// paid for. Without it a group holds only leaves that are ready.
	GroupGated bool
	// RetryInvalid judges again the leaves whose recorded verdict is
	// invalid; their new record supersedes the old one.
	RetryInvalid bool
	// Progress, if set, is called after each leaf is recorded, with the
	// number of leaves recorded in this run so far. It must be quick.
	Progress func(recorded int)
}

// ItemResult is one judged task.
type ItemResult struct {
	Item
	// SQL and Results are the leaf verdicts of the two trees (Missing for
	// leaves left undecided by a stopped run or a missing backend).
	SQL, Results rubric.Decisions
	// Records holds the last ledger record of every decided leaf.
	Records map[judgefmt.LeafKey]*judgefmt.Record
}

// Outcome is the result of Run.
type Outcome struct {
	Items []*ItemResult
	// Stopped is why the run ended before every leaf was decided (the
	// budget, an interrupt); nil when it finished.
	Stopped error
	This    judgefmt.RunCounts
	Opts    Options
	Judge   string
}

// Complete reports whether every leaf has a verdict.
func (o *Outcome) Complete() bool {
	if o.Stopped != nil {
		return false
	}
	for _, it := range o.Items {
		for _, t := range []struct {
			root *rubric.Node
			d    rubric.Decisions
		}{{it.Task.SQLRubric.Root, it.SQL}, {it.Task.ResultsRubric.Root, it.Results}} {
			for _, l := range t.root.Leaves() {
				if t.d[l.ID].Status == rubric.Missing {
					return false
				}
			}
		}
	}
	return true
}

type engine struct {
	opts   Options
	ledger *judgefmt.Ledger
	judge  string

	stopOnce sync.Once
	stop     atomic.Pointer[error]

	mu    sync.Mutex
	count judgefmt.RunCounts
}

// Run judges every leaf of every item's two rubric trees that the ledger
// does not hold yet, appending a record per leaf as soon as it is
// decided. Tasks are judged concurrently (errgroup, Options.Tasks); within
// a task, code checks run first, then leaves are judged in plan order as
// soon as they are ready, concurrently (errgroup, Options.Leaves), and
// leaves that can no longer change the score are skipped.
//
// A per-leaf failure is recorded as an invalid verdict. A backend error
// (the budget is spent, ctx ended) stops the run cleanly: calls in flight
// finish and are recorded, nothing new starts, and Outcome.Stopped says
// why. Only a ledger write failure is returned as an error.
func Run(ctx context.Context, items []Item, led *judgefmt.Ledger, opts Options) (*Outcome, error) {
	if opts.Mode == "" {
		opts.Mode = rubric.Strict
	}
	if opts.Tasks <= 0 {
		opts.Tasks = 64
		if c, ok := opts.Backend.(interface{ Concurrency() int }); ok && c.Concurrency() > 0 {
			opts.Tasks = max(4, c.Concurrency()*5/4)
		}
	}
	if opts.Leaves <= 0 {
		opts.Leaves = 16
		if b, ok := opts.Backend.(interface{ Batched() bool }); ok && b.Batched() {
			// A batch should hold every leaf that is ready, whatever the
			// grouping: a leaf left waiting for a slot would go out in a
			// later batch, hours later.
			opts.Leaves = 1 << 10
		}
	}
	opts.Group = opts.Group.orLeaf()
	if _, err := ParseGroupMode(string(opts.Group)); err != nil {
		return nil, err
	}
	if opts.Group != GroupLeaf && opts.Backend != nil {
		if _, ok := opts.Backend.(GroupBackend); !ok {
			return nil, fmt.Errorf("judge: the backend %s cannot judge leaves in groups (grouping %s)", opts.Backend.Name(), opts.Group)
		}
	}
	if opts.GroupGated && opts.Group == GroupLeaf {
		return nil, errors.New("judge: gated grouping needs a grouping of category or tree")
	}
	e := &engine{opts: opts, ledger: led}
	if opts.Backend != nil {
		e.judge = opts.Backend.Name()
	}
	start := time.Now()
	out := &Outcome{Items: make([]*ItemResult, len(items)), Opts: opts, Judge: e.judge}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Tasks)
	for i, it := range items {
		if e.stopped() != nil {
			break
		}
		g.Go(func() error {
			r, err := e.item(gctx, it)
			out.Items[i] = r
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Items never started (after a stop) are still reported, from the
	// ledger.
	for i, it := range items {
		if out.Items[i] == nil {
			out.Items[i] = e.fromLedger(it)
		}
	}
	switch err := e.stopped(); {
	case err != nil:
		out.Stopped = err
	case ctx.Err() != nil:
		out.Stopped = ctx.Err()
	case opts.Backend == nil && !out.Complete():
		out.Stopped = ErrNoBackend
	}
	out.This = e.count
	out.This.WallSeconds = time.Since(start).Seconds()
	return out, nil
}

func (e *engine) stopped() error {
	if p := e.stop.Load(); p != nil {
		return *p
	}
	return nil
}

func (e *engine) halt(err error) {
	e.stopOnce.Do(func() { e.stop.Store(&err) })
}

// treeState is one rubric tree of a task being judged.
type treeState struct {
	tree judgefmt.Tree
	root *rubric.Node
	plan *plan
	d    rubric.Decisions
}

func (e *engine) trees(it Item) []*treeState {
	return []*treeState{
		{tree: judgefmt.TreeSQL, root: it.Task.SQLRubric.Root, d: rubric.Decisions{}},
		{tree: judgefmt.TreeResults, root: it.Task.ResultsRubric.Root, d: rubric.Decisions{}},
	}
}

// fromLedger reports an item the run never started (it stopped first):
// its backend decisions from the ledger; code and skip records are not
// taken (they are computed when the item is judged), so its leaves they
// decided are left undecided.
func (e *engine) fromLedger(it Item) *ItemResult {
	r := &ItemResult{Item: it, Records: map[judgefmt.LeafKey]*judgefmt.Record{}}
	for _, ts := range e.trees(it) {
		for _, l := range ts.root.Leaves() {
			k := judgefmt.LeafKey{Task: it.Task.Key.String(), Tree: ts.tree, Leaf: l.ID}
			if rec := e.ledger.Get(k); rec != nil && rec.Source != judgefmt.SourceCode && rec.Source != judgefmt.SourceSkip {
				ts.d[l.ID] = rubric.Verdict{Status: rec.Verdict, Score: rec.Score}
				r.Records[k] = rec
			}
		}
		if ts.tree == judgefmt.TreeSQL {
			r.SQL = ts.d
		} else {
			r.Results = ts.d
		}
	}
	return r
}

// done is one backend call coming back to a task's loop: a leaf's
// decision, or a group's.
type done struct {
	ts   *treeState
	leaf *rubric.Node
	d    Decision
	// group is set for a grouped call: its request and decision.
	group *GroupRequest
	gd    GroupDecision
	err   error
}

// leaves are the leaves the call decided.
func (r *done) leaves() []*rubric.Node {
	if r.group != nil {
		return r.group.Leaves
	}
	return []*rubric.Node{r.leaf}
}

// calls are the chat completions the call requested and served from the
// cache.
func (r *done) calls() (calls, hits int) {
	if r.group != nil {
		return r.gd.Calls, r.gd.CacheHits
	}
	return r.d.Calls, r.d.CacheHits
}

func (e *engine) item(ctx context.Context, it Item) (*ItemResult, error) {
	key := it.Task.Key.String()
	trees := e.trees(it)
	// Resume: what the ledger holds from the backend is decided. What code
	// decided, and what was skipped, is decided again below (it costs
	// nothing): a verdict code can compute is never taken from a file,
	// and a skip holds only behind a gate that still fails.
	for _, ts := range trees {
		ts.plan = newPlan(ts.root, e.opts.Mode)
		for _, l := range ts.plan.leaves {
			rec := e.ledger.Get(judgefmt.LeafKey{Task: key, Tree: ts.tree, Leaf: l.ID})
			if rec == nil || (e.opts.RetryInvalid && rec.Verdict == rubric.Invalid) || rec.Source == judgefmt.SourceCode || rec.Source == judgefmt.SourceSkip {
				continue
			}
			ts.d[l.ID] = rubric.Verdict{Status: rec.Verdict, Score: rec.Score}
			e.add(func(c *judgefmt.RunCounts) { c.Resumed++ })
		}
	}
	// Code checks are free: all of them first, so their verdicts can make
	// other leaves skippable.
	if e.opts.CodeChecks {
		for _, ts := range trees {
			for _, l := range ts.plan.leaves {
				if ts.d[l.ID].Status != rubric.Missing {
					continue
				}
				cd := codecheck.CheckLeaf(ts.tree, l, it.Answer)
				if !cd.Decided {
					continue
				}
				v := rubric.Verdict{Status: rubric.Fail}
				if cd.Pass {
					v = rubric.Verdict{Status: rubric.Pass, Score: 1}
				}
				rec := judgefmt.Record{Task: key, Tree: ts.tree, Leaf: l.ID, Verdict: v.Status, Score: v.Score, Source: judgefmt.SourceCode,
					Kind: cd.Kind, Explanation: cd.Explanation, Evidence: cd.Evidence, Judge: "code", ReferenceGuided: e.opts.ReferenceGuided}
				if err := e.recordOrKeep(ts, rec); err != nil {
					return nil, err
				}
			}
		}
	}

	results := make(chan done, len(trees[0].plan.leaves)+len(trees[1].plan.leaves))
	inflight := map[*rubric.Node]bool{}
	pending := 0 // calls in flight
	var g errgroup.Group
	g.SetLimit(e.opts.Leaves)
	var ledgerErr error
	launch := func() error {
		if e.stopped() != nil || ctx.Err() != nil {
			return nil
		}
		for _, ts := range trees {
			var groups [][]*rubric.Node // one per unit, in plan order of their first leaf
			unitGroup := map[*rubric.Node]int{}
			picked := map[*rubric.Node]*rubric.Node{} // leaf -> its unit, this pass
			for _, l := range ts.plan.leaves {
				if ts.d[l.ID].Status != rubric.Missing || inflight[l] {
					continue
				}
				if e.opts.Skipping {
					if skip, by := rubric.Skippable(l, ts.d, e.opts.Mode); skip {
						if err := e.skip(key, ts, l, by); err != nil {
							return err
						}
						continue
					}
				}
				if e.opts.Backend == nil {
					continue // skips are still derived; nothing is judged
				}
				u := e.opts.Group.unit(l)
				ready := ts.plan.ready(l, ts.d)
				if !ready && e.opts.GroupGated {
					// Waiting only on gates that are in this unit's group
					// being formed: judge it in the same call.
					ready = ts.plan.readyWith(l, ts.d, func(b *rubric.Node) bool { return picked[b] == u })
				}
				if !ready {
					continue
				}
				inflight[l] = true
				picked[l] = u
				i, ok := unitGroup[u]
				if !ok {
					i = len(groups)
					unitGroup[u] = i
					groups = append(groups, nil)
				}
				groups[i] = append(groups[i], l)
			}
			for _, leaves := range groups {
				pending++
				if e.opts.Group == GroupLeaf {
					l := leaves[0]
					req := &LeafRequest{Task: it.Task, Answer: it.Answer, Tree: ts.tree, Leaf: l, ReferenceGuided: e.opts.ReferenceGuided}
					g.Go(func() error {
						d, err := e.opts.Backend.Decide(ctx, req)
						results <- done{ts: ts, leaf: l, d: d, err: err}
						return nil
					})
					continue
				}
				sort.Slice(leaves, func(i, j int) bool { return ts.plan.file[leaves[i]] < ts.plan.file[leaves[j]] })
				req := &GroupRequest{ID: groupID(key, ts.tree, leaves), Task: it.Task, Answer: it.Answer, Tree: ts.tree,
					Leaves: leaves, ReferenceGuided: e.opts.ReferenceGuided}
				gb := e.opts.Backend.(GroupBackend)
				g.Go(func() error {
					gd, err := gb.DecideGroup(ctx, req)
					if err == nil && len(gd.Leaves) != len(req.Leaves) {
						err = fmt.Errorf("backend %s returned %d decisions for %d leaves", gb.Name(), len(gd.Leaves), len(req.Leaves))
					}
					results <- done{ts: ts, group: req, gd: gd, err: err}
					return nil
				})
			}
		}
		return nil
	}
	if err := launch(); err != nil {
		g.Wait()
		return nil, err
	}
	for pending > 0 {
		r := <-results
		pending--
		for _, l := range r.leaves() {
			delete(inflight, l)
		}
		if r.err != nil {
			what := r.leaves()[0].ID
			if r.group != nil {
				what = fmt.Sprintf("[%s]", strings.Join(r.group.IDs(), " "))
			}
			e.halt(fmt.Errorf("%s %s:%s: %w", key, r.ts.tree, what, r.err))
			calls, hits := r.calls()
			e.add(func(c *judgefmt.RunCounts) { c.LLMCalls += calls - hits; c.CacheHits += hits })
			continue
		}
		if ledgerErr != nil {
			continue
		}
		var err error
		if r.group != nil {
			err = e.recordGroup(key, r.ts, r.group, r.gd)
		} else {
			err = e.record(r.ts, e.backendRecord(key, r.ts, r.leaf, r.d))
			if err == nil {
				err = e.transcript(key, r.ts, "", []*rubric.Node{r.leaf}, r.d.CallStats)
			}
		}
		if err == nil {
			// Every leaf of the call is recorded before the next ones are
			// chosen, so that a group's verdicts gate (and group) the
			// leaves after it together.
			err = launch()
		}
		if err != nil {
			ledgerErr = err
			e.halt(err)
		}
	}
	g.Wait()
	if ledgerErr != nil {
		return nil, ledgerErr
	}
	res := &ItemResult{Item: it, SQL: trees[0].d, Results: trees[1].d, Records: map[judgefmt.LeafKey]*judgefmt.Record{}}
	for _, ts := range trees {
		for _, l := range ts.plan.leaves {
			k := judgefmt.LeafKey{Task: key, Tree: ts.tree, Leaf: l.ID}
			if rec := e.ledger.Get(k); rec != nil {
				res.Records[k] = rec
			}
		}
	}
	return res, nil
}

func (e *engine) backendRecord(key string, ts *treeState, l *rubric.Node, d Decision) judgefmt.Record {
	return judgefmt.Record{Task: key, Tree: ts.tree, Leaf: l.ID, Verdict: d.Verdict.Status, Score: d.Verdict.Score,
		Source: e.opts.Backend.Source(), Kind: leafKind(ts.tree, l), Explanation: d.Explanation, ErrorKind: d.ErrorKind,
		Judge: e.judge, ReferenceGuided: e.opts.ReferenceGuided, Samples: d.Samples, Votes: d.Votes,
		Calls: d.Calls, CacheHits: d.CacheHits, Attempts: d.Attempts,
		PromptTokens: d.Usage.PromptTokens, CompletionTokens: d.Usage.CompletionTokens, CostUSD: d.CostUSD, ReplyCostUSD: d.ReplyCostUSD,
		PerCall: d.PerCall, LatencyMS: d.Latency.Milliseconds()}
}

func (e *engine) skip(key string, ts *treeState, l, by *rubric.Node) error {
	why := fmt.Sprintf("skipped: cannot change the score, %s", gateReason(l, by, ts.d, e.opts.Mode))
	rec := judgefmt.Record{Task: key, Tree: ts.tree, Leaf: l.ID, Verdict: rubric.Skipped, Source: judgefmt.SourceSkip,
		Kind: leafKind(ts.tree, l), Explanation: why, BlockedBy: by.ID, ReferenceGuided: e.opts.ReferenceGuided}
	return e.recordOrKeep(ts, rec)
}

// recordOrKeep records a decision computed again on resume (a code check,
// a skip): the ledger's record of the leaf stands when it says the same
// (the ledger does not grow at every resume), else the new record is
// appended and wins.
func (e *engine) recordOrKeep(ts *treeState, rec judgefmt.Record) error {
	old := e.ledger.Get(rec.Key())
	if old != nil && old.Source == rec.Source && old.Verdict == rec.Verdict && old.Score == rec.Score &&
		old.Explanation == rec.Explanation && old.BlockedBy == rec.BlockedBy && old.Kind == rec.Kind {
		ts.d[rec.Leaf] = rubric.Verdict{Status: old.Verdict, Score: old.Score}
		e.add(func(c *judgefmt.RunCounts) { c.Resumed++ })
		return nil
	}
	return e.record(ts, rec)
}

// gateReason says why blocker by gates l.
func gateReason(l, by *rubric.Node, d rubric.Decisions, mode rubric.Mode) string {
	what := "failed"
	if by.IsLeaf() {
		if st := d[by.ID].Status; st == rubric.Skipped {
			what = "was skipped"
		}
	}
	if by.Parent != nil && by.Parent.Sequential {
		return fmt.Sprintf("the earlier sequential requirement %q %s", by.ID, what)
	}
	return fmt.Sprintf("the critical requirement %q %s", by.ID, what)
}

func (e *engine) record(ts *treeState, rec judgefmt.Record) error {
	if err := e.ledger.Append(rec); err != nil {
		return err
	}
	e.decided(ts, []judgefmt.Record{rec})
	return nil
}

// recordGroup records every leaf of a group with one ledger write, so a
// process killed while recording leaves the group whole or (a torn last
// line) its first records only; the rest is judged again on resume.
func (e *engine) recordGroup(key string, ts *treeState, req *GroupRequest, gd GroupDecision) error {
	recs := make([]judgefmt.Record, len(req.Leaves))
	for i, l := range req.Leaves {
		recs[i] = e.backendRecord(key, ts, l, gd.Leaves[i])
	}
	groupRecords(recs, req.ID, gd)
	if err := e.ledger.Append(recs...); err != nil {
		return err
	}
	e.decided(ts, recs)
	return e.transcript(key, ts, req.ID, req.Leaves, gd.CallStats)
}

// transcript keeps a model backend's prompt and replies for a call beside
// the ledger, after its records: the verdicts never wait on it.
func (e *engine) transcript(key string, ts *treeState, group string, leaves []*rubric.Node, cs CallStats) error {
	if len(cs.Prompt) == 0 {
		return nil
	}
	ids := make([]string, len(leaves))
	for i, l := range leaves {
		ids[i] = l.ID
	}
	msgs := make([]judgefmt.Message, len(cs.Prompt))
	for i, m := range cs.Prompt {
		msgs[i] = judgefmt.Message{Role: m.Role, Content: m.Content}
	}
	return e.ledger.AppendExchange(judgefmt.Exchange{Task: key, Tree: ts.tree, Group: group, Leaves: ids, Messages: msgs, Replies: cs.Replies})
}

// decided applies recorded decisions to the tree and the counts.
func (e *engine) decided(ts *treeState, recs []judgefmt.Record) {
	var n int
	for _, rec := range recs {
		ts.d[rec.Leaf] = rubric.Verdict{Status: rec.Verdict, Score: rec.Score}
		e.add(func(c *judgefmt.RunCounts) {
			c.Recorded++
			c.LLMCalls += rec.Calls - rec.CacheHits
			c.CacheHits += rec.CacheHits
			c.HTTPAttempts += rec.Attempts
			c.PromptTokens += rec.PromptTokens
			c.CompletionTokens += rec.CompletionTokens
			c.CostUSD += rec.CostUSD
			n = c.Recorded
		})
	}
	if e.opts.Progress != nil {
		e.opts.Progress(n)
	}
}

func (e *engine) add(f func(*judgefmt.RunCounts)) {
	e.mu.Lock()
	f(&e.count)
	e.mu.Unlock()
}

// leafKind is the check kind of a leaf of either tree.
func leafKind(t judgefmt.Tree, l *rubric.Node) codecheck.LeafKind {
	if t == judgefmt.TreeSQL {
		return codecheck.KindSQL
	}
	return codecheck.KindOf(l)
}

// ErrNoBackend is the stop reason of a run without a backend that has
// leaves code could not decide.
var ErrNoBackend = errors.New("no judge backend for the leaves code cannot decide")
