package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestHungEndpointDeclaredDown: an endpoint that accepts connections and
// never answers is declared down after one attempt's timeout (it cannot be
// told from a slow model before), not after every retry: timeout 2 s and
// window 1 s here. The client runs on a fake clock that the attempt's
// timeout advances when the server hangs on it (llmtest's
// TimeoutsAdvancing), so the test takes no wall time and no load can
// stretch it.
func TestHungEndpointDeclaredDown(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Hang()), llmtest.Options{})
	ep := endpoint(srv, func(e *llm.Endpoint) {
		e.Retry = llm.Retry{DownAfter: time.Second}
		e.Limits.Timeout = 2 * time.Second
	})
	clock := &fakeClock{now: time.Unix(0, 0)}
	c := newClient(t, ep, llm.Options{Sleep: clock.Sleep, Now: clock.Now, WithTimeout: srv.TimeoutsAdvancing(clock.Advance)})
	_, err := c.Complete(context.Background(), ask("q"))
	waited := clock.Now().Sub(time.Unix(0, 0))
	var le *llm.Error
	if !errors.As(err, &le) || !strings.Contains(le.Message, "declared down") || !le.EndpointDown() {
		t.Fatalf("after %s: %v; want the endpoint declared down", waited, err)
	}
	// One attempt's timeout (2 s), then no retry past the 1 s window.
	if srv.Calls() != 1 || waited != 2*time.Second {
		t.Errorf("declared down after %d calls and %s, want after one 2s attempt", srv.Calls(), waited)
	}
}

// TestSlowEndpointNotDeclaredDown: a model that answers after longer than
// down_after, within its timeout, is slow, not down: its attempt is not cut
// at the window.
func TestSlowEndpointNotDeclaredDown(t *testing.T) {
	slow := llmtest.Text("SELECT 1")
	slow.Delay = 1500 * time.Millisecond
	srv := llmtest.Start(t, llmtest.Fixed(slow), llmtest.Options{})
	ep := endpoint(srv, func(e *llm.Endpoint) {
		e.Retry = llm.Retry{DownAfter: 500 * time.Millisecond, MaxAttempts: 1}
		e.Limits.Timeout = 10 * time.Second
	})
	c := newClient(t, ep, llm.Options{})
	if _, err := c.Complete(context.Background(), ask("q")); err != nil {
		t.Fatalf("a reply after 1.5s with down_after 0.5s and timeout 10s: %v", err)
	}
}

// TestTransportGarbageDeclaredDown: an endpoint whose every reply is garbled
// on the wire (a dead proxy) is declared down within 30 s, as one that
// refuses connections.
func TestTransportGarbageDeclaredDown(t *testing.T) {
	for _, f := range []llmtest.Fault{llmtest.Malformed, llmtest.Truncated, llmtest.CutOff} {
		srv := llmtest.Start(t, llmtest.Fixed(llmtest.Broken(f)), llmtest.Options{})
		ep := endpoint(srv, func(e *llm.Endpoint) { e.Retry = llm.Retry{} }) // the defaults
		clock := &fakeClock{now: time.Unix(0, 0)}
		c := newClient(t, ep, llm.Options{Sleep: clock.Sleep, Now: clock.Now})
		var err error
		for range 10 {
			if _, err = c.Complete(context.Background(), ask("q")); err != nil && strings.Contains(err.Error(), "declared down") {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), "declared down") {
			t.Errorf("fault %d: %v; want the endpoint declared down", f, err)
		} else if waited := clock.Now().Sub(time.Unix(0, 0)); waited > 30*time.Second {
			t.Errorf("fault %d: declared down after %s, want within 30s", f, waited)
		}
	}
}

// TestDownAfterDefaults: the window is 30 s, or an explicit per-attempt
// timeout when that is longer (a model slower than the window is not
// declared down for being slow).
func TestDownAfterDefaults(t *testing.T) {
	for _, tc := range []struct{ timeout, want time.Duration }{{0, 30 * time.Second}, {10 * time.Second, 30 * time.Second}, {2 * time.Minute, 2 * time.Minute}} {
		e := llm.Endpoint{Limits: llm.Limits{Timeout: tc.timeout}}.WithDefaults()
		if e.Retry.DownAfter != tc.want {
			t.Errorf("timeout %s: down_after %s, want %s", tc.timeout, e.Retry.DownAfter, tc.want)
		}
	}
}
