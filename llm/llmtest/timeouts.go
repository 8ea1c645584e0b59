package llmtest

import (
	"context"
	"sync"
	"time"
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
		ctx := &heldContext{Context: parent, done: make(chan struct{})}
		held := s.held.next()
		stop := make(chan struct{})
		var once sync.Once
		go func() {
			select {
			case <-held:
				if advance != nil {
					advance(d)
				}
				ctx.expire(context.DeadlineExceeded)
			case <-parent.Done():
				ctx.expire(parent.Err())
			case <-stop:
				ctx.expire(context.Canceled)
			}
		}()
		return ctx, func() { once.Do(func() { close(stop) }) }
	}
}

// heldContext is a context that ends when its server holds a request (with
// DeadlineExceeded, as a timeout does), when its parent ends or when it is
// cancelled.
type heldContext struct {
	context.Context
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func (c *heldContext) expire(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

func (c *heldContext) Done() <-chan struct{} { return c.done }

func (c *heldContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
