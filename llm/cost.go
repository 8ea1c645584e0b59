package llm

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sync"
)

// Usage counts tokens as the provider reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens}
}

// Price is in US dollars per million tokens.
type Price struct {
	Prompt     float64 `yaml:"prompt"`
	Completion float64 `yaml:"completion"`
}

// Prices maps a model id (Endpoint.Model) to its price.
type Prices map[string]Price

// PricesFile is the shape of a prices YAML file:
//
//	prices:
//	  gpt-4o-mini: {prompt: 0.15, completion: 0.60}
type PricesFile struct {
	Prices Prices `yaml:"prices"`
}

// LoadPrices reads a prices file; errors name the file and the model.
func LoadPrices(path string) (Prices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f PricesFile
	if err := DecodeYAML(path, data, &f); err != nil {
		return nil, err
	}
	if len(f.Prices) == 0 {
		return nil, &ConfigError{File: path, Field: "prices", Problem: "no prices"}
	}
	var errs []error
	for _, m := range slices.Sorted(maps.Keys(f.Prices)) {
		p := f.Prices[m]
		if p.Prompt < 0 || math.IsNaN(p.Prompt) {
			errs = append(errs, &ConfigError{File: path, Field: "prices." + m + ".prompt", Problem: "must be a non-negative number"})
		}
		if p.Completion < 0 || math.IsNaN(p.Completion) {
			errs = append(errs, &ConfigError{File: path, Field: "prices." + m + ".completion", Problem: "must be a non-negative number"})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return f.Prices, nil
}

// Cost returns the dollar cost of u on model; ok is false when the model has
// no price.
func (p Prices) Cost(model string, u Usage) (usd float64, ok bool) {
	pr, ok := p[model]
	if !ok {
		return 0, false
	}
	return (float64(u.PromptTokens)*pr.Prompt + float64(u.CompletionTokens)*pr.Completion) / 1e6, true
}

// Estimate returns the expected cost of calls calls to model, each with about
// promptTokens prompt and completionTokens completion tokens (see
// [EstimateTokens]). It is what a command prints before a run.
func (p Prices) Estimate(model string, calls, promptTokens, completionTokens int) (float64, error) {
	usd, ok := p.Cost(model, Usage{PromptTokens: promptTokens, CompletionTokens: completionTokens})
	if !ok {
		return 0, fmt.Errorf("llm: no price for model %q", model)
	}
	return usd * float64(calls), nil
}

// EstimateTokens estimates the prompt tokens of messages before a call: one
// token per 4 bytes plus the chat format's per-message overhead. It errs
// high for English text and for non-Latin scripts, which is the safe side for
// rate limits and budgets; the real count from the reply replaces it.
func EstimateTokens(msgs []Message) int {
	n := 3
	for _, m := range msgs {
		n += 4 + (len(m.Role)+len(m.Content)+3)/4
	}
	return n
}

// Tally is a running count of calls, tokens and dollars.
type Tally struct {
	Calls            int     `json:"calls"`      // Complete calls answered, from cache or not
	CacheHits        int     `json:"cache_hits"` // of which served from the cache
	Attempts         int     `json:"attempts"`   // HTTP requests sent
	Failures         int     `json:"failures"`   // Complete calls that returned an error
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// Unpriced counts calls whose model had no price (their cost is 0 here).
	Unpriced int `json:"unpriced"`
}

func (t *Tally) add(o Tally) {
	t.Calls += o.Calls
	t.CacheHits += o.CacheHits
	t.Attempts += o.Attempts
	t.Failures += o.Failures
	t.PromptTokens += o.PromptTokens
	t.CompletionTokens += o.CompletionTokens
	t.CostUSD += o.CostUSD
	t.Unpriced += o.Unpriced
}

// Meter is a running cost meter with an optional budget cap, shared by any
// number of clients. Before each uncached call the client reserves the
// call's worst-case cost (estimated prompt tokens plus max_tokens, or
// [DefaultCompletionReserve] when unset); if spent plus reserved would exceed
// the budget the call fails with [KindBudget] before anything is sent, so a
// capped run stops cleanly between calls. After the call the reservation is
// replaced by the real cost. The cap can be overshot only by the error of the
// prompt estimate of calls already in flight.
type Meter struct {
	prices    Prices
	budget    float64
	mu        sync.Mutex
	spent     float64
	reserved  float64
	exhausted bool
	by        map[string]*Tally
}

// DefaultCompletionReserve is the completion size reserved against the
// budget for a call without max_tokens.
const DefaultCompletionReserve = 1024

// NewMeter returns a meter using prices; budgetUSD > 0 caps the spend.
func NewMeter(prices Prices, budgetUSD float64) *Meter {
	return &Meter{prices: prices, budget: budgetUSD, by: map[string]*Tally{}}
}

// Prices returns the meter's price table.
func (m *Meter) Prices() Prices { return m.prices }

// Budget returns the cap (0 = none).
func (m *Meter) Budget() float64 { return m.budget }

// check is used by New: a capped meter needs a price for every model.
func (m *Meter) check(e Endpoint) error {
	if _, ok := m.prices[e.Model]; !ok && m.budget > 0 {
		return fmt.Errorf("llm: endpoint %s: model %q has no price, and a budget cap needs one", e.Name, e.Model)
	}
	return nil
}

// reserve books a worst-case cost; it fails once the budget is spent.
func (m *Meter) reserve(model string, est Usage) (float64, error) {
	usd, _ := m.prices.Cost(model, est)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.budget > 0 && (m.exhausted || m.spent+m.reserved+usd > m.budget) {
		// Once a call has been refused, refuse every later one too, so a run
		// does not sneak small calls in after a big one was turned away.
		m.exhausted = true
		return 0, fmt.Errorf("budget of $%.4f reached (spent $%.4f, in flight $%.4f, this call up to $%.4f)", m.budget, m.spent, m.reserved, usd)
	}
	m.reserved += usd
	return usd, nil
}

// settle replaces a reservation with what the call really did.
func (m *Meter) settle(endpoint, model string, reserved float64, t Tally, used Usage) float64 {
	usd, ok := m.prices.Cost(model, used)
	t.PromptTokens, t.CompletionTokens, t.CostUSD = used.PromptTokens, used.CompletionTokens, usd
	if !ok && (used.PromptTokens > 0 || used.CompletionTokens > 0) {
		t.Unpriced = 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reserved -= reserved
	if m.reserved < 1e-12 {
		m.reserved = 0
	}
	m.spent += usd
	tl := m.by[endpoint]
	if tl == nil {
		tl = &Tally{}
		m.by[endpoint] = tl
	}
	tl.add(t)
	return usd
}

// Total returns the sum over all endpoints.
func (m *Meter) Total() Tally {
	m.mu.Lock()
	defer m.mu.Unlock()
	var t Tally
	for _, v := range m.by {
		t.add(*v)
	}
	return t
}

// ByEndpoint returns a copy of the tallies keyed by endpoint name.
func (m *Meter) ByEndpoint() map[string]Tally {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Tally, len(m.by))
	for k, v := range m.by {
		out[k] = *v
	}
	return out
}
