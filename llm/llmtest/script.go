package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Handler decides the reply to one request. It is called concurrently.
type Handler func(c *Call) Reply

// Fault breaks an otherwise successful (HTTP 200) reply.
type Fault int

const (
	NoFault    Fault = iota
	Truncated        // the JSON body cut in half, with a matching Content-Length
	CutOff           // the full Content-Length promised, half sent, connection dropped
	Malformed        // a body that is not JSON
	NoChoices        // a well-formed completion with "choices": []
	Disconnect       // the connection closed before any reply
)

// Reply is what the server answers. The zero value is an empty successful
// completion; set Status for an error reply.
type Reply struct {
	Content      string
	FinishReason string // default "stop"
	// Logprob is every completion token's log-probability, sent in
	// choices[0].logprobs.content when the request asks (logprobs: true);
	// TokenLogprobs, if set, gives them token by token instead (the last
	// repeats). The fake's tokens are the content cut into 4-byte pieces.
	Logprob       float64
	TokenLogprobs []float64
	// Token counts reported in "usage"; 0 means estimated from the text.
	PromptTokens, CompletionTokens int

	// Status other than 0 or 200 sends Error in OpenAI's error envelope.
	Status int
	Error  APIError
	Header http.Header // extra headers, e.g. Retry-After

	// Delay is waited before replying, after Options.Latency. A delay
	// longer than the client's timeout is a hung server: the handler gives
	// up as soon as the client disconnects.
	Delay time.Duration
	Fault Fault
}

// Text is a successful reply with content s.
func Text(s string) Reply { return Reply{Content: s} }

// JSON is a successful reply whose content is v encoded as JSON.
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest.JSON: %v", err))
	}
	return Reply{Content: string(b)}
}

// WithLogprob is a successful reply with content s whose tokens all have
// log-probability lp.
func WithLogprob(s string, lp float64) Reply { return Reply{Content: s, Logprob: lp} }

// Length is a reply cut by max_tokens: finish_reason "length".
func Length(partial string) Reply { return Reply{Content: partial, FinishReason: "length"} }

// RateLimited is a 429 with a Retry-After header (seconds or an HTTP-date;
// "" for none).
func RateLimited(retryAfter string) Reply {
	r := Reply{Status: http.StatusTooManyRequests, Error: APIError{
		Message: "Rate limit reached for requests. Please try again later.",
		Type:    "requests", Code: "rate_limit_exceeded",
	}}
	if retryAfter != "" {
		r.Header = http.Header{"Retry-After": {retryAfter}}
	}
	return r
}

// RateLimitedMs is a 429 carrying OpenAI's retry-after-ms header.
func RateLimitedMs(ms int) Reply {
	r := RateLimited("")
	r.Header = http.Header{"Retry-After-Ms": {fmt.Sprint(ms)}}
	return r
}

// QuotaExceeded is OpenAI's 429 for an account out of credit.
func QuotaExceeded() Reply {
	return Reply{Status: http.StatusTooManyRequests, Error: APIError{
		Message: "You exceeded your current quota, please check your plan and billing details.",
		Type:    "insufficient_quota", Code: "insufficient_quota",
	}}
}

// ServerError is a 5xx (500, 502, 503, ...) with OpenAI's error envelope.
func ServerError(status int) Reply {
	return Reply{Status: status, Error: APIError{
		Message: "The server had an error while processing your request. Sorry about that!",
		Type:    "server_error",
	}}
}

// ContextLengthExceeded is OpenAI's 400 for a prompt longer than the model's
// context window.
func ContextLengthExceeded() Reply {
	return Reply{Status: http.StatusBadRequest, Error: APIError{
		Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
		Type:    "invalid_request_error", Param: "messages", Code: "context_length_exceeded",
	}}
}

// HTTPError is any error reply.
func HTTPError(status int, code, message string) Reply {
	return Reply{Status: status, Error: APIError{Message: message, Code: code}}
}

// Hang never answers within any reasonable client timeout.
func Hang() Reply { return Reply{Delay: time.Hour} }

// Broken is a reply with content s broken by f.
func Broken(f Fault) Reply { return Reply{Content: `{"verdict":"pass"}`, Fault: f} }

// Fixed answers every request with r.
func Fixed(r Reply) Handler { return func(*Call) Reply { return r } }

// Queue answers the n-th request with the n-th reply. Requests beyond the
// queue get a 500 saying so, which makes an unexpected extra call visible.
func Queue(replies ...Reply) Handler {
	var mu sync.Mutex
	i := 0
	return func(*Call) Reply {
		mu.Lock()
		defer mu.Unlock()
		if i >= len(replies) {
			return HTTPError(http.StatusInternalServerError, "llmtest_queue_exhausted", fmt.Sprintf("llmtest: queue of %d replies exhausted", len(replies)))
		}
		i++
		return replies[i-1]
	}
}

// Together answers the first n requests with h only once all n have
// arrived, and the rest at once: n requests are then in flight together
// however slowly a loaded machine starts their senders, which is how a
// test sees a concurrency limit reached without a latency to race. A
// client that never has n requests out at once hangs on it.
func Together(n int, h Handler) Handler {
	var arrived sync.WaitGroup
	arrived.Add(n)
	var seen atomic.Int64
	return func(c *Call) Reply {
		if seen.Add(1) <= int64(n) {
			arrived.Done()
			arrived.Wait()
		}
		return h(c)
	}
}

// Then answers the first requests with first, in order, and the rest with h:
// Then(Fixed(Text("ok")), RateLimited("1"), ServerError(500)).
func Then(h Handler, first ...Reply) Handler {
	var mu sync.Mutex
	i := 0
	return func(c *Call) Reply {
		mu.Lock()
		if i < len(first) {
			i++
			r := first[i-1]
			mu.Unlock()
			return r
		}
		mu.Unlock()
		return h(c)
	}
}

// Rule routes requests whose prompt contains a substring to a handler.
type Rule struct {
	Contains string
	Handler  Handler
}

// Match is a Rule.
func Match(contains string, h Handler) Rule { return Rule{Contains: contains, Handler: h} }

// ByPrompt answers with the first rule whose substring occurs in the
// request's messages ([Call.Prompt]), and with fallback otherwise.
func ByPrompt(fallback Handler, rules ...Rule) Handler {
	return func(c *Call) Reply {
		p := c.Prompt()
		for _, r := range rules {
			if strings.Contains(p, r.Contains) {
				return r.Handler(c)
			}
		}
		return fallback(c)
	}
}

// Inflate reports factor times the request's token cap (max_tokens or
// max_completion_tokens) as the completion tokens of h's successful
// replies, as a provider does whose usage exceeds the cap it was sent (a
// billing quirk, hidden reasoning tokens). A request without a cap is
// answered as h answers it. Budget tests use it to check that a cap still
// holds when the reply costs more than the client reserved.
func Inflate(h Handler, factor int) Handler {
	return func(c *Call) Reply {
		r := h(c)
		if r.Status != 0 && r.Status != http.StatusOK {
			return r
		}
		limit := c.Request.MaxTokens
		if limit == nil {
			limit = c.Request.MaxCompletionTokens
		}
		if limit != nil {
			r.CompletionTokens = factor * *limit
		}
		return r
	}
}
