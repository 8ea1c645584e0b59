package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestLogprobs: log-probabilities travel in OpenAI's wire format
// (choices[0].logprobs.content[].logprob), survive the cache, are refused
// before any call when the endpoint does not declare them, and are never
// sent when not asked for.
func TestLogprobs(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Reply{Content: "SELECT 1", TokenLogprobs: []float64{-0.5, -1.5}}), llmtest.Options{})
	cache, err := llm.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, endpoint(srv, func(ep *llm.Endpoint) { ep.Capabilities.Logprobs = true }), llm.Options{Cache: cache})
	req := ask("q")
	req.Logprobs = true
	// "SELE", "CT 1": the fake's 4-byte tokens.
	want := llmfmt.Logprobs{Tokens: 2, Sum: -2, Min: -1.5}
	for _, cached := range []bool{false, true} {
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.FromCache != cached || resp.Logprobs != want || resp.Logprobs.Mean() != -1 {
			t.Fatalf("cached=%v: got %+v, want logprobs %v", cached, resp, want)
		}
	}
	if got := srv.Requests()[0].Request.Logprobs; got == nil || !*got {
		t.Errorf("request did not ask for logprobs: %s", srv.Requests()[0].Raw)
	}

	// Not asked: not sent, none returned, and a separate cache entry.
	resp, err := c.Complete(context.Background(), ask("q"))
	if err != nil || resp.Logprobs != (llmfmt.Logprobs{}) || resp.FromCache {
		t.Fatalf("plain request: %+v, %v", resp, err)
	}
	if raw := string(srv.Requests()[1].Raw); strings.Contains(raw, "logprobs") {
		t.Errorf("plain request sent logprobs: %s", raw)
	}

	// An endpoint without the capability: a clear error and no call.
	plain := newClient(t, endpoint(srv, func(ep *llm.Endpoint) { ep.Name = "plain"; ep.Model = "other" }), llm.Options{})
	before := srv.Calls()
	_, err = plain.Complete(context.Background(), req)
	if llm.KindOf(err) != llm.KindBadRequest || !strings.Contains(err.Error(), "capabilities.logprobs") {
		t.Fatalf("got %v, want a bad request naming capabilities.logprobs", err)
	}
	if srv.Calls() != before {
		t.Error("a call was made")
	}
}
