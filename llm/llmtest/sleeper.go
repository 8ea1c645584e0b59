package llmtest

import (
	"context"
	"sync"
	"time"
)

// Sleeper stands in for llm.Options.Sleep: it records the waits a client
// asks for (backoff, Retry-After) without waiting, so that tests of retry
// schedules run in no time and can check the schedule itself.
type Sleeper struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d and returns at once, with ctx's error if it is done.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Waits returns a copy of the waits recorded so far, in order.
func (s *Sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}
