package reports

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/clinsql/clinsql/reliability"
)

// ehrsqlItem is a fixture question: whether it is answerable, the model's
// confidence in its answer, and whether that answer is right.
type ehrsqlItem struct {
	answerable, right, null, fails bool
	conf                           float64
}

// fixtureEHRSQL is an EHRSQL section of two models on 120 questions, with
// four strategies each, made the way ehrsqlbench makes one: each
// strategy's decisions scored by the official outcome table, the
// thresholded strategies swept over their thresholds. The calibration
// sweep is drawn from a second set of questions.
func fixtureEHRSQL() *EHRSQL {
	sec := &EHRSQL{Runs: []string{"/runs/ehrsql"}, Penalty: 10}
	for mi, model := range []string{"gpt-4.1", "qwen-coder"} {
		rng := rand.New(rand.NewPCG(uint64(mi+1), 7))
		gen := func(n int) []ehrsqlItem {
			items := make([]ehrsqlItem, n)
			for i := range items {
				it := &items[i]
				it.answerable = rng.Float64() > 0.2
				it.conf = -rng.ExpFloat64() * (0.2 + 0.1*float64(mi))
				it.right = it.answerable && rng.Float64() < 0.95+it.conf*0.6
				it.null = rng.Float64() < 0.08 || (!it.answerable && rng.Float64() < 0.4)
				it.fails = !it.right && rng.Float64() < 0.3
			}
			return items
		}
		eval, cal := gen(120), gen(80)
		outcome := func(it ehrsqlItem, abstain bool) reliability.Outcome {
			switch {
			case !it.answerable && abstain:
				return reliability.AbstainedUnanswerable
			case !it.answerable:
				return reliability.AnsweredUnanswerable
			case abstain:
				return reliability.AbstainedAnswerable
			case it.right:
				return reliability.Correct
			case it.fails:
				return reliability.Error
			}
			return reliability.Wrong
		}
		// decide is a strategy at a logprob threshold (nil: none).
		type strategy struct {
			name       string
			executable bool
			threshold  bool
		}
		decide := func(items []ehrsqlItem, s strategy, th *float64) (reliability.Counts, int, []EHRSQLItem) {
			var c reliability.Counts
			answered := 0
			var out []EHRSQLItem
			for i, it := range items {
				abst, step, why := false, "", "answered"
				switch {
				case it.null:
					abst, step, why = true, "model", "the model answered null"
				case s.executable && it.fails:
					abst, step, why = true, "executable", "the query fails: no such column: valuenum"
				case th != nil && it.conf < *th:
					abst, step, why = true, "logprob", fmt.Sprintf("mean token log-probability %.4f < threshold %.4f", it.conf, *th)
				}
				o := outcome(it, abst)
				c.Add(o)
				if !abst {
					answered++
				}
				gold := "null"
				if it.answerable {
					gold = fmt.Sprintf("SELECT COUNT(*) FROM admissions WHERE subject_id = %d", 10000000+i)
				}
				pred := fmt.Sprintf("SELECT COUNT(*) FROM admissions WHERE subject_id = %d", 10000000+i)
				if !it.right {
					pred = fmt.Sprintf("SELECT COUNT(DISTINCT hadm_id) FROM admissions WHERE subject_id = %d", 10000000+i)
				}
				if abst {
					pred = "null"
				}
				out = append(out, EHRSQLItem{ID: fmt.Sprintf("%024x", i), Question: fmt.Sprintf("How many hospital visits has patient %d had (question %d)?", 10000000+i, i+1),
					Gold: gold, Prediction: pred, Abstained: abst, Step: step, Reason: why, Outcome: o})
			}
			return c, answered, out
		}
		thresholds := func(items []ehrsqlItem) []float64 {
			var xs []float64
			for _, it := range items {
				xs = append(xs, it.conf)
			}
			slices.Sort(xs)
			return slices.Compact(xs)
		}
		// The threshold: the calibration split's best RS(10).
		best, bestRS := 0.0, -1e9
		cs := EHRSQLCalibrated{Strategy: "model+logprob", Chosen: map[string]float64{}}
		for _, th := range thresholds(cal) {
			c, n, _ := decide(cal, strategy{threshold: true}, &th)
			rs := reliability.RS(c, 10)
			cs.Curve = append(cs.Curve, EHRSQLCalPoint{Step: "logprob", Threshold: th, RS: rs, Coverage: float64(n) / float64(len(cal))})
			if rs > bestRS {
				best, bestRS = th, rs
			}
		}
		cs.Chosen["logprob"], cs.RS = best, bestRS
		sec.Calibrations = append(sec.Calibrations, &EHRSQLCalibration{Model: model, Split: "train", Items: len(cal), Penalty: 10, Strategies: []EHRSQLCalibrated{cs}})
		for _, s := range []strategy{{"model", false, false}, {"model+executable", true, false}, {"model+logprob", false, true}, {"model+logprob+executable", true, true}} {
			var th *float64
			res := &EHRSQLResult{Model: model, Strategy: s.name, Split: "valid", Thresholds: "-", Chosen: map[string]float64{}}
			if s.threshold {
				th = &best
				res.Thresholds, res.CalibrationSplit, res.Chosen["logprob"] = fmt.Sprintf("mean logprob >= %.4g", best), "train", best
				for _, x := range append(thresholds(eval), best) {
					c, n, _ := decide(eval, s, &x)
					res.Curve = append(res.Curve, EHRSQLPoint{Step: "logprob", Threshold: x, Answered: n, Counts: c})
				}
			}
			c, n, items := decide(eval, s, th)
			outs := make([]reliability.Outcome, len(items))
			for i, it := range items {
				outs[i] = it.Outcome
			}
			res.Scores = reliability.Summarize(outs)
			res.Coverage = float64(n) / float64(len(items))
			res.Items = items
			if c != res.Scores.Counts {
				panic("fixture: counts disagree")
			}
			// Intervals as ehrsqlbench computes them: the bootstrap of
			// each RS(c) over the questions.
			res.Intervals = map[string][2]float64{}
			for _, k := range []struct {
				key string
				pen float64
			}{{"rs0", 0}, {"rs5", 5}, {"rs10", 10}, {"rsN", float64(len(items))}} {
				col := make([]float64, len(items))
				for i, o := range outs {
					if col[i] = float64(o.Score()); col[i] < 0 {
						col[i] = -k.pen
					}
				}
				iv := Bootstrap{Seed: 1, Resamples: 300}.Means(model+s.name+k.key, col)[0]
				res.Intervals[k.key] = [2]float64{100 * iv.Lo, 100 * iv.Hi}
			}
			sec.Results = append(sec.Results, res)
		}
	}
	return sec
}
