package llm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
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
	// Batch is the share of these prices charged for a request sent
	// through the provider's batch API (endpoint mode batch). Unset means
	// [DefaultBatchShare]: OpenAI and Azure OpenAI bill batches at half
	// the online price.
	Batch *float64 `yaml:"batch,omitempty"`
}

// DefaultBatchShare is the share of the online price a batch request costs
// when the prices file does not say.
const DefaultBatchShare = 0.5

// BatchShare is the share of the online price a batch request costs.
func (p Price) BatchShare() float64 {
	if p.Batch == nil {
		return DefaultBatchShare
	}
	return *p.Batch
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
		if b := p.Batch; b != nil && (*b < 0 || *b > 1 || math.IsNaN(*b)) {
			errs = append(errs, &ConfigError{File: path, Field: "prices." + m + ".batch", Problem: "must be a share of the online price, between 0 and 1"})
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

// BatchCost is [Prices.Cost] for a request sent through the batch API.
func (p Prices) BatchCost(model string, u Usage) (usd float64, ok bool) {
	usd, ok = p.Cost(model, u)
	return usd * p[model].BatchShare(), ok
}

// costIn prices u online or, with batch, at the batch share.
func (p Prices) costIn(model string, u Usage, batch bool) (float64, bool) {
	if batch {
		return p.BatchCost(model, u)
	}
	return p.Cost(model, u)
}

// EstimateBatch is [Prices.Estimate] at batch prices.
func (p Prices) EstimateBatch(model string, calls, promptTokens, completionTokens int) (float64, error) {
	usd, err := p.Estimate(model, calls, promptTokens, completionTokens)
	return usd * p[model].BatchShare(), err
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
	Calls            int `json:"calls"`      // Complete calls answered, from cache or not
	CacheHits        int `json:"cache_hits"` // of which served from the cache
	Attempts         int `json:"attempts"`   // HTTP requests sent
	Failures         int `json:"failures"`   // Complete calls that returned an error
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CostUSD prices the usage reported. The budget ([Meter.Spent]) also
	// charges attempts whose usage is unknown at their reservation.
	CostUSD float64 `json:"cost_usd"`
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
// number of clients and safe for concurrent use.
//
// Before each HTTP attempt the client reserves the attempt's worst-case
// cost: the estimated prompt tokens plus the token cap it sends
// (max_tokens, for a grouped judge call the per-leaf cap times the leaves,
// or [DefaultCompletionReserve] when none is sent), priced, and scaled by
// the largest overrun its model has shown (below). An attempt that can never fit under the
// cap fails with [KindBudget] before anything is sent, and so does every
// later one (cache hits are still served), so a capped run stops cleanly.
// After the attempt the reservation is replaced by its real cost: the
// reported usage; nothing for an error status or a request never written;
// the full reservation when the request went out but no usable reply came
// back (a timeout, a dropped connection: the provider may have billed it),
// or the usage known if it costs more.
//
// A reply whose reported usage costs more than its reservation (a provider
// exceeding max_tokens) is recorded, and stops a capped meter as above; the
// folder's later reservations are scaled by the overrun. Under a cap,
// calls run concurrently only while the remaining budget covers every call
// in flight at [OverrunHeadroom] times its reservation (in the last
// stretch they go one at a time: reserve waits), and only as far as the
// model has earned it: a model may have one online call in flight more
// than the folder has seen calls of it settled within their reservation
// (at the usage reported, or at the reservation when the reply had none) (1, 2, 3, ... as replies come back, at once for a folder
// with a history). So a provider that over-reports usage, by any factor,
// is caught on the first call, alone, and the cap is passed by at most
// that one call's cost; a provider billing up to OverrunHeadroom times
// the reservation overshoots by at most one call at any time. Batch
// requests are booked together (a batch is one submission) under the
// headroom rule only: a provider over-reporting a batch's usage by more
// than OverrunHeadroom times passes the cap by that batch.
//
// A meter from [NewMeter] counts in memory, for one process. One from
// [OpenMeter] records every reservation in a folder's [SpendingFile],
// fsynced before the request is sent, and starts from what the file already
// holds, so the cap is on the folder across any number of runs and a
// process killed mid-call never leaves a sent request unrecorded.
type Meter struct {
	prices Prices
	budget float64

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced when spent or reserved change
	spent    float64       // the folder's total: settled attempts, unsettled reservations of dead processes
	thisRun  float64       // charged to this process's attempts
	reserved float64       // this process's attempts in flight
	inFlight int
	flying   map[string]int     // per model: online attempts in flight
	factor   map[string]float64 // per model: reservations are scaled by its worst overrun seen (absent: 1)
	trusted  map[string]int     // per model: attempts charged within their reservation (Meter.settle)
	stop     error              // set: no attempt is admitted any more
	by       map[string]*Tally

	journal *spendFile // nil: in memory only
	dir     string     // the folder of the spending file (absolute)
	resumed FolderSpending
	orphans map[string]*reservation // reservations of dead processes, not yet settled
	token   string
	seq     int
}

// DefaultCompletionReserve is the completion size reserved against the
// budget for a call without max_tokens.
const DefaultCompletionReserve = 1024

// OverrunHeadroom is how many times its reservation every call in flight
// must fit in the remaining budget for calls to run concurrently.
const OverrunHeadroom = 4

// NewMeter returns an in-memory meter using prices; budgetUSD > 0 caps the
// spend of this process. See [OpenMeter] for a cap on a folder.
func NewMeter(prices Prices, budgetUSD float64) *Meter {
	return &Meter{prices: prices, budget: budgetUSD, by: map[string]*Tally{}, factor: map[string]float64{},
		trusted: map[string]int{}, flying: map[string]int{},
		changed: make(chan struct{}), token: newToken(), resumed: FolderSpending{Overrun: 1}}
}

// Prices returns the meter's price table.
func (m *Meter) Prices() Prices { return m.prices }

// Budget returns the cap (0 = none).
func (m *Meter) Budget() float64 { return m.budget }

// Resumed returns what the folder's spending file held when the meter
// opened it (zero for an in-memory meter).
func (m *Meter) Resumed() FolderSpending { return m.resumed }

// Spent returns what the folder has spent: the resumed total plus this
// process's settled attempts (calls in flight not included).
func (m *Meter) Spent() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// SpentThisRun returns what this process's settled attempts were charged
// (calls in flight not included): what it added to the folder's spending,
// before any earlier run's reservation it settled.
func (m *Meter) SpentThisRun() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.thisRun
}

// Stopped returns why the meter admits no more calls, or nil.
func (m *Meter) Stopped() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stop
}

// Close releases the spending file (nothing for an in-memory meter). Calls
// in flight should have ended; later calls are counted in memory only.
func (m *Meter) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.journal == nil {
		return nil
	}
	err := m.journal.close()
	m.journal = nil
	return err
}

