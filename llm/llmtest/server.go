package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Options configure a fake server.
type Options struct {
	// Latency is added to every request before its reply is written (a
	// Reply's own Delay comes on top).
	Latency time.Duration
	// APIKey, if set, must be the key the client sends; otherwise any
	// non-empty key is accepted.
	APIKey string
	// Batches scripts the batch API (see [BatchScript]): the script of the
	// i-th batch created (from 0) holding n requests. nil: every batch goes
	// validating, in_progress, finalizing, completed.
	Batches func(i, n int) BatchScript
	// BatchFaults fails the first n calls of a batch API operation
	// ("upload", "create", "retrieve", "content") with a 500. A failed
	// create has created its batch all the same (the reply was lost), as
	// a provider may. "content-garbled" answers the first n downloads of a
	// file with 200 and a body that is not the file.
	BatchFaults map[string]int
}

// Server is a fake chat-completions server. Create it with [New] or [Start].
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:40123. An OpenAI-kind
	// client uses URL+"/v1" (see [Server.OpenAIBaseURL]); an Azure-kind
	// client uses URL itself.
	URL string

	h       Handler
	opts    Options
	ts      *httptest.Server
	closing chan struct{}
	once    sync.Once

	seq      atomic.Int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	aborted  atomic.Int64

	billedPrompt, billedCompletion atomic.Int64

	mu       sync.Mutex
	calls    []Call
	problems []string

	bmu     sync.Mutex
	files   map[string]*fakeFile
	batches []*fakeBatch
	faulted map[string]int

	held holds // requests held (Timeouts)

	omu     sync.Mutex
	outage  *Reply // Down
	refused bool   // Refuse
}

// New starts a server answering with h. Close it when done.
func New(h Handler, opts Options) *Server {
	s := &Server{h: h, opts: opts, closing: make(chan struct{})}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.ts.URL
	return s
}

// Start is [New] for tests: the server is closed when the test ends, and any
// request that broke the protocol (a client bug) fails the test.
func Start(t testing.TB, h Handler, opts Options) *Server {
	t.Helper()
	s := New(h, opts)
	t.Cleanup(func() {
		s.Close()
		for _, p := range s.Problems() {
			t.Errorf("llmtest: client broke the protocol: %s", p)
		}
	})
	return s
}

// OpenAIBaseURL is the base URL an OpenAI-kind client is configured with.
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// Close stops the server; requests still waiting are abandoned.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.ts.Close()
	})
}

// Calls is the number of requests received, valid or not.
func (s *Server) Calls() int { return int(s.seq.Load()) }

// Requests returns the valid requests received, in arrival order.
func (s *Server) Requests() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// MaxInFlight is the largest number of requests the server was handling at
// the same time.
func (s *Server) MaxInFlight() int { return int(s.maxIn.Load()) }

// Problems lists the protocol violations seen: requests the real API would
// have rejected with a 4xx because the client built them wrongly.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// Billed is the usage of every successful reply the server produced, as a
// provider bills it: counted when the reply is decided, so a reply whose
// client went away (a killed process) before it arrived is billed too.
func (s *Server) Billed() (promptTokens, completionTokens int) {
	return int(s.billedPrompt.Load()), int(s.billedCompletion.Load())
}

// WaitIdle waits until the server is handling no request, or timeout
// passes; it reports whether the server is idle. After a client is killed,
// its requests end as their connections close, and [Server.Billed] is
// final once the server is idle.
func (s *Server) WaitIdle(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for s.inFlight.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// statusClientClosed marks a request whose client went away before its body
// arrived (nginx logs these as 499). It is never written to the wire.
const statusClientClosed = 499

// Aborted is the number of requests whose body was cut short because the
// client went away; they are neither calls nor protocol problems.
func (s *Server) Aborted() int { return int(s.aborted.Load()) }

var azurePath = regexp.MustCompile(`^/openai/deployments/([^/]+)/chat/completions$`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	seq := int(s.seq.Add(1))
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxIn.Load()
		if n <= m || s.maxIn.CompareAndSwap(m, n) {
			break
		}
	}

	if s.down(w, r) || s.batchAPI(w, r) {
		return
	}
	call, status, apiErr := s.decode(r)
	if status == statusClientClosed {
		s.aborted.Add(1)
		return
	}
	if apiErr != nil {
		s.mu.Lock()
		s.problems = append(s.problems, fmt.Sprintf("request %d %s %s: HTTP %d: %s", seq, r.Method, r.URL.Path, status, apiErr.Message))
		s.mu.Unlock()
		writeError(w, status, *apiErr, nil)
		return
	}
	call.Seq = seq
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()

	reply := s.h(&call)
	if reply.Status == 0 || reply.Status == http.StatusOK {
		pt, ct := reply.usage(&call)
		s.billedPrompt.Add(int64(pt))
		s.billedCompletion.Add(int64(ct))
	}
	if !s.wait(r, s.opts.Latency+reply.Delay) {
		return // the client gave up or the server is closing
	}
	s.write(w, &call, reply)
}

