package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// testKey is deliberately distinctive so that leak checks can grep for it.
const testKey = "sk-llmtest-7c1e9f0a-DO-NOT-LEAK"

func getenv(name string) string {
	if name == "LLMTEST_KEY" {
		return testKey
	}
	return ""
}

// endpoint is an OpenAI-kind endpoint on srv with short, test-sized delays.
func endpoint(srv *llmtest.Server, mod func(*llm.Endpoint)) llm.Endpoint {
	ep := llm.Endpoint{
		Name: "fake", Kind: llm.KindOpenAI, BaseURL: srv.OpenAIBaseURL(), Model: "gpt-test", APIKeyEnv: "LLMTEST_KEY",
		Limits: llm.Limits{Concurrency: 4, Timeout: 5 * time.Second},
		Retry:  llm.Retry{MaxAttempts: 4, Budget: time.Hour, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second},
	}
	if mod != nil {
		mod(&ep)
	}
	return ep
}

func newClient(t testing.TB, ep llm.Endpoint, opts llm.Options) *llm.Client {
	t.Helper()
	if opts.Getenv == nil {
		opts.Getenv = getenv
	}
	c, err := llm.New(ep, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func ask(prompt string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: prompt}}}
}

var verdictSchema = &llm.Schema{Name: "verdict", Strict: true, Schema: json.RawMessage(
	`{"type":"object","properties":{"verdict":{"type":"string","enum":["pass","fail"]}},"required":["verdict"],"additionalProperties":false}`)}

