package rubric

// Skippable reports whether judging leaf can no longer change the root's
// score, given the decisions so far. It holds when some ancestor A of leaf is
// critical where the mode honours that, and certainly below 1 whatever the
// undecided leaves turn out to be (its parent's score is then fixed without
// leaf), or when some ancestor-or-self A of leaf has a sibling B whose score
// is certainly below 1 whatever the undecided leaves turn out to be, and
// either
//
//   - their parent is sequential and B comes before A (the mean stops at B or
//     earlier), or
//   - B is critical and the mode honours critical flags under that parent
//     (the parent scores 0 whatever A scores).
//
// Scores computed with skipped leaves are therefore identical to scores
// computed with every leaf judged. The second result names the blocking
// sibling, for the record.
func Skippable(leaf *Node, d Decisions, mode Mode) (bool, *Node) {
	if mode == Reference {
		// Recorded reference scores are not clamped: a value above 1 could
		// lift a mean back to 1. Skip nothing then.
		for _, v := range d {
			if v.Status != Missing && (v.Score < 0 || v.Score > 1) {
				return false, nil
			}
		}
	}
	e := evaluator{mode: mode, d: d}
	memo := map[*Node]bool{}
	for a := leaf; a.Parent != nil; a = a.Parent {
		p := a.Parent
		// A critical ancestor that stays below 1 even if every undecided
		// leaf under it passes decides its parent alone: 0 under a
		// non-sequential parent; under a sequential one (strict mode)
		// either 0 or a mean that stops before it.
		if a != leaf && a.Critical && e.criticalApplies(p) && !e.canBeOne(a, memo) {
			return true, a
		}
		for _, b := range p.Children {
			if b == a {
				if p.Sequential {
					// Later siblings never gate earlier ones.
					break
				}
				continue
			}
			// Under a sequential parent only earlier siblings reach here.
			gates := p.Sequential || (b.Critical && e.criticalApplies(p))
			if gates && !e.canBeOne(b, memo) {
				return true, b
			}
		}
	}
	return false, nil
}

// canBeOne reports whether n could still score 1 (and so not gate its
// siblings) for some outcome of its undecided leaves. Where weights of 0 make
// the answer depend on detail it says true, so that skipping never changes a
// score.
func (e *evaluator) canBeOne(n *Node, memo map[*Node]bool) bool {
	if v, ok := memo[n]; ok {
		return v
	}
	r := true
	if n.IsLeaf() {
		v := e.d[n.ID]
		switch {
		case v.Status == Missing || v.Status == Invalid || v.Status == Skipped:
			// Undecided: an invalid verdict may yet be judged again.
		case e.mode == Reference:
			r = v.Score >= 1
		default:
			r = v.Status == Pass
		}
		memo[n] = r
		return r
	}
	crit := e.criticalApplies(n)
	for _, c := range n.Children {
		if c.Weight == 0 && (n.Sequential || !(crit && c.Critical)) {
			// A zero-weight child counts in a sequential gate but not in
			// the mean; stay conservative.
			if n.Sequential {
				memo[n] = true
				return true
			}
			continue
		}
		if !e.canBeOne(c, memo) {
			r = false
		}
	}
	memo[n] = r
	return r
}