// wait sleeps d unless the client goes away or the server closes first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	s.held.signal()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

// decode validates the request the way the real API does and returns the
// error reply it would send.
func (s *Server) decode(r *http.Request) (Call, int, *APIError) {
	var c Call
	invalid := func(status int, msg, param, code string) (Call, int, *APIError) {
		return c, status, &APIError{Message: msg, Type: "invalid_request_error", Param: param, Code: code}
	}
	if r.Method != http.MethodPost {
		return invalid(http.StatusMethodNotAllowed, "method "+r.Method+" not allowed", "", "")
	}
	c.Path = r.URL.Path
	key := ""
	switch {
	case r.URL.Path == "/v1/chat/completions":
		auth := r.Header.Get("Authorization")
		if !strings.HasPrefix(auth, "Bearer ") || strings.TrimSpace(strings.TrimPrefix(auth, "Bearer ")) == "" {
			return invalid(http.StatusUnauthorized, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", "", "missing_api_key")
		}
		key = strings.TrimPrefix(auth, "Bearer ")
	case azurePath.MatchString(r.URL.Path):
		c.Azure = true
		c.Deployment = azurePath.FindStringSubmatch(r.URL.Path)[1]
		c.APIVersion = r.URL.Query().Get("api-version")
		if c.APIVersion == "" {
			return invalid(http.StatusNotFound, "Resource not found (the api-version query parameter is missing)", "", "404")
		}
		key = r.Header.Get("api-key")
		if key == "" {
			return invalid(http.StatusUnauthorized, "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.", "", "401")
		}
	default:
		return invalid(http.StatusNotFound, "Invalid URL (POST "+r.URL.Path+")", "", "")
	}
	if s.opts.APIKey != "" && key != s.opts.APIKey {
		return invalid(http.StatusUnauthorized, "Incorrect API key provided.", "", "invalid_api_key")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return invalid(http.StatusBadRequest, "Content-Type must be application/json, got "+ct, "", "")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		// A body cut short is a client that went away mid-send (a cancelled
		// context does this), not a malformed request: nothing to answer.
		return c, statusClientClosed, nil
	}
	status, apiErr := checkBody(&c, body)
	return c, status, apiErr
}

// checkBody parses and validates a chat-completions body the way the real
// API does (online, or one line of a batch file).
func checkBody(c *Call, body []byte) (int, *APIError) {
	invalid := func(status int, msg, param, code string) (int, *APIError) {
		return status, &APIError{Message: msg, Type: "invalid_request_error", Param: param, Code: code}
	}
	c.Raw = body
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&c.Request); err != nil {
		return invalid(http.StatusBadRequest, "We could not parse the JSON body of your request: "+err.Error(), "", "")
	}
	q := &c.Request
	if q.Model == "" && !c.Azure {
		return invalid(http.StatusBadRequest, "you must provide a model parameter", "model", "")
	}
	if len(q.Messages) == 0 {
		return invalid(http.StatusBadRequest, "[] is too short - 'messages'", "messages", "")
	}
	for i, m := range q.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant":
		default:
			return invalid(http.StatusBadRequest, fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'developer', 'user', 'assistant'.", m.Role), fmt.Sprintf("messages[%d].role", i), "invalid_value")
		}
	}
	if q.Stream {
		return invalid(http.StatusBadRequest, "llmtest does not stream", "stream", "")
	}
	if t := q.Temperature; t != nil && (*t < 0 || *t > 2) {
		return invalid(http.StatusBadRequest, fmt.Sprintf("%v is greater than the maximum of 2 - 'temperature'", *t), "temperature", "")
	}
	if p := q.TopP; p != nil && (*p < 0 || *p > 1) {
		return invalid(http.StatusBadRequest, fmt.Sprintf("%v is greater than the maximum of 1 - 'top_p'", *p), "top_p", "")
	}
	if m := q.MaxTokens; m != nil && *m < 1 {
		return invalid(http.StatusBadRequest, "max_tokens must be at least 1", "max_tokens", "")
	}
	if m := q.MaxCompletionTokens; m != nil && *m < 1 {
		return invalid(http.StatusBadRequest, "max_completion_tokens must be at least 1", "max_completion_tokens", "")
	}
	if q.TopLogprobs != nil && (q.Logprobs == nil || !*q.Logprobs) {
		return invalid(http.StatusBadRequest, "logprobs must be set to true when top_logprobs is set", "top_logprobs", "")
	}
	if len(q.Stop) > 4 {
		return invalid(http.StatusBadRequest, "stop has more than 4 sequences", "stop", "")
	}
	if f := q.ResponseFormat; f != nil {
		switch f.Type {
		case "text":
		case "json_object":
			if !strings.Contains(strings.ToLower(c.Prompt()), "json") {
				return invalid(http.StatusBadRequest, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages", "")
			}
		case "json_schema":
			if f.JSONSchema == nil || f.JSONSchema.Name == "" {
				return invalid(http.StatusBadRequest, "Missing required parameter: 'response_format.json_schema.name'.", "response_format.json_schema.name", "missing_required_parameter")
			}
			var obj map[string]any
			if json.Unmarshal(f.JSONSchema.Schema, &obj) != nil {
				return invalid(http.StatusBadRequest, "Invalid schema for response_format: schema must be a JSON object.", "response_format.json_schema.schema", "invalid_json_schema")
			}
		default:
			return invalid(http.StatusBadRequest, fmt.Sprintf("Invalid value: '%s'. Supported values are: 'json_object', 'json_schema', and 'text'.", f.Type), "response_format.type", "invalid_value")
		}
	}
	return http.StatusOK, nil
}