// check is used by New: a capped meter needs a price for every model.
func (m *Meter) check(e Endpoint) error {
	if _, ok := m.prices[e.Model]; !ok && m.budget > 0 {
		return fmt.Errorf("llm: endpoint %s: model %q has no price, and a budget cap needs one", e.Name, e.Model)
	}
	return nil
}

// reservation is one attempt's booked worst case.
type reservation struct {
	id         string
	usd, worst float64 // reserved; the worst case at list prices
	batch      bool    // priced at the batch share
	model      string
	// orphan: booked by a process that died before settling it; counted
	// in spent, not in reserved. Its endpoint and batch journal say who
	// may settle it.
	orphan            bool
	endpoint, journal string
}

// budgetError says why attempts are no longer admitted. Its text gives
// the folder's spending when it is read, not when the meter stopped: calls
// in flight then settle later, and the message states the total they
// reached (a run reports it after its calls ended).
type budgetError struct {
	m   *Meter // nil: msg says it all
	msg string
}

func (e *budgetError) Error() string {
	if e.m == nil {
		return e.msg
	}
	e.m.mu.Lock()
	spent, flying, budget := e.m.spent, e.m.reserved, e.m.budget
	e.m.mu.Unlock()
	s := fmt.Sprintf("%s; spent $%.4f of $%.4f", e.msg, spent, budget)
	if flying > 0 {
		s += fmt.Sprintf(", calls still in flight reserved $%.4f more", flying)
	}
	return s
}

