package llm_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestBatchEndpointDown: the provider becomes unreachable (connections
// refused, 503, hung, garbage on the wire) at each step of a batch's life,
// with no batch wait set. The batch API's calls follow the online down
// rule: within retry.down_after the endpoint is declared down and every
// waiting request fails as pending (the run incomplete) with the reason,
// instead of waiting for ever; the journal keeps every batch where it
// stood. Once the provider is back, a new client on the folder collects
// every reply: each request submitted in one batch and answered once by
// the provider, the folder's spending settled at exactly what the provider
// billed, no reservation left open.
func TestBatchEndpointDown(t *testing.T) {
	const n = 6
	faults := []struct {
		name string
		down func(*llmtest.Server)
	}{
		{"refused", (*llmtest.Server).Refuse},
		{"503", func(s *llmtest.Server) { s.Down(llmtest.ServerError(503)) }},
		{"hung", func(s *llmtest.Server) { s.Down(llmtest.Hang()) }},
		{"garbage", func(s *llmtest.Server) { s.Down(llmtest.Broken(llmtest.Malformed)) }},
	}
	// The step at which the provider goes down: before the upload, before
	// the create (uploaded), before the first poll (created), before the
	// download (the batch completed and billed).
	for _, step := range []string{"upload", "create", "poll", "download"} {
		for _, f := range faults {
			t.Run(step+"/"+f.name, func(t *testing.T) {
				srv := llmtest.Start(t, answer, llmtest.Options{})
				dir := t.TempDir()
				cache, err := llm.OpenCache(filepath.Join(dir, "cache"))
				if err != nil {
					t.Fatal(err)
				}
				const downAfter = 300 * time.Millisecond
				ep := batchEndpoint(srv, func(ep *llm.Endpoint) {
					// Retries outlast the window, as the defaults do (6
					// attempts, backoff up to 60 s, down_after 30 s): the
					// down rule ends them, not max_attempts.
					ep.Retry.MaxAttempts = 100
					ep.Retry.BaseDelay, ep.Retry.MaxDelay, ep.Retry.DownAfter = time.Millisecond, 20*time.Millisecond, downAfter
				})
				open := func(hook func(string) error) (*llm.Client, *llm.Meter) {
					m, err := llm.OpenMeter(dir, testPrices, 10)
					if err != nil {
						t.Fatal(err)
					}
					// An attempt times out when the server hangs on it,
					// never because a loaded machine was slow.
					c := newClient(t, ep, llm.Options{Cache: cache, Meter: m, Batch: &llm.BatchOptions{Dir: dir, Step: hook}, WithTimeout: srv.Timeouts()})
					return c, m
				}
				wentDown := false
				c1, m1 := open(func(s string) error {
					if s == step && !wentDown {
						wentDown = true
						f.down(srv)
					}
					return nil
				})
				done := make(chan []result, 1)
				start := time.Now()
				go func() { done <- askAll(c1, prompts(n), nil) }()
				var first []result
				select {
				case first = <-done:
				case <-time.After(5 * time.Minute): // a guard against a hang, not a measure
					t.Fatalf("still waiting %s after the provider went down at %q (down_after %s)", time.Since(start).Round(time.Second), step, downAfter)
				}
				if !wentDown {
					t.Fatalf("step %q never reached", step)
				}
				for _, r := range first {
					if llm.KindOf(r.err) != llm.KindBatchPending || !strings.Contains(r.err.Error(), "declared down") {
						t.Fatalf("while down: %v; want batch_pending, declared down with the reason", r.err)
					}
				}
				// A request made after the endpoint was declared down fails
				// at once, unsent.
				if _, err := c1.Complete(t.Context(), ask("late")); llm.KindOf(err) != llm.KindBatchPending {
					t.Errorf("late request: %v, want batch_pending", err)
				}
				c1.Close()
				m1.Close()
				if err := srv.Up(); err != nil {
					t.Fatal(err)
				}

				c2, m2 := open(nil)
				for i, r := range askAll(c2, prompts(n), nil) {
					want := "answer to " + reverse(prompts(n)[i])
					if r.err != nil || r.resp.Text != want {
						t.Errorf("after the provider came back: %q, %v; want %q", r.resp.Text, r.err, want)
					}
				}
				c2.Close()
				m2.Close()
				checkOnce(t, srv, n)
				if got := srv.BatchesCreated(); got != 1 {
					t.Errorf("%d batches created, want 1", got)
				}
				// The folder's spending: every reservation settled, at what
				// the provider billed (batch price).
				m3, err := llm.OpenMeter(dir, testPrices, 10)
				if err != nil {
					t.Fatal(err)
				}
				defer m3.Close()
				st := m3.Resumed()
				p, c := srv.Billed()
				billed, _ := testPrices.BatchCost("gpt-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
				if st.Unreconciled != 0 || !near(st.SpentUSD, billed) {
					t.Errorf("folder spent $%.6f with %d reservations open ($%.6f), provider billed $%.6f", st.SpentUSD, st.Unreconciled, st.UnreconciledUSD, billed)
				}
			})
		}
	}
}

// TestBatchPollRefused: a poll the provider refuses for good (a revoked
// key: 401) ends the wait with the requests pending and the reason,
// instead of polling for ever with no batch wait set; once the key works
// again, a rerun collects every reply from the same batch.
func TestBatchPollRefused(t *testing.T) {
	const n = 4
	srv := llmtest.Start(t, answer, llmtest.Options{})
	dir := t.TempDir()
	cache, err := llm.OpenCache(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	ep := batchEndpoint(srv, nil)
	refused := false
	c1 := newClient(t, ep, llm.Options{Cache: cache, Batch: &llm.BatchOptions{Dir: dir, Step: func(s string) error {
		if s == "poll" && !refused {
			refused = true
			srv.Down(llmtest.HTTPError(401, "invalid_api_key", "Incorrect API key provided"))
		}
		return nil
	}}})
	done := make(chan []result, 1)
	go func() { done <- askAll(c1, prompts(n), nil) }()
	select {
	case first := <-done:
		for _, r := range first {
			if llm.KindOf(r.err) != llm.KindBatchPending || !strings.Contains(r.err.Error(), "Incorrect API key") {
				t.Fatalf("poll refused: %v; want batch_pending with the provider's reason", r.err)
			}
		}
	case <-time.After(5 * time.Minute): // a guard against a hang, not a measure
		t.Fatal("still polling 5 minutes after the provider refused the key")
	}
	c1.Close()
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	c2 := newClient(t, ep, llm.Options{Cache: cache, Batch: &llm.BatchOptions{Dir: dir}})
	for i, r := range askAll(c2, prompts(n), nil) {
		if want := "answer to " + reverse(prompts(n)[i]); r.err != nil || r.resp.Text != want {
			t.Errorf("rerun: %q, %v; want %q", r.resp.Text, r.err, want)
		}
	}
	c2.Close()
	checkOnce(t, srv, n)
	if got := srv.BatchesCreated(); got != 1 {
		t.Errorf("%d batches created, want 1", got)
	}
}

// TestBatchResultsNeverParse: the provider answers every poll but its
// result file arrives garbled every time (a proxy's error page with 200).
// After retry.max_attempts such downloads the wait ends pending with the
// reason, instead of downloading for ever (each poll succeeds, so the down
// rule never fires); the batch stays in the journal for a rerun.
func TestBatchResultsNeverParse(t *testing.T) {
	const n, attempts = 3, 3
	srv := llmtest.Start(t, answer, llmtest.Options{BatchFaults: map[string]int{"content-garbled": 1 << 20}})
	dir := t.TempDir()
	cache, err := llm.OpenCache(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	ep := batchEndpoint(srv, func(ep *llm.Endpoint) {
		ep.Retry.MaxAttempts = attempts
		ep.Retry.BaseDelay, ep.Retry.MaxDelay = time.Millisecond, time.Millisecond
	})
	c1 := newClient(t, ep, llm.Options{Cache: cache, Batch: &llm.BatchOptions{Dir: dir}})
	defer c1.Close()
	done := make(chan []result, 1)
	go func() { done <- askAll(c1, prompts(n), nil) }()
	select {
	case first := <-done:
		for _, r := range first {
			if llm.KindOf(r.err) != llm.KindBatchPending || !strings.Contains(r.err.Error(), "unreadable") {
				t.Fatalf("garbled results: %v; want batch_pending saying the results are unreadable", r.err)
			}
		}
	case <-time.After(5 * time.Minute): // a guard against a hang, not a measure
		t.Fatal("still downloading a garbled result file after 20 s")
	}
	if got := srv.BatchesCreated(); got != 1 {
		t.Errorf("%d batches created, want 1", got)
	}
}
