package ehrsqlbench

import (
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
)

// Estimate is the planned cost of one model's strategy, before any call.
type Estimate struct {
	Model    string `json:"model"`
	Strategy string `json:"strategy"` // "(run)" for what the run makes for the model, strategies sharing answers
	// Questions answered: the evaluation split's, plus the calibration
	// split's for a strategy with thresholds.
	Questions int `json:"questions"`
	// Calls are the first calls (no refinement): questions x samples, plus
	// the ensemble members' answers for an ensemble strategy.
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"` // at max_tokens (or the default reserve)
	// CostUSD and WorstUSD (every refinement round used) need a price.
	CostUSD  float64 `json:"cost_usd"`
	WorstUSD float64 `json:"worst_usd"`
	// BatchUSD is CostUSD through the batch API (endpoint mode batch).
	BatchUSD float64 `json:"batch_usd"`
	Priced   bool    `json:"priced"`
}

// EstimateRun plans the calls of a run: per model, what each strategy
// would cost alone (consistency with k samples costs k times), and what
// the run makes ("(run)": strategies share the same answers). Prompt tokens
// are estimated from the prompts themselves (4 bytes a token).
func EstimateRun(models []Model, eval, cal []ehrsql.Question, schema string, r *Retriever, prices llm.Prices) []Estimate {
	type cost struct{ prompt, calls int }
	perQuestion := func(m Model, qs []ehrsql.Question) cost {
		p := &Prompter{Schema: schema, Null: m.needs(StepModel)}
		if m.Shots > 0 && r != nil {
			p.Examples = func(q string) []Example { return r.Nearest(q, m.Shots) }
		}
		var c cost
		for _, q := range qs {
			text := p.Generate(&datasets.Task{Question: q.Question})
			c.prompt += llm.EstimateTokens([]llm.Message{{Role: llmfmt.RoleUser, Content: text}})
			c.calls++
		}
		return c
	}
	byName := map[string]Model{}
	for _, m := range models {
		byName[m.Name] = m
	}
	fill := func(e *Estimate, m Model, c cost, samples int) {
		completion := m.Sampling.MaxTokens
		if completion == 0 {
			completion = llm.DefaultCompletionReserve
		}
		e.Calls += c.calls * samples
		e.PromptTokens += c.prompt * samples
		e.CompletionTokens += completion * c.calls * samples
		if usd, ok := prices.Cost(m.Endpoint.Model, llm.Usage{PromptTokens: c.prompt * samples, CompletionTokens: completion * c.calls * samples}); ok {
			e.CostUSD += usd
			e.WorstUSD += usd * float64(1+m.RoundsOrDefault())
			e.BatchUSD += usd * prices[m.Endpoint.Model].BatchShare()
			e.Priced = true
		}
	}
	needCal := NeedsCalibration(models)
	var out []Estimate
	costs := map[string][2]cost{}
	for _, m := range models {
		costs[m.Name] = [2]cost{perQuestion(m, eval), perQuestion(m, cal)}
	}
	for _, m := range models {
		c := costs[m.Name]
		for _, st := range m.StrategyList() {
			e := Estimate{Model: m.Name, Strategy: st.String(), Questions: len(eval)}
			samples := 1
			if st.Has(StepConsistency) {
				samples = m.Samples()
			}
			fill(&e, m, c[0], samples)
			if st.Calibrated() {
				e.Questions += len(cal)
				fill(&e, m, c[1], samples)
			}
			if st.Has(StepEnsemble) {
				for _, o := range m.Ensemble.Models {
					fill(&e, byName[o], costs[o][0], 1)
					if st.Calibrated() {
						fill(&e, byName[o], costs[o][1], 1)
					}
				}
			}
			out = append(out, e)
		}
		e := Estimate{Model: m.Name, Strategy: "(run)", Questions: len(eval)}
		fill(&e, m, c[0], m.Samples())
		if needCal {
			e.Questions += len(cal)
			fill(&e, m, c[1], m.Samples())
		}
		out = append(out, e)
	}
	return out
}
