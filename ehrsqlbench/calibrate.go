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
		if gold == nil {
			var err error
			if gold, err = GoldAnswers(ctx, db, split, ids); err != nil {
				return nil, err
			}
		}
		items, err := baseItems(st, m, ids, records, gold)
		if err != nil {
			return nil, fmt.Errorf("calibration split %s: %w", split.Name, err)
		}
		cal.Strategies[st.String()] = search(st, items, m.Samples(), penalty)
	}
	return cal, nil
}

// candidates are the thresholds worth trying for each of st's calibrated
// steps on items: every distinct mean log-probability of an answer, and
// every share of k samples.
func candidates(st Strategy, items []calItem, k int) (lps, agrs []float64) {
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
	return lps, agrs
}

// sweepPoint is the outcome of items under one threshold of one step,
// the strategy's other threshold held at its chosen value.
type sweepPoint struct {
	step      Step
	threshold float64
	counts    reliability.Counts
	answered  int
}

// sweep moves each calibrated step's threshold over its candidates, the
// other held at held's value.
func sweep(items []calItem, held Thresholds, lps, agrs []float64) []sweepPoint {
	var out []sweepPoint
	for _, l := range lps {
		th := held
		th.Logprob = &l
		c, n := tally(items, th)
		out = append(out, sweepPoint{StepLogprob, l, c, n})
	}
	for _, a := range agrs {
		th := held
		th.Agreement = &a
		c, n := tally(items, th)
		out = append(out, sweepPoint{StepConsistency, a, c, n})
	}
	return out
}

// baseItems decides every item under no threshold and scores the
// answers: what a threshold sweep needs of each item.
func baseItems(st Strategy, m Model, ids []string, records map[string]map[string]*Record, gold map[string]reliability.Answer) ([]calItem, error) {
	decs, err := decideAll(st, m, ids, records, Thresholds{})
	if err != nil {
		return nil, err
	}
	rep := score(gold, decs)
	items := make([]calItem, len(ids))
	for i, d := range decs {
		r := rep.Items[i]
		items[i] = calItem{base: d, answered: r.Outcome, answerable: r.Gold.Kind != reliability.KindAbstain}
	}
	return items, nil
}

// search tries every useful threshold pair.
func search(st Strategy, items []calItem, k int, penalty float64) *Calibrated {
	lps, agrs := candidates(st, items, k)
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
	for _, p := range sweep(items, best, lps, agrs) {
		c.Curve = append(c.Curve, CurvePoint{Step: p.step, Threshold: p.threshold, RS: reliability.RS(p.counts, penalty), Coverage: share(p.answered, len(items))})
	}
	return c
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
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
	if len(items) == 0 {
		return 0, 0
	}
	c, answered := tally(items, th)
	return reliability.RS(c, penalty), share(answered, len(items))
}

// tally counts the items' outcomes under thresholds th, and those
// answered.
func tally(items []calItem, th Thresholds) (c reliability.Counts, answered int) {
	for _, it := range items {
		if !it.abstains(th) {
			answered++
		}
		c.Add(it.outcome(th))
	}
	return c, answered
}
