package bigquery

import (
	"math"
	"sync"

	"github.com/clinsql/clinsql/executor"
)

// Totals sums the cost of a run. Byte counts are BigQuery's own figures.
type Totals struct {
	Queries        int64            `json:"queries"`   // Query calls
	Succeeded      int64            `json:"succeeded"` // of which returned a result
	DryRuns        int64            `json:"dry_runs"`  // dry runs made (each Query makes one)
	Jobs           int64            `json:"jobs"`      // jobs inserted, retries included
	CacheHits      int64            `json:"cache_hits"`
	Retries        int64            `json:"retries"` // infrastructure retries
	Cancelled      int64            `json:"cancelled"`
	Failures       map[string]int64 `json:"failures,omitempty"` // by error class
	BytesEstimated int64            `json:"bytes_estimated"`
	BytesProcessed int64            `json:"bytes_processed"`
	BytesBilled    int64            `json:"bytes_billed"`
	SlotMillis     int64            `json:"slot_millis"`
}

// Cost is the on-demand cost of the bytes billed, in USD.
func (t Totals) Cost(pricePerTiB float64) float64 {
	return float64(t.BytesBilled) / (1 << 40) * pricePerTiB
}

// Accumulator sums Totals; it is safe for concurrent use. The zero value is
// ready.
type Accumulator struct {
	mu sync.Mutex
	t  Totals
}

// Snapshot returns the sums so far.
func (a *Accumulator) Snapshot() Totals {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.t
	if a.t.Failures != nil {
		t.Failures = make(map[string]int64, len(a.t.Failures))
		for k, v := range a.t.Failures {
			t.Failures[k] = v
		}
	}
	return t
}

func (a *Accumulator) update(fn func(t *Totals)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fn(&a.t)
}

// AddStats adds one job's figures.
func (a *Accumulator) AddStats(s executor.Stats) {
	a.update(func(t *Totals) {
		t.BytesProcessed = satAdd(t.BytesProcessed, s.BytesProcessed)
		t.BytesBilled = satAdd(t.BytesBilled, s.BytesBilled)
		t.SlotMillis = satAdd(t.SlotMillis, s.SlotMillis)
		if s.CacheHit {
			t.CacheHits++
		}
	})
}

func (a *Accumulator) addDryRun(bytes int64) {
	a.update(func(t *Totals) {
		t.DryRuns++
		t.BytesEstimated = satAdd(t.BytesEstimated, bytes)
	})
}

func (a *Accumulator) addQuery(class executor.Class) {
	a.update(func(t *Totals) {
		t.Queries++
		if class == "" {
			t.Succeeded++
			return
		}
		if t.Failures == nil {
			t.Failures = map[string]int64{}
		}
		t.Failures[string(class)]++
	})
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
