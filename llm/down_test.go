package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// fakeClock is a clock that only sleeping advances.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *fakeClock) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
func (f *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	f.Advance(d)
	return nil
}
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// TestDeadEndpointDeclaredDown: with the default retry settings, an endpoint
// that refuses connections is declared down within 30 s of its first
// failure, with the reason, and later calls fail at once instead of each
// spending its retries (80 s before the first task of a run gave up).
func TestDeadEndpointDeclaredDown(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	ep := endpoint(srv, func(e *llm.Endpoint) { e.Retry = llm.Retry{} }) // the defaults
	srv.Close()                                                          // dead: connections refused
	clock := &fakeClock{now: time.Unix(0, 0)}
	c := newClient(t, ep, llm.Options{Sleep: clock.Sleep, Now: clock.Now})

	start := clock.Now()
	var err error
	for range 10 {
		_, err = c.Complete(context.Background(), ask("q"))
		if err != nil && strings.Contains(err.Error(), "declared down") {
			break
		}
	}
	waited := clock.Now().Sub(start)
	var le *llm.Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "declared down: failing for ") || !strings.Contains(le.Message, "the next retry would pass the 30s limit (retry.down_after)") || !strings.Contains(le.Message, "connect") {
		t.Fatalf("after %s: %v; want the endpoint declared down with the reason", waited, err)
	}
	if waited > 30*time.Second {
		t.Errorf("declared down after %s, want within 30s", waited)
	}
	if !le.Kind.EndpointDown() {
		t.Errorf("kind %s: callers would not count it as the endpoint's failure", le.Kind)
	}
	before := clock.Now()
	if _, err := c.Complete(context.Background(), ask("another")); err == nil || !strings.Contains(err.Error(), "declared down") {
		t.Errorf("next call: %v, want it to fail at once as declared down", err)
	}
	if d := clock.Now().Sub(before); d != 0 {
		t.Errorf("next call waited %s, want no wait", d)
	}
}
