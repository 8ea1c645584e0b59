package rubric

import (
	"fmt"
	"math"
	"strings"
)

// Mode selects the aggregation rules.
type Mode string

const (
	// Reference reproduces the published ClinSQL scorer.
	Reference Mode = "reference"
	// Strict honours critical flags under every parent and keeps invalid
	// verdicts apart from passes and failures.
	Strict Mode = "strict"
)

// ParseMode accepts "reference" and "strict".
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Reference, Strict:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q (want reference or strict)", s)
}

// Status is a leaf verdict's kind.
type Status uint8

const (
	// Missing: no decision was recorded for the leaf.
	Missing Status = iota
	Pass
	Fail
	// Invalid: the judge failed (API error, unreadable reply). Never a pass.
	Invalid
	// Skipped: not judged because it could not change the score.
	Skipped
)

var statusNames = [...]string{"missing", "pass", "fail", "invalid", "skipped"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// MarshalText encodes the status by name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a status name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict status %q", b)
}

// Verdict is the decision on one leaf.
type Verdict struct {
	Status Status
	// Score is the recorded score, used as-is in Reference mode (the
	// reference does not clamp). Strict mode uses Status only.
	Score float64
}

// Decisions maps leaf ids to verdicts.
type Decisions map[string]Verdict

// Score is a node's score with its explanation.
type Score struct {
	Node *Node
	// Value is the score. In Strict mode leaves without a valid verdict
	// count as failures here.
	Value float64
	// Lo and Hi bound Value over every outcome of the leaves that have no
	// valid verdict and could still change the root's score (Strict mode);
	// both equal Value when there are none.
	Lo, Hi float64
	// Invalid counts the leaves under this node that have no valid verdict
	// (invalid, missing, or skipped) and could still change the root's score.
	// A task whose root has Invalid > 0 has no definite score.
	Invalid int
	// Counted reports whether this node's score entered its parent's. False
	// after a failed sequential sibling, or beside a failed critical sibling.
	Counted bool
	// Verdict is the leaf's decision (leaves only).
	Verdict Verdict
	Reason  string
	// Children are in file order.
	Children []*Score
}

// maxEnumerated bounds the exact Lo/Hi computation: beyond 2^maxEnumerated
// outcomes of the open leaves, the bounds of the nodes above them widen to
// [0, 1] rather than spending seconds on one task.
const maxEnumerated = 12

// Evaluate scores the tree under root from the leaf decisions.
func Evaluate(root *Node, d Decisions, mode Mode) *Score {
	e := evaluator{mode: mode, d: d}
	var open []*Node
	if mode == Strict {
		e.open = map[*Node]bool{}
		for _, l := range root.Leaves() {
			if st := d[l.ID].Status; st != Pass && st != Fail {
				if skip, _ := Skippable(l, d, mode); !skip {
					e.open[l] = true
					open = append(open, l)
				}
			}
		}
	}
	s := e.eval(root, nil)
	s.Counted = true
	s.initBounds()
	switch {
	case len(open) == 0:
	case len(open) > maxEnumerated:
		s.widen()
	default:
		over := make(map[*Node]bool, len(open))
		for mask := 1; mask < 1<<len(open); mask++ {
			for i, n := range open {
				over[n] = mask&(1<<i) != 0
			}
			s.merge(e.eval(root, over))
		}
	}
	return s
}

func (s *Score) initBounds() {
	s.Lo, s.Hi = s.Value, s.Value
	for _, c := range s.Children {
		c.initBounds()
	}
}

// merge widens s's bounds, node by node, to include t, the same tree scored
// under another outcome of the open leaves.
func (s *Score) merge(t *Score) {
	s.Lo, s.Hi = math.Min(s.Lo, t.Value), math.Max(s.Hi, t.Value)
	for i, c := range s.Children {
		c.merge(t.Children[i])
	}
}

// widen sets [0, 1] bounds on every node holding an open leaf.
func (s *Score) widen() {
	if s.Invalid > 0 {
		s.Lo, s.Hi = 0, 1
	}
	for _, c := range s.Children {
		c.widen()
	}
}

type evaluator struct {
	mode Mode
	d    Decisions
	// open holds the leaves without a valid verdict that could still change
	// the root's score (Strict mode).
	open map[*Node]bool
}

// eval computes n's score. over, when non-nil, fixes the outcome of open
// leaves (true = pass) for the bounds enumeration.
func (e *evaluator) eval(n *Node, over map[*Node]bool) *Score {
	s := &Score{Node: n}
	if n.IsLeaf() {
		e.leaf(s, over)
		return s
	}
	for _, c := range n.Children {
		c := e.eval(c, over)
		s.Children = append(s.Children, c)
		s.Invalid += c.Invalid
	}
	if n.Sequential {
		e.sequential(s)
	} else {
		e.parallel(s)
	}
	return s
}