// write sends reply as the real API would, or breaks it as asked.
func (s *Server) write(w http.ResponseWriter, c *Call, reply Reply) {
	if reply.Status != 0 && reply.Status != http.StatusOK {
		e := reply.Error
		if e.Message == "" {
			e.Message = http.StatusText(reply.Status)
		}
		writeError(w, reply.Status, e, reply.Header)
		return
	}
	for k, vs := range reply.Header {
		w.Header()[k] = vs
	}
	body := completionBody(c, reply)
	switch reply.Fault {
	case Truncated:
		body = body[:len(body)/2]
	case Malformed:
		body = []byte(`{"id":"chatcmpl-llmtest","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":` + "\n<html><body>502 Bad Gateway</body></html>")
	case Disconnect:
		// Abort before anything is written: the client sees the connection
		// close without a reply.
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Type", "application/json")
	if reply.Fault == CutOff {
		// Promise the whole body, send half, then drop the connection.
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// completionBody is the JSON completion answering c with a successful
// reply (NoChoices applied; the other faults break the wire, not the body).
func completionBody(c *Call, reply Reply) []byte {
	model := c.Request.Model
	if c.Azure && model == "" {
		model = c.Deployment
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	pt, ct := reply.usage(c)
	resp := completion{
		ID: fmt.Sprintf("chatcmpl-llmtest-%d", c.Seq), Object: "chat.completion", Created: time.Now().Unix(), Model: model,
		Choices: []choice{{Index: 0, Message: Message{Role: "assistant", Content: reply.Content}, FinishReason: finish}},
		Usage:   usage{PromptTokens: pt, CompletionTokens: ct, TotalTokens: pt + ct},
	}
	if q := c.Request.Logprobs; q != nil && *q && len(resp.Choices) > 0 {
		resp.Choices[0].Logprobs = logprobsFor(reply.Content, reply.Logprob, reply.TokenLogprobs)
	}
	if reply.Fault == NoChoices {
		resp.Choices = []choice{}
	}
	body, _ := json.Marshal(resp)
	return body
}

// usage is the token counts the reply reports: its own, or estimated from
// the text.
func (r Reply) usage(c *Call) (pt, ct int) {
	pt, ct = r.PromptTokens, r.CompletionTokens
	if pt == 0 {
		pt = 1 + len(c.Prompt())/4
	}
	if ct == 0 {
		ct = 1 + len(r.Content)/4
	}
	return pt, ct
}

func writeError(w http.ResponseWriter, status int, e APIError, header http.Header) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	if e.Type == "" {
		e.Type = "invalid_request_error"
		if status >= 500 {
			e.Type = "server_error"
		}
	}
	body, _ := json.Marshal(struct {
		Error APIError `json:"error"`
	}{e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
