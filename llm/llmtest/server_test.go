package llmtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm/llmtest"
)

func post(t *testing.T, url string, header map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("reply is not JSON: %s", b)
	}
	return resp.StatusCode, out
}

const okBody = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

// The fake must reject what the real API rejects, so a client bug shows.
func TestValidation(t *testing.T) {
	srv := llmtest.New(llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	defer srv.Close()
	bearer := map[string]string{"Authorization": "Bearer sk-x"}
	tests := []struct {
		name   string
		path   string
		header map[string]string
		body   string
		status int
		msg    string
	}{
		{"ok", "/v1/chat/completions", bearer, okBody, 200, ""},
		{"no key", "/v1/chat/completions", nil, okBody, 401, "API key"},
		{"empty bearer", "/v1/chat/completions", map[string]string{"Authorization": "Bearer "}, okBody, 401, "API key"},
		{"wrong path", "/v1/completions", bearer, okBody, 404, "Invalid URL"},
		{"no model", "/v1/chat/completions", bearer, `{"messages":[{"role":"user","content":"hi"}]}`, 400, "model"},
		{"no messages", "/v1/chat/completions", bearer, `{"model":"m","messages":[]}`, 400, "too short"},
		{"bad role", "/v1/chat/completions", bearer, `{"model":"m","messages":[{"role":"bot","content":"hi"}]}`, 400, "Supported values"},
		{"not json", "/v1/chat/completions", bearer, `{"model":`, 400, "parse"},
		{"temperature", "/v1/chat/completions", bearer, `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":3}`, 400, "temperature"},
		{"json_object without json", "/v1/chat/completions", bearer, `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`, 400, "json"},
		{"schema without name", "/v1/chat/completions", bearer, `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}`, 400, "name"},
		{"azure ok", "/openai/deployments/d1/chat/completions?api-version=2024-10-21", map[string]string{"api-key": "k"}, okBody, 200, ""},
		{"azure without key", "/openai/deployments/d1/chat/completions?api-version=2024-10-21", bearer, okBody, 401, "subscription key"},
		{"azure without version", "/openai/deployments/d1/chat/completions", map[string]string{"api-key": "k"}, okBody, 404, "api-version"},
	}
	for _, tt := range tests {
		status, out := post(t, srv.URL+tt.path, tt.header, tt.body)
		if status != tt.status {
			t.Errorf("%s: status %d, want %d (%v)", tt.name, status, tt.status, out)
			continue
		}
		if tt.status == 200 {
			if out["object"] != "chat.completion" || len(out["choices"].([]any)) != 1 {
				t.Errorf("%s: reply %v", tt.name, out)
			}
			continue
		}
		e, _ := out["error"].(map[string]any)
		if msg, _ := e["message"].(string); !strings.Contains(msg, tt.msg) {
			t.Errorf("%s: error %v lacks %q", tt.name, out, tt.msg)
		}
		if _, ok := e["code"]; !ok {
			t.Errorf("%s: error envelope without code: %v", tt.name, out)
		}
	}
	if got, want := len(srv.Problems()), len(tests)-2; got != want {
		t.Errorf("%d problems recorded, want %d: %v", got, want, srv.Problems())
	}
	if got := len(srv.Requests()); got != 2 {
		t.Errorf("%d valid requests recorded, want 2", got)
	}
	if srv.Calls() != len(tests) {
		t.Errorf("calls = %d, want %d", srv.Calls(), len(tests))
	}
}

func TestScripts(t *testing.T) {
	h := llmtest.ByPrompt(llmtest.Fixed(llmtest.Text("default")),
		llmtest.Match("fix", llmtest.Queue(llmtest.Text("fix 1"), llmtest.Text("fix 2"))),
		llmtest.Match("busy", llmtest.Then(llmtest.Fixed(llmtest.Text("free")), llmtest.RateLimited("7"))),
	)
	srv := llmtest.Start(t, h, llmtest.Options{})
	bearer := map[string]string{"Authorization": "Bearer sk-x"}
	body := func(p string) string {
		return `{"model":"m","messages":[{"role":"user","content":"` + p + `"}],"stop":"END"}`
	}
	content := func(out map[string]any) string {
		return out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	}
	for _, step := range []struct{ prompt, want string }{
		{"hello", "default"}, {"please fix", "fix 1"}, {"fix again", "fix 2"}, {"busy?", "429"}, {"busy?", "free"},
	} {
		status, out := post(t, srv.OpenAIBaseURL()+"/chat/completions", bearer, body(step.prompt))
		got := ""
		if status == 200 {
			got = content(out)
		} else {
			got = fmt.Sprint(status)
		}
		if got != step.want {
			t.Errorf("%q: got %q, want %q", step.prompt, got, step.want)
		}
	}
	status, out := post(t, srv.OpenAIBaseURL()+"/chat/completions", bearer, body("fix 3"))
	if status != 500 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "exhausted") {
		t.Errorf("exhausted queue: %d %v", status, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 || len(reqs[0].Request.Stop) != 1 || reqs[0].Request.Stop[0] != "END" || reqs[0].LastUser() != "hello" {
		t.Errorf("requests %+v", reqs)
	}
}

func TestMaxInFlightAndLatency(t *testing.T) {
	// Each request is answered once all five have arrived (an event: a
	// loaded machine may start the senders slowly), so five are in flight
	// together.
	srv := llmtest.Start(t, llmtest.Together(5, llmtest.Fixed(llmtest.Text("ok"))), llmtest.Options{Latency: 200 * time.Millisecond})
	bearer := map[string]string{"Authorization": "Bearer sk-x"}
	start := time.Now()
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { post(t, srv.OpenAIBaseURL()+"/chat/completions", bearer, okBody) })
	}
	wg.Wait()
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Errorf("latency not applied: %v", el)
	}
	if srv.MaxInFlight() != 5 {
		t.Errorf("max in flight = %d, want 5", srv.MaxInFlight())
	}
}

