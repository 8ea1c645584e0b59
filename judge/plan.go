package judge

import "github.com/clinsql/clinsql/rubric"

// plan is the judging order of one rubric tree's leaves, chosen so that
// gates are judged before the leaves they can make skippable.
//
// The order is a depth-first walk that visits, under a non-sequential
// parent, critical children before the others, and under a sequential
// parent the children in file order. A leaf's blockers are the leaves of
// the siblings of it and its ancestors that rubric.Skippable looks at
// (earlier siblings under a sequential parent; critical siblings where the
// mode honours them). A leaf is ready once every blocker that comes earlier
// in the order has a verdict: judging it any later could not make it
// skippable, so waiting longer saves nothing, and every ready leaf of a
// task can be judged at once.
//
// Critical siblings block each other; the order breaks the tie (the one
// first in the file goes first), which is what keeps the plan free of
// deadlock: the earliest undecided leaf is always ready.
type plan struct {
	leaves   []*rubric.Node                  // in judging order
	index    map[*rubric.Node]int            // in judging order
	file     map[*rubric.Node]int            // in file order
	blockers map[*rubric.Node][]*rubric.Node // earlier in the order only
}

func newPlan(root *rubric.Node, mode rubric.Mode) *plan {
	p := &plan{index: map[*rubric.Node]int{}, file: map[*rubric.Node]int{}, blockers: map[*rubric.Node][]*rubric.Node{}}
	for i, l := range root.Leaves() {
		p.file[l] = i
	}
	var visit func(n *rubric.Node)
	visit = func(n *rubric.Node) {
		if n.IsLeaf() {
			p.index[n] = len(p.leaves)
			p.leaves = append(p.leaves, n)
			return
		}
		if n.Sequential {
			for _, c := range n.Children {
				visit(c)
			}
			return
		}
		for _, c := range n.Children {
			if c.Critical {
				visit(c)
			}
		}
		for _, c := range n.Children {
			if !c.Critical {
				visit(c)
			}
		}
	}
	visit(root)
	for _, l := range p.leaves {
		seen := map[*rubric.Node]bool{}
		add := func(n *rubric.Node) {
			for _, bl := range n.Leaves() {
				if bl != l && p.index[bl] < p.index[l] && !seen[bl] {
					seen[bl] = true
					p.blockers[l] = append(p.blockers[l], bl)
				}
			}
		}
		for a := l; a.Parent != nil; a = a.Parent {
			par := a.Parent
			// A critical ancestor that fails whatever l says makes l
			// skippable: its other leaves are blockers too.
			if a != l && a.Critical && criticalApplies(par, mode) {
				add(a)
			}
			for _, b := range par.Children {
				if b == a {
					if par.Sequential {
						break
					}
					continue
				}
				if !par.Sequential && !(b.Critical && criticalApplies(par, mode)) {
					continue
				}
				add(b)
			}
		}
	}
	return p
}

// criticalApplies mirrors rubric's rule: critical flags count under every
// parent in strict mode, under non-sequential parents in reference mode.
func criticalApplies(n *rubric.Node, mode rubric.Mode) bool {
	return mode == rubric.Strict || !n.Sequential
}

// ready reports whether every earlier blocker of l has a verdict.
func (p *plan) ready(l *rubric.Node, d rubric.Decisions) bool {
	return p.readyWith(l, d, nil)
}

// readyWith reports whether every earlier blocker of l has a verdict or,
// when with is set, is one of the leaves with accepts.
func (p *plan) readyWith(l *rubric.Node, d rubric.Decisions, with func(*rubric.Node) bool) bool {
	for _, b := range p.blockers[l] {
		if d[b.ID].Status == rubric.Missing && (with == nil || !with(b)) {
			return false
		}
	}
	return true
}
