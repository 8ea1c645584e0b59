package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestWireRequest checks the body the fake received, field by field.
func TestWireRequest(t *testing.T) {
	tests := []struct {
		name  string
		caps  llm.Capabilities
		samp  llmfmt.Sampling // endpoint defaults
		req   llm.Request
		check func(t *testing.T, q llmtest.ChatRequest, raw string)
	}{
		{
			name: "temperature 0 is sent",
			samp: llmfmt.Sampling{Temperature: new(0.0), TopP: new(1.0), MaxTokens: 64, Seed: new(7), Stop: []string{"###"}},
			req:  ask("hello"),
			check: func(t *testing.T, q llmtest.ChatRequest, raw string) {
				if q.Temperature == nil || *q.Temperature != 0 {
					t.Errorf("temperature = %v in %s", q.Temperature, raw)
				}
				if q.TopP == nil || *q.TopP != 1 {
					t.Errorf("top_p = %v", q.TopP)
				}
				if q.MaxTokens == nil || *q.MaxTokens != 64 || q.MaxCompletionTokens != nil {
					t.Errorf("max_tokens = %v, max_completion_tokens = %v", q.MaxTokens, q.MaxCompletionTokens)
				}
				if q.Seed == nil || *q.Seed != 7 {
					t.Errorf("seed = %v", q.Seed)
				}
				if len(q.Stop) != 1 || q.Stop[0] != "###" {
					t.Errorf("stop = %v", q.Stop)
				}
				if q.Model != "gpt-test" || q.ResponseFormat != nil {
					t.Errorf("model %q, response_format %+v", q.Model, q.ResponseFormat)
				}
			},
		},
		{
			name: "request overrides and sample index",
			samp: llmfmt.Sampling{Temperature: new(0.0), Seed: new(7), MaxTokens: 64},
			req: llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleSystem, Content: "be brief"}, {Role: llmfmt.RoleUser, Content: "hi"}},
				Sampling: llmfmt.Sampling{Temperature: new(0.7), MaxTokens: 9}, Sample: 3},
			check: func(t *testing.T, q llmtest.ChatRequest, raw string) {
				if q.Temperature == nil || *q.Temperature != 0.7 {
					t.Errorf("temperature = %v", q.Temperature)
				}
				if q.Seed == nil || *q.Seed != 10 {
					t.Errorf("seed = %v, want 7+3", q.Seed)
				}
				if *q.MaxTokens != 9 || len(q.Messages) != 2 || q.Messages[0].Role != "system" {
					t.Errorf("body %s", raw)
				}
			},
		},
		{
			name: "no temperature capability",
			caps: llm.Capabilities{NoTemperature: true, MaxCompletionTokens: true},
			samp: llmfmt.Sampling{MaxTokens: 100},
			req:  llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: "x"}}, Sampling: llmfmt.Sampling{Temperature: new(0.0), TopP: new(0.5)}},
			check: func(t *testing.T, q llmtest.ChatRequest, raw string) {
				if strings.Contains(raw, "temperature") || strings.Contains(raw, "top_p") {
					t.Errorf("sampling sent to a model without temperature: %s", raw)
				}
				if q.MaxCompletionTokens == nil || *q.MaxCompletionTokens != 100 || q.MaxTokens != nil {
					t.Errorf("max_completion_tokens = %v, max_tokens = %v", q.MaxCompletionTokens, q.MaxTokens)
				}
			},
		},
		{
			name: "json schema",
			caps: llm.Capabilities{JSONSchema: true, JSONObject: true},
			req:  llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: "judge"}}, Schema: verdictSchema},
			check: func(t *testing.T, q llmtest.ChatRequest, raw string) {
				f := q.ResponseFormat
				if f == nil || f.Type != "json_schema" || f.JSONSchema == nil || f.JSONSchema.Name != "verdict" || !f.JSONSchema.Strict {
					t.Fatalf("response_format in %s", raw)
				}
				var a, b any
				_ = json.Unmarshal(f.JSONSchema.Schema, &a)
				_ = json.Unmarshal(verdictSchema.Schema, &b)
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("schema sent %s", f.JSONSchema.Schema)
				}
			},
		},
		{
			name: "json object fallback",
			caps: llm.Capabilities{JSONObject: true},
			req:  llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: "Reply in JSON."}}, Schema: verdictSchema},
			check: func(t *testing.T, q llmtest.ChatRequest, raw string) {
				if q.ResponseFormat == nil || q.ResponseFormat.Type != "json_object" || q.ResponseFormat.JSONSchema != nil {
					t.Errorf("response_format in %s", raw)
				}
			},
		},
		{
			name: "no structured output",
			req:  llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: "judge"}}, Schema: verdictSchema},
			check: func(t *testing.T, q llmtest.ChatRequest, raw string) {
				if q.ResponseFormat != nil {
					t.Errorf("response_format sent without capability: %s", raw)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text(`{"verdict":"pass"}`)), llmtest.Options{APIKey: testKey})
			c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Capabilities, e.Sampling = tt.caps, tt.samp }), llm.Options{})
			if _, err := c.Complete(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			tt.check(t, reqs[0].Request, string(reqs[0].Raw))
		})
	}
}

