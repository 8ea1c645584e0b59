package ehrsqlbench

import (
	"context"
	"fmt"
	"slices"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/reports"
)

// LoadRecords reads a model's records of a split; missing lists the ids
// without one (pending items).
func (l Layout) LoadRecords(model, split string, ids []string) (map[string]*Record, []string, error) {
	out := map[string]*Record{}
	var missing []string
	for _, id := range ids {
		r, ok, err := l.ReadRecord(model, split, id)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			missing = append(missing, id)
			continue
		}
		out[id] = r
	}
	return out, missing, nil
}

// decideAll decides every item; records holds every model's records of
// the split (the ensemble reads the other models').
func decideAll(st Strategy, m Model, ids []string, records map[string]map[string]*Record, th Thresholds) ([]Decision, error) {
	own := records[m.Name]
	out := make([]Decision, len(ids))
	for i, id := range ids {
		rec := own[id]
		if rec == nil || len(rec.Samples) == 0 {
			return nil, fmt.Errorf("model %q: item %q has no record (generation pending)", m.Name, id)
		}
		var members []*Record
		if st.Has(StepEnsemble) {
			for _, o := range m.Ensemble.Models {
				r := records[o][id]
				if r == nil {
					return nil, fmt.Errorf("model %q: ensemble member %q has no record of item %q", m.Name, o, id)
				}
				members = append(members, r)
			}
		}
		out[i] = Decide(st, rec, th, members, m.Quorum())
	}
	return out, nil
}

// GoldAnswers executes the gold labels of the ids of split once, with the
// official post-processing and normalisation (reliability.Score).
func GoldAnswers(ctx context.Context, db reliability.Querier, split *ehrsql.Split, ids []string) (map[string]reliability.Answer, error) {
	items := make([]reliability.Item, len(ids))
	for i, id := range ids {
		gold, ok := split.Labels.Values[id]
		if !ok {
			return nil, fmt.Errorf("%s: no label for %q", split.Labels.Path, id)
		}
		items[i] = reliability.Item{ID: id, Gold: gold, Pred: ehrsql.Null}
	}
	rep, err := reliability.Score(ctx, db, items, reliability.Options{})
	if err != nil {
		return nil, fmt.Errorf("scoring %s: %w", split.Dir, err)
	}
	out := make(map[string]reliability.Answer, len(ids))
	for _, r := range rep.Items {
		out[r.ID] = r.Gold
	}
	return out, nil
}

// score is the official per-item scoring of decisions whose answers were
// recorded at generation: the same post-processing, execution and
// normalisation as reliability.Score, without running every query again
// (clinsql ehrsql score on prediction.json gives the same figures).
func score(gold map[string]reliability.Answer, decs []Decision) *reliability.Report {
	rep := &reliability.Report{Items: make([]reliability.ItemResult, len(decs))}
	outcomes := make([]reliability.Outcome, len(decs))
	for i, d := range decs {
		o := reliability.OutcomeOf(gold[d.ID], d.Answer)
		outcomes[i] = o
		rep.Items[i] = reliability.ItemResult{ID: d.ID, Outcome: o, Score: o.Score(), Gold: gold[d.ID], Pred: d.Answer}
	}
	rep.Scores = reliability.Summarize(outcomes)
	return rep
}

// Result is one model x strategy on the evaluation split.
type Result struct {
	Model      string     `json:"model"`
	Strategy   string     `json:"strategy"`
	Split      string     `json:"split"`
	Thresholds Thresholds `json:"thresholds"`
	// CalibrationSplit is where the thresholds were chosen ("" when the
	// strategy has none).
	CalibrationSplit string             `json:"calibration_split,omitempty"`
	Coverage         float64            `json:"coverage"`
	Scores           reliability.Scores `json:"scores"`
	// Intervals are 95% percentile bootstrap intervals over items, x 100:
	// rs0, rs5, rs10, rsN.
	Intervals map[string][2]float64 `json:"intervals"`
	// Abstentions counts the items each step abstained on.
	Abstentions map[Step]int `json:"abstentions"`
	// Curve is the risk-coverage curve on this split of a strategy with a
	// threshold: the official outcome counts at every threshold of each
	// calibrated step (the other held at its chosen value). It describes
	// the thresholds' trade-off where they are applied; it chooses
	// nothing (the thresholds come from the calibration split alone).
	Curve []EvalPoint `json:"curve,omitempty"`
}

