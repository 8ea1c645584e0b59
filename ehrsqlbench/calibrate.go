package ehrsqlbench

import (
	"context"
	"fmt"
	"slices"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/reliability"
)

// DefaultPenalty is the c whose RS(c) calibration maximises: RS(10), the
// task's main metric.
const DefaultPenalty = 10

// Calibration is a model's thresholds, chosen on the calibration split and
// applied unchanged to every other split.
type Calibration struct {
	Model   string  `json:"model"`
	Split   string  `json:"split"`   // the calibration split
	Items   int     `json:"items"`   // its items used
	Penalty float64 `json:"penalty"` // the c of the RS(c) maximised
	// Strategies by name ("model+logprob").
	Strategies map[string]*Calibrated `json:"strategies"`
}

// Calibrated is one strategy's calibration.
type Calibrated struct {
	Thresholds Thresholds `json:"thresholds"`
	// Scores on the calibration split at the chosen thresholds.
	Scores reliability.Scores `json:"scores"`
	// Curve is RS(Penalty) and coverage against each threshold (the other
	// held at its chosen value): the risk-coverage chart's data.
	Curve []CurvePoint `json:"curve,omitempty"`
}

// CurvePoint is one threshold's result on the calibration split.
type CurvePoint struct {
	Step      Step    `json:"step"`
	Threshold float64 `json:"threshold"`
	RS        float64 `json:"rs"`
	Coverage  float64 `json:"coverage"` // share of items answered
}

// calItem is what calibration needs of one item: its features under no
// threshold, and its outcome when answered.
type calItem struct {
	base       Decision
	answered   reliability.Outcome // the scorer's outcome of base.Prediction
	answerable bool
}

// Calibrate chooses, for each of m's strategies with a threshold, the
// thresholds that maximise RS(penalty) on the calibration split, ties going
// to the larger coverage and then the lower threshold. It sees only the
// calibration split's records and labels: nothing of the split to be
// scored. The items' answers are scored by the official scoring
// (reliability.Score on db).
func Calibrate(ctx context.Context, db reliability.Querier, split *ehrsql.Split, ids []string, m Model,
	records map[string]map[string]*Record, penalty float64) (*Calibration, error) {
	cal := &Calibration{Model: m.Name, Split: split.Name, Items: len(ids), Penalty: penalty, Strategies: map[string]*Calibrated{}}
	var gold map[string]reliability.Answer
	for _, st := range m.StrategyList() {
		if !st.Calibrated() {
			continue
		}
		decs, err := decideAll(st, m, ids, records, Thresholds{})
		if err != nil {
			return nil, fmt.Errorf("calibration split %s: %w", split.Name, err)
		}
		if gold == nil {
			if gold, err = GoldAnswers(ctx, db, split, ids); err != nil {
				return nil, err
			}
		}
		rep := score(gold, decs)
		items := make([]calItem, len(ids))
		for i, d := range decs {
			r := rep.Items[i]
			items[i] = calItem{base: d, answered: r.Outcome, answerable: r.Gold.Kind != reliability.KindAbstain}
		}
		cal.Strategies[st.String()] = search(st, items, m.Samples(), penalty)
	}
	return cal, nil
}

// search tries every useful threshold pair.
func search(st Strategy, items []calItem, k int, penalty float64) *Calibrated {
	var lps, agrs []float64
	if st.Has(StepLogprob) {
		for _, it := range items {
			if !it.base.Abstained && it.base.MeanLogprob != nil {
				lps = append(lps, *it.base.MeanLogprob)
			}
		}
		slices.Sort(lps)
		lps = slices.Compact(lps)
	}
	if st.Has(StepConsistency) {
		for i := 1; i <= k; i++ {
			agrs = append(agrs, float64(i)/float64(k))
		}
	}
	opt := func(xs []float64) []*float64 {
		if len(xs) == 0 {
			return []*float64{nil}
		}
		out := make([]*float64, len(xs))
		for i := range xs {
			out[i] = &xs[i]
		}
		return out
	}
	var best Thresholds
	bestRS, bestCov := 0.0, -1.0
	for _, a := range opt(agrs) {
		for _, l := range opt(lps) {
			th := Thresholds{Logprob: l, Agreement: a}
			rs, cov := evaluate(items, th, penalty)
			if bestCov < 0 || rs > bestRS || (rs == bestRS && cov > bestCov) {
				best, bestRS, bestCov = th, rs, cov
			}
		}
	}
	c := &Calibrated{Thresholds: best}
	outcomes := make([]reliability.Outcome, len(items))
	for i, it := range items {
		outcomes[i] = it.outcome(best)
	}
	c.Scores = reliability.Summarize(outcomes)
	for _, l := range lps {
		th := best
		th.Logprob = &l
		rs, cov := evaluate(items, th, penalty)
		c.Curve = append(c.Curve, CurvePoint{Step: StepLogprob, Threshold: l, RS: rs, Coverage: cov})
	}
	for _, a := range agrs {
		th := best
		th.Agreement = &a
		rs, cov := evaluate(items, th, penalty)
		c.Curve = append(c.Curve, CurvePoint{Step: StepConsistency, Threshold: a, RS: rs, Coverage: cov})
	}
	return c
}

// abstains reports whether the thresholds make the item abstain.
func (it calItem) abstains(th Thresholds) bool {
	d := it.base
	switch {
	case d.Abstained:
		return true
	case th.Logprob != nil && (d.MeanLogprob == nil || *d.MeanLogprob < *th.Logprob):
		return true
	case th.Agreement != nil && d.Agreement != nil && *d.Agreement < *th.Agreement:
		return true
	}
	return false
}

func (it calItem) outcome(th Thresholds) reliability.Outcome {
	if !it.abstains(th) {
		return it.answered
	}
	if it.answerable {
		return reliability.AbstainedAnswerable
	}
	return reliability.AbstainedUnanswerable
}

// evaluate is RS(penalty) x 100 and the coverage of thresholds th.
func evaluate(items []calItem, th Thresholds, penalty float64) (rs, coverage float64) {
	var c reliability.Counts
	answered := 0
	for _, it := range items {
		if !it.abstains(th) {
			answered++
		}
		c.Add(it.outcome(th))
	}
	if len(items) == 0 {
		return 0, 0
	}
	return reliability.RS(c, penalty), float64(answered) / float64(len(items))
}
