package llm

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// gate is the load limit of one endpoint, shared by every Client of the
// process that talks to it.
type gate struct {
	key    string
	refs   int // clients using it, under gatesMu
	limits Limits
	slots  chan struct{} // concurrency semaphore
	rpm    *bucket       // nil = unlimited
	tpm    *bucket       // nil = unlimited
}

var (
	gatesMu sync.Mutex
	gates   = map[string]*gate{}
)

// gateKey identifies "the same endpoint": providers meter per deployment or
// model and per key, so the key variable's name is part of it.
func gateKey(e Endpoint) string {
	return fmt.Sprintf("%s|%s|%s|%s|%s", e.Kind, e.BaseURL, e.Model, e.Deployment, e.APIKeyEnv)
}

// gateFor returns the process-wide gate of e (which has defaults applied);
// a new gate's rate limits refill by now (the first client's clock).
// Two configurations of one endpoint with different limits are an error:
// silently keeping either would break someone's expectation.
func gateFor(e Endpoint, now func() time.Time) (*gate, error) {
	gatesMu.Lock()
	defer gatesMu.Unlock()
	k := gateKey(e)
	if g, ok := gates[k]; ok {
		if g.limits.Concurrency != e.Limits.Concurrency || g.limits.RPM != e.Limits.RPM || g.limits.TPM != e.Limits.TPM {
			return nil, fmt.Errorf("llm: endpoint %s (model %s) is already in use in this process with limits concurrency=%d rpm=%d tpm=%d; got concurrency=%d rpm=%d tpm=%d",
				e.Name, e.Model, g.limits.Concurrency, g.limits.RPM, g.limits.TPM, e.Limits.Concurrency, e.Limits.RPM, e.Limits.TPM)
		}
		g.refs++
		return g, nil
	}
	g := &gate{key: k, refs: 1, limits: e.Limits, slots: make(chan struct{}, e.Limits.Concurrency)}
	if e.Limits.RPM > 0 {
		g.rpm = newBucket(e.Limits.RPM, now)
	}
	if e.Limits.TPM > 0 {
		g.tpm = newBucket(e.Limits.TPM, now)
	}
	gates[k] = g
	return g, nil
}

// releaseGate drops a client's use of g; the last one forgets the gate, so
// the endpoint may be configured afresh (a later client with other limits,
// or a new server on the same address).
func releaseGate(g *gate) {
	gatesMu.Lock()
	defer gatesMu.Unlock()
	if g.refs--; g.refs == 0 && gates[g.key] == g {
		delete(gates, g.key)
	}
}

func (g *gate) acquire(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) release() { <-g.slots }

// bucket is a token bucket refilled continuously at perMinute/60 per second.
// It holds at most a sixth of a minute's allowance (Azure evaluates its
// per-minute limits over 10-second windows, so a full minute's burst would be
// refused). Unlike golang.org/x/time/rate it lets the balance go negative and
// accepts refunds: a token-per-minute limit must take an estimate before the
// call and settle the difference with the real usage afterwards.
type bucket struct {
	mu       sync.Mutex
	now      func() time.Time
	perSec   float64
	capacity float64
	tokens   float64
	last     time.Time
}

func newBucket(perMinute int, now func() time.Time) *bucket {
	capacity := math.Max(1, float64(perMinute)/6)
	return &bucket{now: now, perSec: float64(perMinute) / 60, capacity: capacity, tokens: capacity, last: now()}
}

func (b *bucket) refill() {
	t := b.now()
	if dt := t.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = math.Min(b.capacity, b.tokens+dt*b.perSec)
	}
	b.last = t
}

// wait takes n tokens, sleeping until they are there. A request larger than
// the capacity waits for a full bucket and leaves it in debt, so it is
// admitted eventually and later callers pay for it.
func (b *bucket) wait(ctx context.Context, n int, sleep func(context.Context, time.Duration) error) error {
	for {
		b.mu.Lock()
		b.refill()
		need := math.Min(float64(n), b.capacity)
		if b.tokens >= need {
			b.tokens -= float64(n)
			b.mu.Unlock()
			return nil
		}
		d := time.Duration((need - b.tokens) / b.perSec * float64(time.Second))
		b.mu.Unlock()
		if d < time.Millisecond {
			d = time.Millisecond
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// adjust settles an estimate: positive delta takes more tokens (possibly into
// debt), negative gives tokens back.
func (b *bucket) adjust(delta int) {
	if delta == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	b.tokens = math.Min(b.capacity, b.tokens-float64(delta))
}