func TestFaults(t *testing.T) {
	ok := llmtest.Text(`{"verdict":"pass"}`)
	httpDate := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name      string
		script    []llmtest.Reply // then ok forever
		forever   *llmtest.Reply  // instead of ok
		schema    bool
		mod       func(*llm.Endpoint)
		wantKind  llm.ErrorKind // "" = success
		wantCalls int
		minWait   time.Duration // some recorded wait must be at least this (Retry-After)
	}{
		{name: "success", wantCalls: 1},
		{name: "429 Retry-After seconds", script: []llmtest.Reply{llmtest.RateLimited("2")}, wantCalls: 2, minWait: 2 * time.Second},
		{name: "429 Retry-After HTTP-date", script: []llmtest.Reply{llmtest.RateLimited(httpDate)}, wantCalls: 2, minWait: time.Second},
		{name: "429 retry-after-ms", script: []llmtest.Reply{llmtest.RateLimitedMs(1500)}, wantCalls: 2, minWait: 1500 * time.Millisecond},
		{name: "429 forever", forever: new(llmtest.RateLimited("1")), wantKind: llm.KindRateLimited, wantCalls: 4, minWait: time.Second},
		{name: "429 quota not retried", forever: new(llmtest.QuotaExceeded()), wantKind: llm.KindQuota, wantCalls: 1},
		{name: "500", script: []llmtest.Reply{llmtest.ServerError(500)}, wantCalls: 2},
		{name: "502 503", script: []llmtest.Reply{llmtest.ServerError(502), llmtest.ServerError(503)}, wantCalls: 3},
		{name: "503 forever", forever: new(llmtest.ServerError(503)), wantKind: llm.KindServer, wantCalls: 4},
		{name: "timeout", script: []llmtest.Reply{llmtest.Hang()}, wantCalls: 2},
		{name: "timeout forever", forever: new(llmtest.Hang()), wantKind: llm.KindTimeout, wantCalls: 2,
			mod: func(e *llm.Endpoint) { e.Retry.MaxAttempts = 2 }},
		{name: "disconnect", script: []llmtest.Reply{llmtest.Broken(llmtest.Disconnect)}, wantCalls: 2},
		{name: "disconnect forever", forever: new(llmtest.Broken(llmtest.Disconnect)), wantKind: llm.KindNetwork, wantCalls: 4},
		{name: "truncated JSON", script: []llmtest.Reply{llmtest.Broken(llmtest.Truncated)}, wantCalls: 2},
		{name: "body cut off", script: []llmtest.Reply{llmtest.Broken(llmtest.CutOff)}, wantCalls: 2},
		{name: "malformed JSON", script: []llmtest.Reply{llmtest.Broken(llmtest.Malformed)}, wantCalls: 2},
		{name: "empty choices", script: []llmtest.Reply{llmtest.Broken(llmtest.NoChoices)}, wantCalls: 2},
		{name: "truncated forever", forever: new(llmtest.Broken(llmtest.Truncated)), wantKind: llm.KindMalformed, wantCalls: 4},
		{name: "cut off forever", forever: new(llmtest.Broken(llmtest.CutOff)), wantKind: llm.KindMalformed, wantCalls: 4},
		{name: "malformed forever", forever: new(llmtest.Broken(llmtest.Malformed)), wantKind: llm.KindMalformed, wantCalls: 4},
		{name: "no choices forever", forever: new(llmtest.Broken(llmtest.NoChoices)), wantKind: llm.KindMalformed, wantCalls: 4},
		{name: "prose instead of JSON", schema: true, forever: new(llmtest.Text("Score: 1")), wantKind: llm.KindMalformed, wantCalls: 4},
		{name: "prose then JSON", schema: true, script: []llmtest.Reply{llmtest.Text("The answer passes. Score: 1")}, wantCalls: 2},
		{name: "length with schema", schema: true, forever: new(llmtest.Length(`{"verdict":"pa`)), wantKind: llm.KindMalformed, wantCalls: 4},
		{name: "context length not retried", forever: new(llmtest.ContextLengthExceeded()), wantKind: llm.KindContextLength, wantCalls: 1},
		{name: "400 not retried", forever: new(llmtest.HTTPError(400, "invalid_value", "bad")), wantKind: llm.KindBadRequest, wantCalls: 1},
		{name: "401 not retried", forever: new(llmtest.HTTPError(401, "invalid_api_key", "Incorrect API key provided")), wantKind: llm.KindAuth, wantCalls: 1},
		{name: "403 not retried", forever: new(llmtest.HTTPError(403, "", "forbidden")), wantKind: llm.KindAuth, wantCalls: 1},
		{name: "404 not retried", forever: new(llmtest.HTTPError(404, "model_not_found", "The model does not exist")), wantKind: llm.KindBadRequest, wantCalls: 1},
		{name: "retry budget", forever: new(llmtest.RateLimited("120")), wantKind: llm.KindRateLimited, wantCalls: 1,
			mod: func(e *llm.Endpoint) { e.Retry.Budget = 10 * time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rest := ok
			if tt.forever != nil {
				rest = *tt.forever
			}
			srv := llmtest.Start(t, llmtest.Then(llmtest.Fixed(rest), tt.script...), llmtest.Options{})
			var sl llmtest.Sleeper
			// An attempt times out when the server hangs on it, however
			// long a loaded machine takes to deliver it.
			c := newClient(t, endpoint(srv, tt.mod), llm.Options{Sleep: sl.Sleep, WithTimeout: srv.Timeouts()})
			req := ask("Judge this. Answer in JSON.")
			if tt.schema {
				req.Schema = verdictSchema
			}
			resp, err := c.Complete(context.Background(), req)
			t.Logf("err: %v", err)
			if got := llm.KindOf(err); got != tt.wantKind {
				t.Fatalf("kind = %q, want %q (err %v)", got, tt.wantKind, err)
			}
			if got := srv.Calls(); got != tt.wantCalls {
				t.Errorf("server saw %d calls, want %d", got, tt.wantCalls)
			}
			if err != nil {
				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %T is not *llm.Error", err)
				}
				if e.Attempts != tt.wantCalls {
					t.Errorf("Error.Attempts = %d, want %d", e.Attempts, tt.wantCalls)
				}
				if resp != (llm.Response{}) {
					t.Errorf("a failed call returned a response: %+v", resp)
				}
				if e.Kind.Retryable() == (tt.wantCalls == 1 && tt.name != "retry budget") {
					t.Errorf("kind %s retryable=%v but %d calls were made", e.Kind, e.Kind.Retryable(), tt.wantCalls)
				}
			} else {
				if resp.Text != `{"verdict":"pass"}` {
					t.Errorf("text = %q", resp.Text)
				}
				if resp.Attempts != tt.wantCalls {
					t.Errorf("Attempts = %d, want %d", resp.Attempts, tt.wantCalls)
				}
			}
			waits := sl.Waits()
			if len(waits) != tt.wantCalls-1 && err == nil {
				t.Errorf("%d waits for %d calls: %v", len(waits), tt.wantCalls, waits)
			}
			if tt.minWait > 0 {
				for _, w := range waits {
					if w < tt.minWait {
						t.Errorf("waited %v, less than Retry-After %v", w, tt.minWait)
					}
				}
				if len(waits) == 0 && tt.wantCalls > 1 {
					t.Error("no wait recorded")
				}
			}
			for _, w := range waits {
				if tt.minWait == 0 && w > time.Second {
					t.Errorf("backoff %v above max_delay", w)
				}
			}
		})
	}
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.ServerError(500)), llmtest.Options{})
	var sl llmtest.Sleeper
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) {
		e.Retry = llm.Retry{MaxAttempts: 8, Budget: time.Hour, BaseDelay: 100 * time.Millisecond, MaxDelay: 800 * time.Millisecond}
	}), llm.Options{Sleep: sl.Sleep})
	// Many calls so the jitter's spread shows.
	var sum [7]time.Duration
	const calls = 30
	for range calls {
		sl = llmtest.Sleeper{}
		_, err := c.Complete(context.Background(), ask("x"))
		if llm.KindOf(err) != llm.KindServer {
			t.Fatalf("err = %v", err)
		}
		w := sl.Waits()
		if len(w) != 7 {
			t.Fatalf("%d waits, want 7", len(w))
		}
		for i, d := range w {
			ceil := min(100*time.Millisecond<<i, 800*time.Millisecond)
			if d < 0 || d > ceil {
				t.Errorf("wait %d = %v outside [0, %v]", i, d, ceil)
			}
			sum[i] += d
		}
	}
	// Full jitter averages half the ceiling: the mean of the last waits must
	// clearly exceed the first's.
	if sum[6] <= sum[0]*2 {
		t.Errorf("mean waits do not grow: first %v, last %v", sum[0]/calls, sum[6]/calls)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := llmtest.New(llmtest.Fixed(llmtest.Text("x")), llmtest.Options{})
	ep := endpoint(srv, nil)
	srv.Close()
	var sl llmtest.Sleeper
	c := newClient(t, ep, llm.Options{Sleep: sl.Sleep})
	_, err := c.Complete(context.Background(), ask("x"))
	if llm.KindOf(err) != llm.KindNetwork {
		t.Fatalf("err = %v, want network", err)
	}
	if len(sl.Waits()) != 3 {
		t.Errorf("waits = %v, want 3 retries", sl.Waits())
	}
}

