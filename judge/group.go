package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

// GroupMode says which leaves one backend call decides (see the package
// documentation, "Grouped judging").
type GroupMode string

const (
	// GroupLeaf: one call per leaf (the zero value of Options.Group).
	GroupLeaf GroupMode = "leaf"
	// GroupCategory: one call for the leaves under the same top-level
	// category of a tree that are ready at the same moment.
	GroupCategory GroupMode = "category"
	// GroupTree: one call for the leaves of a tree that are ready at the
	// same moment.
	GroupTree GroupMode = "tree"
)

// DefaultGroup is clinsql judge's grouping: the fewest calls that waste no
// verdict (see the package documentation for the measurements behind it).
const DefaultGroup = GroupTree

// GroupModes lists the modes, finest first.
var GroupModes = []GroupMode{GroupLeaf, GroupCategory, GroupTree}

// ParseGroupMode reads "leaf", "category" or "tree"; "" is GroupLeaf.
func ParseGroupMode(s string) (GroupMode, error) {
	switch m := GroupMode(s); m {
	case "":
		return GroupLeaf, nil
	case GroupLeaf, GroupCategory, GroupTree:
		return m, nil
	}
	return "", fmt.Errorf("grouping %q: want leaf, category or tree", s)
}

// orLeaf is m with the zero value read as GroupLeaf.
func (m GroupMode) orLeaf() GroupMode {
	if m == "" {
		return GroupLeaf
	}
	return m
}

// describe names a grouping: "tree", "tree+gated".
func (m GroupMode) describe(gated bool) string {
	if gated {
		return string(m.orLeaf()) + "+gated"
	}
	return string(m.orLeaf())
}

// unit is the node whose leaves may share a call under mode m: the root
// for GroupTree, the top-level category (the root's child on the way to
// the leaf, or the leaf itself when it hangs from the root) for
// GroupCategory, the leaf itself for GroupLeaf.
func (m GroupMode) unit(l *rubric.Node) *rubric.Node {
	switch m {
	case GroupTree:
		for l.Parent != nil {
			l = l.Parent
		}
		return l
	case GroupCategory:
		for l.Parent != nil && l.Parent.Parent != nil {
			l = l.Parent
		}
		return l
	}
	return l
}

// GroupRequest is what a backend needs to decide several leaves of one
// task's tree in one call.
type GroupRequest struct {
	// ID identifies the group in the ledger (Record.Group).
	ID     string
	Task   *datasets.Task
	Answer *codecheck.Answer
	Tree   judgefmt.Tree
	// Leaves are in file order; their ids are distinct (rubric.Parse
	// rejects duplicate ids within a tree).
	Leaves []*rubric.Node
	// ReferenceGuided adds the gold SQL and gold result to an LLM prompt.
	ReferenceGuided bool
}

// IDs are the leaves' ids, in order.
func (r *GroupRequest) IDs() []string {
	ids := make([]string, len(r.Leaves))
	for i, l := range r.Leaves {
		ids[i] = l.ID
	}
	return ids
}

// Tag labels the request in logs: "validation/.../001 sql:[a b c]".
func (r *GroupRequest) Tag() string {
	return r.Task.Key.String() + " " + string(r.Tree) + ":[" + clipRunes(strings.Join(r.IDs(), " "), 200) + "]"
}

// groupID names a group: a hash of the task, the tree and the leaf ids, so
// that the same group gets the same id in every run. Only a group judged
// again with RetryInvalid shares its id with an earlier one; its records
// then supersede the earlier ones, leaf for leaf.
func groupID(task string, t judgefmt.Tree, leaves []*rubric.Node) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s", task, t)
	for _, l := range leaves {
		fmt.Fprintf(h, "\x00%s", l.ID)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// GroupDecision is a backend's decision on a group: a Decision per leaf
// and what the call(s) cost.
type GroupDecision struct {
	// Leaves holds one decision per requested leaf, in request order. Their
	// own call and usage fields are zero: the group's are below.
	Leaves []Decision
	// CallStats counts the group's calls (k samples of the group prompt
	// at most).
	CallStats
}

// GroupBackend is a Backend that can decide several leaves in one call.
type GroupBackend interface {
	Backend
	// DecideGroup returns a decision for every leaf of the request. As
	// with Decide, a leaf the backend failed to decide is an Invalid
	// decision, and an error means the run must stop with every leaf of
	// the group undecided.
	DecideGroup(ctx context.Context, req *GroupRequest) (GroupDecision, error)
}

// share is the i-th of n shares of total: total/n, the remainder going one
// each to the first shares, so the shares add up to total.
func share(total, n, i int) int {
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// groupRecords turns a group's decision into one record per leaf, sharing
// the call's figures: calls, cache hits, attempts and per-call usage go to
// the first leaf (the group's lead, written first); prompt and completion
// tokens are split evenly, the remainder one token each to the first
// leaves; dollars are split evenly, the rounding remainder to the lead. So
// sums over records (per task, per run, in reports) equal what the calls
// consumed, and summing the records of one group id rebuilds its call.
// Every leaf carries the group's latency: each waited for the whole call.
func groupRecords(recs []judgefmt.Record, id string, gd GroupDecision) {
	n := len(recs)
	each := gd.CostUSD / float64(n)
	bought := gd.ReplyCostUSD / float64(n)
	for i := range recs {
		r := &recs[i]
		r.Group, r.GroupSize = id, n
		r.PromptTokens = share(gd.Usage.PromptTokens, n, i)
		r.CompletionTokens = share(gd.Usage.CompletionTokens, n, i)
		r.CostUSD, r.ReplyCostUSD = each, bought
		r.LatencyMS = gd.Latency.Milliseconds()
		if i == 0 {
			r.Calls, r.CacheHits, r.Attempts, r.PerCall = gd.Calls, gd.CacheHits, gd.Attempts, gd.PerCall
			r.CostUSD = gd.CostUSD - each*float64(n-1)
			r.ReplyCostUSD = gd.ReplyCostUSD - bought*float64(n-1)
		}
	}
}