// The real API refuses json_object mode unless the messages mention JSON;
// the fake does too, and the client reports it as the request's fault.
func TestJSONObjectNeedsTheWordJSON(t *testing.T) {
	srv := llmtest.New(llmtest.Fixed(llmtest.Text(`{}`)), llmtest.Options{})
	defer srv.Close()
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Capabilities.JSONObject = true }), llm.Options{})
	_, err := c.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: "judge"}}, Schema: verdictSchema})
	if k := llm.KindOf(err); k != llm.KindBadRequest || !k.RequestFault() {
		t.Fatalf("err = %v", err)
	}
	if len(srv.Problems()) != 1 {
		t.Errorf("problems = %v", srv.Problems())
	}
}

func TestAzure(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{APIKey: testKey})
	ep := llm.Endpoint{Name: "az", Kind: llm.KindAzure, BaseURL: srv.URL, Deployment: "judge-prod", APIVersion: "2024-10-21",
		Model: "gpt-4o-mini", APIKeyEnv: "LLMTEST_KEY", Sampling: llmfmt.Sampling{Temperature: new(0.0)}}
	c := newClient(t, ep, llm.Options{})
	resp, err := c.Complete(context.Background(), ask("hi"))
	if err != nil || resp.Text != "ok" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	call := srv.Requests()[0]
	if !call.Azure || call.Deployment != "judge-prod" || call.APIVersion != "2024-10-21" {
		t.Errorf("call = %+v", call)
	}
	if call.Request.Temperature == nil || *call.Request.Temperature != 0 {
		t.Errorf("temperature: %s", call.Raw)
	}
}

func TestWrongKeyIsAuth(t *testing.T) {
	srv := llmtest.New(llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{APIKey: "sk-the-right-one"})
	defer srv.Close()
	c := newClient(t, endpoint(srv, nil), llm.Options{})
	if _, err := c.Complete(context.Background(), ask("hi")); llm.KindOf(err) != llm.KindAuth {
		t.Fatalf("err = %v", err)
	}
	if srv.Calls() != 1 {
		t.Errorf("auth failure retried: %d calls", srv.Calls())
	}
}

