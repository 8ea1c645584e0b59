package reliability

import "fmt"

// Outcome classifies one item.
type Outcome string

// The six outcomes and their scores (+1, 0, or −1 which RS(c) turns into −c).
const (
	Correct               Outcome = "correct"                // answerable, answered, result equal: +1
	Wrong                 Outcome = "wrong"                  // answerable, answered, result different: −1
	Error                 Outcome = "error"                  // answerable, answered, the answer failed to run: −1
	AbstainedAnswerable   Outcome = "abstained_answerable"   // answerable, abstained: 0
	AnsweredUnanswerable  Outcome = "answered_unanswerable"  // unanswerable, answered (whatever the result): −1
	AbstainedUnanswerable Outcome = "abstained_unanswerable" // unanswerable, abstained: +1
)

// Score is the item's reliability_score: +1, 0 or −1.
func (o Outcome) Score() int {
	switch o {
	case Correct, AbstainedUnanswerable:
		return 1
	case AbstainedAnswerable:
		return 0
	}
	return -1
}

// Counts counts the outcomes.
type Counts struct {
	Correct               int `json:"correct"`
	Wrong                 int `json:"wrong"`
	Error                 int `json:"error"`
	AbstainedAnswerable   int `json:"abstained_answerable"`
	AnsweredUnanswerable  int `json:"answered_unanswerable"`
	AbstainedUnanswerable int `json:"abstained_unanswerable"`
}

// Add counts one outcome.
func (c *Counts) Add(o Outcome) { c.add(o) }

func (c *Counts) add(o Outcome) {
	switch o {
	case Correct:
		c.Correct++
	case Wrong:
		c.Wrong++
	case Error:
		c.Error++
	case AbstainedAnswerable:
		c.AbstainedAnswerable++
	case AnsweredUnanswerable:
		c.AnsweredUnanswerable++
	case AbstainedUnanswerable:
		c.AbstainedUnanswerable++
	default:
		panic(fmt.Sprintf("reliability: unknown outcome %q", o))
	}
}

// Penalized returns the number of items scored −1 (wrong, error, answered
// unanswerable).
func (c Counts) Penalized() int { return c.Wrong + c.Error + c.AnsweredUnanswerable }

// Scores are the headline numbers of a run: RS(c) × 100 for c = 0, 5, 10 and
// N (the number of items), as the official scores.json has them
// (accuracy0, accuracy5, accuracy10, accuracyN), with the outcome counts.
type Scores struct {
	N    int     `json:"n"`
	RS0  float64 `json:"rs0"`
	RS5  float64 `json:"rs5"`
	RS10 float64 `json:"rs10"`
	RSN  float64 `json:"rsN"`
	Counts
}

// Summarize computes Scores from the items' outcomes. With no items every
// RS is 0 (Python's numpy would give nan).
func Summarize(outcomes []Outcome) Scores {
	s := Scores{N: len(outcomes)}
	for _, o := range outcomes {
		s.Counts.add(o)
	}
	s.RS0 = RS(s.Counts, 0)
	s.RS5 = RS(s.Counts, 5)
	s.RS10 = RS(s.Counts, 10)
	s.RSN = RS(s.Counts, float64(s.N))
	return s
}

// RS returns the reliability score with penalty c, × 100: the mean over the
// items of +1 (correct or abstained unanswerable), 0 (abstained answerable)
// and −c (wrong, error, answered unanswerable). It reproduces the official
// penalize() bit for bit: numpy sums the integer scores exactly in float64,
// divides by the count, and the scorer multiplies by 100.
func RS(c Counts, penalty float64) float64 {
	n := c.Correct + c.Wrong + c.Error + c.AbstainedAnswerable + c.AnsweredUnanswerable + c.AbstainedUnanswerable
	if n == 0 {
		return 0
	}
	sum := float64(c.Correct+c.AbstainedUnanswerable) - penalty*float64(c.Penalized())
	return sum / float64(n) * 100
}
