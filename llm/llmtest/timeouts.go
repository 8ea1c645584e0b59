package llmtest

import (
	"context"
	"sync"
	"time"

	"github.com/clinsql/clinsql/internal/testctx"
)

// holds signals each request the server begins to hold (a reply with a
// Delay, such as [Hang], or [Options].Latency): ch is closed and replaced
// at each, so a waiter that took ch before a hold sees it.
type holds struct {
	mu sync.Mutex
	ch chan struct{}
}

func (h *holds) next() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch == nil {
		h.ch = make(chan struct{})
	}
	return h.ch
}

func (h *holds) signal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch != nil {
		close(h.ch)
	}
	h.ch = make(chan struct{})
}

// Timeouts stands in for llm.Options.WithTimeout: an attempt made under it
// times out when, and only when, this server holds its request. The
// attempt's context ends with context.DeadlineExceeded once the server
// begins to hold (a reply with a Delay, such as [Hang], or
// [Options].Latency) a request that arrived after the context was made;
// the duration asked for is ignored. A timeout is then an event of the
// test, never a race between a short timeout and a loaded machine (which
// may take longer than the timeout to deliver a request the server would
// have answered at once). The client's attempts must be sequential, as a
// single call's retries are.
func (s *Server) Timeouts() func(context.Context, time.Duration) (context.Context, context.CancelFunc) {
	return s.TimeoutsAdvancing(nil)
}

// TimeoutsAdvancing is [Server.Timeouts] for a client on a fake clock: when
// an attempt times out, advance is called with the duration the attempt
// asked for before its context ends, so the clock has moved by the timeout
// when the client sees it (llm.Options.Now).
func (s *Server) TimeoutsAdvancing(advance func(time.Duration)) func(context.Context, time.Duration) (context.Context, context.CancelFunc) {
	return func(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
		ctx, expire, cancel := testctx.WithExpiry(parent)
		held := s.held.next()
		go func() {
			select {
			case <-held:
				if advance != nil {
					advance(d)
				}
				expire()
			case <-ctx.Done():
			}
		}()
		return ctx, cancel
	}
}