func TestConcurrencyLimit(t *testing.T) {
	// The first three requests are answered once all three have arrived,
	// so the limit is reached however slowly a loaded machine starts the
	// callers (an event, not the 50 ms latency), and each reply's latency
	// gives a fourth request the chance to break the limit.
	h := llmtest.Together(3, llmtest.Fixed(llmtest.Text("ok")))
	srv := llmtest.Start(t, h, llmtest.Options{Latency: 50 * time.Millisecond})
	ep := endpoint(srv, func(e *llm.Endpoint) { e.Limits.Concurrency = 3 })
	// Two clients of the same endpoint share its limit.
	a := newClient(t, ep, llm.Options{})
	b := newClient(t, ep, llm.Options{})
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range 40 {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Go(func() {
			_, errs[i] = c.Complete(context.Background(), ask(fmt.Sprint("q", i)))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if srv.MaxInFlight() != 3 {
		t.Errorf("max in flight = %d, want exactly the limit 3", srv.MaxInFlight())
	}
}

// TestConflictingLimits: two live clients of one endpoint must agree on its
// limits; once every client of it is closed, it may be configured afresh.
func TestConflictingLimits(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	nine := endpoint(srv, func(e *llm.Endpoint) { e.Limits.Concurrency = 9 })
	a := newClient(t, endpoint(srv, nil), llm.Options{})
	b := newClient(t, endpoint(srv, nil), llm.Options{})
	_, err := llm.New(nine, llm.Options{Getenv: getenv})
	if err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("err = %v", err)
	}
	a.Close()
	a.Close() // idempotent: b still holds the endpoint
	if _, err := llm.New(nine, llm.Options{Getenv: getenv}); err == nil {
		t.Fatal("one client still open, yet other limits were accepted")
	}
	b.Close()
	c, err := llm.New(nine, llm.Options{Getenv: getenv})
	if err != nil {
		t.Fatalf("every client closed, new limits refused: %v", err)
	}
	c.Close()
}

// TestRequestsPerMinute: at 6 requests per minute the bucket holds one
// request and refills one every 10 s, so the second call must wait about
// 10 s. The sleeper records the wait and gives up instead of waiting.
func TestRequestsPerMinute(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return errors.New("stop waiting")
	}
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Limits.RPM = 6 }), llm.Options{Sleep: sleep})
	if _, err := c.Complete(context.Background(), ask("first")); err != nil || len(waits) != 0 {
		t.Fatalf("first call: err %v, waits %v", err, waits)
	}
	if _, err := c.Complete(context.Background(), ask("second")); llm.KindOf(err) != llm.KindCanceled || srv.Calls() != 1 {
		t.Fatalf("second call: err %v, server calls %d", err, srv.Calls())
	}
	if len(waits) != 1 || waits[0] < 8*time.Second || waits[0] > 10*time.Second {
		t.Errorf("waits = %v, want one of about 10s", waits)
	}
}

// TestTokensPerMinuteSettlesUsage: the first call is admitted on its
// estimate, but the server reports 20,000 tokens; the limiter takes the
// difference, so the next call must wait for the debt to refill.
func TestTokensPerMinuteSettlesUsage(t *testing.T) {
	r := llmtest.Text("ok")
	r.PromptTokens, r.CompletionTokens = 19000, 1000
	srv := llmtest.Start(t, llmtest.Fixed(r), llmtest.Options{})
	stop := errors.New("stop waiting")
	var waits []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return stop
	}
	// 60,000 per minute: 1,000 per second, a bucket of 10,000.
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Limits.TPM = 60000; e.Sampling.MaxTokens = 100 }), llm.Options{Sleep: sleep})
	if _, err := c.Complete(context.Background(), ask("first")); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 0 {
		t.Fatalf("first call waited %v", waits)
	}
	_, err := c.Complete(context.Background(), ask("second"))
	if llm.KindOf(err) != llm.KindCanceled || srv.Calls() != 1 {
		t.Fatalf("err = %v, calls %d", err, srv.Calls())
	}
	// Balance after the first call: 10,000 - 20,000 = -10,000; the second
	// needs ~110 tokens, so it waits about 10.1 s.
	if len(waits) != 1 || waits[0] < 10*time.Second || waits[0] > 10500*time.Millisecond {
		t.Errorf("waits = %v, want one of ~10.1s", waits)
	}
}

// go-openai refuses max_tokens for model ids that look like reasoning models;
// the client follows the endpoint's capabilities, not the name.
func TestCapabilitiesNotModelName(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) {
		e.Model = "o3-mini"
		e.Sampling = llmfmt.Sampling{Temperature: new(0.0), MaxTokens: 50}
	}), llm.Options{})
	if _, err := c.Complete(context.Background(), ask("x")); err != nil {
		t.Fatal(err)
	}
	q := srv.Requests()[0].Request
	if q.MaxTokens == nil || *q.MaxTokens != 50 || q.Temperature == nil {
		t.Errorf("body %s", srv.Requests()[0].Raw)
	}
}
