package ehrsqlbench

import (
	"fmt"
	"math"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/reliability"
)

// Thresholds are a strategy's calibrated settings. Nil means the step is
// not part of the strategy.
type Thresholds struct {
	// Logprob: answer only when the mean token log-probability of the
	// answer's reply is at least this.
	Logprob *float64 `json:"logprob,omitempty"`
	// Agreement: answer only when at least this share of the samples give
	// the answer's execution result.
	Agreement *float64 `json:"agreement,omitempty"`
}

// Decision is one item's outcome under a strategy.
type Decision struct {
	ID         string `json:"id"`
	Prediction string `json:"prediction"` // what prediction.json holds
	Abstained  bool   `json:"abstained"`
	// Step is the step that abstained, Reason why (or why not).
	Step   Step   `json:"step,omitempty"`
	Reason string `json:"reason"`
	// Sample is the sample whose SQL is the answer.
	Sample int `json:"sample"`
	// Features the thresholds compare.
	MeanLogprob *float64 `json:"mean_logprob,omitempty"`
	Agreement   *float64 `json:"agreement,omitempty"`
	Ensemble    *int     `json:"ensemble_agree,omitempty"`
	// Answer is what the prediction gives on the database (recorded at
	// generation, with the official post-processing and normalisation).
	Answer reliability.Answer `json:"answer"`
	// Question and Gold are the item's question and gold label (SQL, or
	// "null" for an unanswerable item); Outcome and Score are the official
	// scoring of Prediction against Gold: correct, wrong, error,
	// abstained_answerable, answered_unanswerable or abstained_unanswerable,
	// and +1, 0 or -1. Evaluate writes them in decisions.json.
	Question string              `json:"question,omitempty"`
	Gold     string              `json:"gold,omitempty"`
	Outcome  reliability.Outcome `json:"outcome,omitempty"`
	Score    *int                `json:"score,omitempty"`
}

// candidate picks the answer among the samples: the first sample, or with
// consistency the earliest sample of the largest group of equal answers
// (errors equal nothing; abstentions equal each other), with the group's
// share of the samples.
func candidate(rec *Record, consistency bool) (int, float64) {
	if !consistency || len(rec.Samples) <= 1 {
		return 0, 1
	}
	best, bestN := 0, 0
	for i, s := range rec.Samples {
		n := 0
		for _, t := range rec.Samples {
			if s.Answer.Equal(t.Answer) {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	if bestN == 0 { // every sample failed: none agrees with any
		bestN = 1
	}
	return best, float64(bestN) / float64(len(rec.Samples))
}

// Decide applies strategy st to one item's record. members are the
// ensemble's other models' records of the same item (nil entries for
// missing ones); quorum counts this model too.
func Decide(st Strategy, rec *Record, th Thresholds, members []*Record, quorum int) Decision {
	ci, agreement := candidate(rec, st.Has(StepConsistency))
	c := rec.Samples[ci]
	d := Decision{ID: rec.ID, Sample: ci, Prediction: c.SQL, Answer: c.Answer}
	if st.Has(StepConsistency) {
		d.Agreement = &agreement
	}
	if c.Logprobs != nil {
		m := c.Logprobs.Mean()
		d.MeanLogprob = &m
	}
	abstain := func(step Step, format string, a ...any) Decision {
		d.Prediction, d.Abstained, d.Step, d.Reason = ehrsql.Null, true, step, fmt.Sprintf(format, a...)
		d.Answer = reliability.Answer{Kind: reliability.KindAbstain}
		return d
	}
	// The model's own null, and a reply without a query, leave nothing to
	// submit: whatever the strategy, the prediction is null.
	switch {
	case c.Answer.Kind == reliability.KindAbstain:
		return abstain(StepModel, "the model answered null")
	case c.SQL == "":
		return abstain(StepModel, "no query in the reply")
	}
	for _, step := range st {
		switch step {
		case StepLogprob:
			if th.Logprob == nil {
				continue
			}
			if d.MeanLogprob == nil {
				return abstain(step, "no log-probabilities recorded")
			}
			if *d.MeanLogprob < *th.Logprob {
				return abstain(step, "mean token log-probability %.4f < threshold %.4f", *d.MeanLogprob, *th.Logprob)
			}
		case StepConsistency:
			if th.Agreement != nil && agreement < *th.Agreement {
				return abstain(step, "%.0f%% of %d samples agree < threshold %.0f%%", 100*agreement, len(rec.Samples), 100**th.Agreement)
			}
		case StepEnsemble:
			n := 1
			for _, o := range members {
				if o != nil && len(o.Samples) > 0 && o.Samples[0].Answer.Equal(c.Answer) {
					n++
				}
			}
			d.Ensemble = &n
			if n < quorum {
				return abstain(step, "%d of %d ensemble models agree < quorum %d", n, 1+len(members), quorum)
			}
		case StepExecutable:
			switch {
			case c.Answer.Kind == reliability.KindError:
				return abstain(step, "the query fails: %s", clip(c.Answer.Error, 200))
			case c.Answer.Kind == reliability.KindRows && c.Answer.TotalRows == 0:
				return abstain(step, "the query returns no rows")
			}
		}
	}
	d.Reason = "answered"
	return d
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// negInf is the threshold that lets everything through.
var negInf = math.Inf(-1)
