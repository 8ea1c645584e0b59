package testctx

import (
	"context"
	"sync"
)

// WithExpiry returns a context that ends when expire is called (its error
// context.DeadlineExceeded, as a timeout's), when cancel is called
// (context.Canceled) or when parent ends (parent's error), whichever comes
// first. It carries parent's values and deadline.
func WithExpiry(parent context.Context) (ctx context.Context, expire func(), cancel context.CancelFunc) {
	c := &expiring{Context: parent, done: make(chan struct{}), stop: make(chan struct{})}
	go func() {
		select {
		case <-parent.Done():
			c.end(parent.Err())
		case <-c.stop:
		}
	}()
	return c, func() { c.end(context.DeadlineExceeded) }, func() { c.end(context.Canceled) }
}

type expiring struct {
	context.Context
	done chan struct{}
	stop chan struct{} // closed when the context ends: the watcher returns

	mu  sync.Mutex
	err error
}

func (c *expiring) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
		close(c.stop)
	}
}

func (c *expiring) Done() <-chan struct{} { return c.done }

func (c *expiring) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