// String is Error: a budget stop's text is read through it when an *Error
// carries it (Error.live).
func (e *budgetError) String() string { return e.Error() }

// broadcast wakes reservations waiting for room; under m.mu.
func (m *Meter) broadcast() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// reserve books an online attempt's worst case before it is sent, waiting
// while calls in flight leave too little headroom or the model has not
// earned more concurrency (see [Meter]). It fails with a *budgetError once
// the budget cannot take the attempt, or when ctx ends.
func (m *Meter) reserve(ctx context.Context, endpoint, model string, est Usage) (*reservation, error) {
	return m.book(ctx, endpoint, model, est, "", true)
}

// errNoRoom is book's answer, without wait, when the attempt must wait for
// calls in flight to settle.
var errNoRoom = errors.New("llm: no room under the budget until calls in flight settle")

// book is reserve for an online attempt or (journal set) a request of a
// batch recorded in that journal (its path relative to the meter's
// folder); without wait it returns errNoRoom instead of waiting for
// headroom (a batch submitter cannot wait: the reservations it would wait
// for are settled by its own polling).
func (m *Meter) book(ctx context.Context, endpoint, model string, est Usage, journal string, wait bool) (*reservation, error) {
	batch := journal != ""
	worst, _ := m.prices.costIn(model, est, batch)
	for {
		m.mu.Lock()
		if m.stop != nil {
			err := m.stop
			m.mu.Unlock()
			return nil, err
		}
		usd := worst * max(1, m.factor[model])
		if m.budget > 0 {
			if m.spent+usd > m.budget {
				// Spending only grows: this attempt will never fit. Refuse
				// every later one too, so a run does not sneak small calls
				// in after a big one was turned away.
				m.stop = &budgetError{m: m, msg: fmt.Sprintf("budget of $%.4f reached (a call of up to $%.4f would pass it)", m.budget, usd)}
				m.broadcast()
				m.mu.Unlock()
				return nil, m.stop
			}
			crowded := m.inFlight > 0 && m.spent+OverrunHeadroom*(m.reserved+usd) > m.budget
			unproven := !batch && m.flying[model] > m.trusted[model]
			if crowded || unproven {
				if !wait {
					m.mu.Unlock()
					return nil, errNoRoom
				}
				wait := m.changed
				m.mu.Unlock()
				select {
				case <-wait:
					continue
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		}
		m.seq++
		r := &reservation{id: fmt.Sprintf("%s-%d", m.token, m.seq), usd: usd, worst: worst, batch: batch, model: model}
		m.reserved += usd
		m.inFlight++
		if !batch {
			m.flying[model]++
		}
		j := m.journal
		if j != nil {
			if err := j.append(spendRecord{Op: "reserve", ID: r.id, Time: time.Now().UTC(), Endpoint: endpoint, Model: model,
				PromptTokens: est.PromptTokens, CompletionTokens: est.CompletionTokens, WorstUSD: worst, USD: usd, Batch: batch, Journal: journal}); err != nil {
				m.reserved -= usd
				m.inFlight--
				if !batch {
					m.flying[model]--
				}
				m.stop = &budgetError{msg: err.Error()}
				m.broadcast()
				m.mu.Unlock()
				return nil, m.stop
			}
		}
		m.mu.Unlock()
		// Synced outside the lock: concurrent attempts' syncs overlap. The
		// request is not sent before its reservation is on disk.
		if j != nil {
			if err := j.sync(); err != nil {
				m.settle(r, Usage{}, usageNone)
				m.mu.Lock()
				if m.stop == nil {
					m.stop = &budgetError{msg: err.Error()}
					m.broadcast()
				}
				m.mu.Unlock()
				return nil, err
			}
		}
		return r, nil
	}
}

// settle replaces a reservation with what the attempt cost: used as
// reported (usageReported), nothing (usageNone), or the reservation itself
// (usageUnknown: sent without a usable reply; the usage known, when it
// costs more, as for conflicting batch results). It returns the charge. A
// reported cost above the reservation scales later reservations and stops
// a capped meter.
func (m *Meter) settle(r *reservation, used Usage, how string) float64 {
	usd := 0.0
	switch how {
	case usageReported:
		usd, _ = m.prices.costIn(r.model, used, r.batch)
	case usageUnknown:
		known, _ := m.prices.costIn(r.model, used, r.batch)
		usd = max(r.usd, known)
	}
	overrun := how == usageReported && usd > r.usd*(1+1e-9)
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.orphan {
		m.spent -= r.usd // it was counted in full
	} else {
		m.reserved -= r.usd
		m.inFlight--
		if !r.batch {
			m.flying[r.model]--
		}
		if m.inFlight == 0 || m.reserved < 1e-12 {
			m.reserved = 0 // no float dust left behind
		}
		m.thisRun += usd
	}
	m.spent += usd
	if how != usageNone && usd <= r.usd*(1+1e-9) {
		// Charged within its reservation: a reply whose usage is unknown
		// counts too (a server that reports none must not stay one call
		// at a time; it is charged the worst case).
		m.trusted[r.model]++
	}
	if overrun {
		if r.worst > 0 {
			m.factor[r.model] = max(m.factor[r.model], usd/r.worst)
		}
		if m.budget > 0 && m.stop == nil {
			m.stop = &budgetError{m: m, msg: fmt.Sprintf("the provider reported usage costing $%.4f for a call reserved at $%.4f (more than the token cap sent); stopped (running again reserves %.2fx the worst case)", usd, r.usd, max(1, m.factor[r.model]))}
		}
	}
	if m.journal != nil {
		rec := spendRecord{Op: "settle", ID: r.id, Time: time.Now().UTC(), USD: usd, Usage: how, Overrun: overrun}
		if how != usageNone {
			rec.PromptTokens, rec.CompletionTokens = used.PromptTokens, used.CompletionTokens
		}
		// Not synced: a settle line lost in a crash leaves its reservation
		// counting in full, which errs on the safe side. A failed write
		// stops further calls, whose spending could not be recorded either.
		if err := m.journal.append(rec); err != nil && m.stop == nil {
			m.stop = &budgetError{msg: err.Error()}
		}
	}
	m.broadcast()
	return usd
}

// settleOrphan settles a reservation a dead process booked and never
// settled, now that this process knows what its request cost (a batch
// request whose result it read, or one whose batch was provably never
// created: usageNone). It does nothing for an id that is not such a
// reservation of the folder, or was settled already: each is settled once.
func (m *Meter) settleOrphan(id string, used Usage, how string) {
	m.mu.Lock()
	r := m.orphans[id]
	delete(m.orphans, id)
	m.mu.Unlock()
	if r != nil {
		m.settle(r, used, how)
	}
}

// journalName is how the meter's reservations name the batch journal at
// path: relative to the meter's folder when it is inside it (the folder
// may move), else absolute.
func (m *Meter) journalName(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if m.dir != "" {
		if rel, err := filepath.Rel(m.dir, abs); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	return abs
}

// releaseUnprepared settles at nothing every batch reservation of a dead
// process that names journal and that the journal says was never in a
// batch (unprepared(id)): the process died after booking the requests and
// before recording their batch, and a batch is uploaded only after it is
// recorded (fsynced), so nothing was sent. It returns how many were
// released and what they had reserved.
func (m *Meter) releaseUnprepared(journal string, unprepared func(id string) bool) (n int, usd float64) {
	m.mu.Lock()
	var free []*reservation
	for id, r := range m.orphans {
		if r.batch && r.journal == journal && unprepared(id) {
			free = append(free, r)
			delete(m.orphans, id)
		}
	}
	m.mu.Unlock()
	for _, r := range free {
		m.settle(r, Usage{}, usageNone)
		usd += r.usd
	}
	return len(free), usd
}

// count adds a call's outcome to its endpoint's tally and returns the cost
// of the usage reported.
func (m *Meter) count(endpoint, model string, t Tally, used Usage) float64 {
	return m.countIn(endpoint, model, t, used, false)
}

// countIn is count, at batch prices with batch.
func (m *Meter) countIn(endpoint, model string, t Tally, used Usage, batch bool) float64 {
	usd, ok := m.prices.costIn(model, used, batch)
	t.PromptTokens, t.CompletionTokens, t.CostUSD = used.PromptTokens, used.CompletionTokens, usd
	if !ok && (used.PromptTokens > 0 || used.CompletionTokens > 0) {
		t.Unpriced = 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
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