// EvalPoint is one threshold's outcome on the evaluation split: coverage
// is Answered / Counts' total, risk the penalised share of the answered,
// RS(c) reliability.RS(Counts, c).
type EvalPoint struct {
	Step      Step               `json:"step"`
	Threshold float64            `json:"threshold"`
	Answered  int                `json:"answered"`
	Counts    reliability.Counts `json:"counts"`
}

// Evaluate applies each of m's strategies to the split, with the
// calibration's thresholds unchanged, writes prediction.json and
// decisions.json, and scores them (the split has labels). cal may be nil
// only when no strategy needs thresholds.
func Evaluate(ctx context.Context, db reliability.Querier, l Layout, split *ehrsql.Split, ids []string, m Model,
	records map[string]map[string]*Record, cal *Calibration, bs reports.Bootstrap) ([]*Result, error) {
	var out []*Result
	gold, err := GoldAnswers(ctx, db, split, ids)
	if err != nil {
		return nil, err
	}
	for _, st := range m.StrategyList() {
		name := st.String()
		res := &Result{Model: m.Name, Strategy: name, Split: split.Name, Abstentions: map[Step]int{}}
		if st.Calibrated() {
			if cal == nil || cal.Strategies[name] == nil {
				return nil, fmt.Errorf("model %q, strategy %s: no calibration", m.Name, name)
			}
			if cal.Split == split.Name {
				return nil, fmt.Errorf("model %q, strategy %s: thresholds were calibrated on %s, the split being scored", m.Name, name, split.Name)
			}
			res.Thresholds, res.CalibrationSplit = cal.Strategies[name].Thresholds, cal.Split
		}
		decs, err := decideAll(st, m, ids, records, res.Thresholds)
		if err != nil {
			return nil, err
		}
		pred := map[string]string{}
		answered := 0
		for _, d := range decs {
			pred[d.ID] = d.Prediction
			if d.Abstained {
				res.Abstentions[d.Step]++
			} else {
				answered++
			}
		}
		if err := l.WritePrediction(m.Name, split.Name, name, ids, pred); err != nil {
			return nil, err
		}
		rep := score(gold, decs)
		// decisions.json says what each prediction was scored, beside the
		// question and the gold label it was scored against.
		for i := range decs {
			o := rep.Items[i].Outcome
			sc := o.Score()
			decs[i].Outcome, decs[i].Score = o, &sc
			decs[i].Gold = split.Labels.Values[decs[i].ID]
			if r := records[m.Name][decs[i].ID]; r != nil {
				decs[i].Question = r.Question
			}
		}
		if err := writeJSON(l.Decisions(m.Name, split.Name, name), decs); err != nil {
			return nil, err
		}
		if st.Calibrated() {
			items, err := baseItems(st, m, ids, records, gold)
			if err != nil {
				return nil, err
			}
			lps, agrs := candidates(st, items, m.Samples())
			// The chosen thresholds are points of the curve too: they
			// come from the calibration split, and need not be values
			// this split has.
			lps, agrs = withValue(lps, res.Thresholds.Logprob), withValue(agrs, res.Thresholds.Agreement)
			for _, p := range sweep(items, res.Thresholds, lps, agrs) {
				res.Curve = append(res.Curve, EvalPoint{Step: p.step, Threshold: p.threshold, Answered: p.answered, Counts: p.counts})
			}
		}
		res.Scores = rep.Scores
		if len(ids) > 0 {
			res.Coverage = float64(answered) / float64(len(ids))
		}
		res.Intervals = intervals(bs, m.Name+"/"+name+"/"+split.Name, rep)
		out = append(out, res)
	}
	return out, nil
}

// intervals bootstraps RS(0), RS(5), RS(10), RS(N) over the items.
func intervals(bs reports.Bootstrap, label string, rep *reliability.Report) map[string][2]float64 {
	n := float64(len(rep.Items))
	if n == 0 {
		return nil
	}
	names := []string{"rs0", "rs5", "rs10", "rsN"}
	pens := []float64{0, 5, 10, n}
	cols := make([][]float64, len(pens))
	for j, c := range pens {
		cols[j] = make([]float64, len(rep.Items))
		for i, it := range rep.Items {
			s := float64(it.Outcome.Score())
			if s < 0 {
				s = -c
			}
			cols[j][i] = s
		}
	}
	out := map[string][2]float64{}
	for j, iv := range bs.Means(label, cols...) {
		out[names[j]] = [2]float64{100 * iv.Lo, 100 * iv.Hi}
	}
	return out
}

// withValue adds *v to the sorted xs (nil: xs as it is).
func withValue(xs []float64, v *float64) []float64 {
	if v == nil {
		return xs
	}
	xs = append(xs, *v)
	slices.Sort(xs)
	return slices.Compact(xs)
}