func (e *evaluator) leaf(s *Score, over map[*Node]bool) {
	v, ok := e.d[s.Node.ID]
	if !ok {
		v.Status = Missing
	}
	s.Verdict = v
	if e.mode == Reference {
		// The reference scores a leaf without a decision 0 and uses any
		// recorded value unclamped, whatever went wrong while judging.
		if v.Status == Missing {
			s.Value, s.Reason = 0, "no decision recorded: 0"
			return
		}
		s.Value, s.Reason = v.Score, fmt.Sprintf("recorded %s", trimFloat(v.Score))
		return
	}
	switch v.Status {
	case Pass:
		s.Value, s.Reason = 1, "pass"
		return
	case Fail:
		s.Value, s.Reason = 0, "fail"
		return
	}
	what := map[Status]string{Missing: "no decision recorded", Invalid: "invalid verdict", Skipped: "skipped"}[v.Status]
	if !e.open[s.Node] {
		s.Reason = what + ": cannot change the score"
		return
	}
	s.Invalid = 1
	s.Reason = what + ": counted as a failure"
	if over[s.Node] {
		s.Value = 1
	}
}

// criticalApplies reports whether critical flags count under parent n.
func (e *evaluator) criticalApplies(n *Node) bool {
	return e.mode == Strict || !n.Sequential
}

func (e *evaluator) sequential(s *Score) {
	k := len(s.Children) - 1
	for i, c := range s.Children {
		if c.Value < 1 {
			k = i
			break
		}
	}
	var sum, wsum float64
	for i, c := range s.Children {
		if i > k {
			break
		}
		c.Counted = true
		sum += float64(c.Node.Weight) * c.Value
		wsum += float64(c.Node.Weight)
	}
	first := s.Children[k]
	if e.criticalApplies(s.Node) && first.Node.Critical && first.Value < 1 {
		s.Value = 0
		s.Reason = fmt.Sprintf("critical child %s scored %s under a sequential parent: 0", first.Node.ID, trimFloat(first.Value))
		return
	}
	if wsum == 0 {
		s.Value = 0
	} else {
		s.Value = sum / wsum
	}
	switch {
	case first.Value >= 1:
		s.Reason = fmt.Sprintf("sequential, all %d children reached: weighted mean %s", len(s.Children), trimFloat(s.Value))
	default:
		s.Reason = fmt.Sprintf("sequential, stopped at %s (%s): weighted mean of the first %d of %d children = %s",
			first.Node.ID, trimFloat(first.Value), k+1, len(s.Children), trimFloat(s.Value))
	}
	if wsum == 0 {
		s.Reason += " (counted weights sum to 0)"
	}
}

func (e *evaluator) parallel(s *Score) {
	crit := e.criticalApplies(s.Node)
	// A critical child that failed on valid verdicts alone decides the
	// score by itself; one that failed only for want of a verdict decides
	// it when no such definite failure exists.
	var definite, open []*Score
	for _, c := range s.Children {
		if crit && c.Node.Critical && c.Value < 1 {
			if c.Invalid == 0 {
				definite = append(definite, c)
			} else {
				open = append(open, c)
			}
		}
	}
	if failed := append(definite, open...); len(failed) > 0 {
		if len(definite) > 0 {
			failed = definite
		}
		var ids []string
		for _, c := range failed {
			c.Counted = true
			ids = append(ids, c.Node.ID)
		}
		s.Value = 0
		s.Reason = fmt.Sprintf("critical child %s failed: 0", strings.Join(ids, ", "))
		return
	}
	var sum, wsum float64
	n := 0
	for _, c := range s.Children {
		c.Counted = true
		if crit && c.Node.Critical {
			continue // passed criticals gate, they never enter the mean
		}
		n++
		sum += float64(c.Node.Weight) * c.Value
		wsum += float64(c.Node.Weight)
	}
	switch {
	case n == 0:
		s.Value, s.Reason = 1, "every child is critical and passed: 1"
	case wsum == 0:
		s.Value, s.Reason = 1, "non-critical weights sum to 0: 1"
	default:
		s.Value = sum / wsum
		s.Reason = fmt.Sprintf("weighted mean of %d non-critical children = %s", n, trimFloat(s.Value))
	}
}

func trimFloat(f float64) string {
	return fmt.Sprintf("%.4g", f)
}