func TestCanceled(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Hang()), llmtest.Options{})
	c := newClient(t, endpoint(srv, nil), llm.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Calls() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Complete(ctx, ask("x"))
	if llm.KindOf(err) != llm.KindCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled wrapping context.Canceled", err)
	}
	if srv.Calls() != 1 {
		t.Errorf("calls = %d, want 1 (no retry after cancel)", srv.Calls())
	}
}

func TestLengthWithoutSchemaIsAReply(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Length("SELECT subject_id FROM")), llmtest.Options{})
	c := newClient(t, endpoint(srv, nil), llm.Options{})
	resp, err := c.Complete(context.Background(), ask("write SQL"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "length" || resp.Text != "SELECT subject_id FROM" {
		t.Errorf("resp = %+v", resp)
	}
}

func TestValidateRejects(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Queue(llmtest.JSON(map[string]string{"verdict": "maybe"}), llmtest.JSON(map[string]string{"verdict": "fail"})), llmtest.Options{})
	var sl llmtest.Sleeper
	c := newClient(t, endpoint(srv, nil), llm.Options{Sleep: sl.Sleep})
	req := ask("json please")
	req.Schema = verdictSchema
	req.Validate = func(text string) error {
		var v struct{ Verdict string }
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return err
		}
		if v.Verdict != "pass" && v.Verdict != "fail" {
			return errors.New("verdict must be pass or fail")
		}
		return nil
	}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `{"verdict":"fail"}` || resp.Attempts != 2 {
		t.Errorf("resp = %+v", resp)
	}
}

func TestErrorUsageCountsMalformedReplies(t *testing.T) {
	r := llmtest.Text("not json")
	r.PromptTokens, r.CompletionTokens = 100, 7
	srv := llmtest.Start(t, llmtest.Fixed(r), llmtest.Options{})
	var sl llmtest.Sleeper
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Retry.MaxAttempts = 3 }), llm.Options{Sleep: sl.Sleep})
	req := ask("json")
	req.Schema = verdictSchema
	_, err := c.Complete(context.Background(), req)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.KindMalformed {
		t.Fatalf("err = %v", err)
	}
	if e.Usage != (llm.Usage{PromptTokens: 300, CompletionTokens: 21}) {
		t.Errorf("usage = %+v, want 3 attempts' worth", e.Usage)
	}
	if !strings.Contains(e.Error(), "malformed_reply") || !strings.Contains(e.Error(), "3 attempts") {
		t.Errorf("message %q", e.Error())
	}
}

func TestRequestChecks(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("x")), llmtest.Options{})
	c := newClient(t, endpoint(srv, nil), llm.Options{})
	for name, req := range map[string]llm.Request{
		"no messages":  {},
		"bad role":     {Messages: []llm.Message{{Role: "robot", Content: "x"}}},
		"bad schema":   {Messages: []llm.Message{{Role: "user", Content: "x"}}, Schema: &llm.Schema{Name: "v", Schema: json.RawMessage(`[1]`)}},
		"schema name":  {Messages: []llm.Message{{Role: "user", Content: "x"}}, Schema: &llm.Schema{Name: "a b", Schema: json.RawMessage(`{}`)}},
		"temperature":  {Messages: []llm.Message{{Role: "user", Content: "x"}}, Sampling: llmfmt.Sampling{Temperature: new(3.0)}},
		"negative idx": {Messages: []llm.Message{{Role: "user", Content: "x"}}, Sample: -1},
	} {
		if _, err := c.Complete(context.Background(), req); llm.KindOf(err) != llm.KindBadRequest {
			t.Errorf("%s: err = %v, want bad_request", name, err)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("invalid requests reached the server %d times", srv.Calls())
	}
}

func TestMissingKey(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("x")), llmtest.Options{})
	ep := endpoint(srv, func(e *llm.Endpoint) { e.APIKeyEnv = "LLMTEST_UNSET_VARIABLE" })
	_, err := llm.New(ep, llm.Options{Getenv: getenv})
	if llm.KindOf(err) != llm.KindAuth || !strings.Contains(err.Error(), "LLMTEST_UNSET_VARIABLE") {
		t.Fatalf("err = %v", err)
	}
}