// A client that goes away mid-body (a cancelled context does this) is not a
// protocol violation: the fake neither records a problem nor a call.
func TestBodyCutShort(t *testing.T) {
	srv := llmtest.New(llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	defer srv.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk-x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(okBody), okBody[:10])
	conn.Close()
	deadline := time.Now().Add(5 * time.Minute) // a guard against a hang, not a measure
	for srv.Aborted() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if srv.Aborted() != 1 || len(srv.Problems()) != 0 || len(srv.Requests()) != 0 {
		t.Errorf("aborted %d, problems %v, requests %d", srv.Aborted(), srv.Problems(), len(srv.Requests()))
	}
}

// TestInflateAndBilled: Inflate reports factor x max_tokens, only on
// successful replies, and Billed counts each reply the server produced,
// including one whose client went away before it arrived.
func TestInflateAndBilled(t *testing.T) {
	r := llmtest.Text("ok")
	r.PromptTokens = 10
	srv := llmtest.Start(t, llmtest.Inflate(llmtest.Then(llmtest.Fixed(r), llmtest.ServerError(500)), 3), llmtest.Options{})
	bearer := map[string]string{"Authorization": "Bearer sk-x"}
	url := srv.OpenAIBaseURL() + "/chat/completions"
	capped := `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":7}`
	for _, tc := range []struct {
		body           string
		status, pt, ct int
	}{
		{capped, 500, 0, 0},   // an error is not billed
		{capped, 200, 10, 21}, // 3 x max_tokens
		{`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":5}`, 200, 10, 15},
		{okBody, 200, 10, 1}, // no cap: the reply's own count
	} {
		bp, bc := srv.Billed()
		status, got := post(t, url, bearer, tc.body)
		if status != tc.status {
			t.Fatalf("%s: status %d, want %d", tc.body, status, tc.status)
		}
		if status == 200 {
			u := got["usage"].(map[string]any)
			if int(u["prompt_tokens"].(float64)) != tc.pt || int(u["completion_tokens"].(float64)) != tc.ct {
				t.Errorf("%s: usage %v, want %d and %d", tc.body, u, tc.pt, tc.ct)
			}
		}
		if p, c := srv.Billed(); p-bp != tc.pt || c-bc != tc.ct {
			t.Errorf("%s: billed %d and %d, want %d and %d", tc.body, p-bp, c-bc, tc.pt, tc.ct)
		}
	}

	// A client that gives up while the reply is being generated is billed.
	// The client gives up once the server holds its request (an event: a
	// fixed timeout may end before a loaded machine delivers it).
	slow := llmtest.Start(t, llmtest.Fixed(r), llmtest.Options{Latency: time.Hour})
	ctx, cancel := slow.Timeouts()(context.Background(), 0)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, slow.OpenAIBaseURL()+"/chat/completions", strings.NewReader(capped))
	req.Header.Set("Authorization", "Bearer sk-x")
	req.Header.Set("Content-Type", "application/json")
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("the slow reply arrived")
	}
	if p, c := slow.Billed(); p != 10 || c != 1 {
		t.Errorf("abandoned reply billed %d and %d, want 10 and 1", p, c)
	}
}
