package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrorKind classifies why a call failed. Callers record it as data: a judge
// turns any of them into an "invalid" verdict, never into pass or fail.
type ErrorKind string

const (
	// Infrastructure: retried (except KindQuota, KindAuth, KindBudget and
	// KindCanceled, which cannot get better by waiting).
	KindRateLimited ErrorKind = "rate_limited" // HTTP 429
	KindServer      ErrorKind = "server"       // HTTP 5xx, 409
	KindTimeout     ErrorKind = "timeout"      // attempt timeout, HTTP 408
	KindNetwork     ErrorKind = "network"      // connection refused, reset, ...
	KindQuota       ErrorKind = "quota"        // HTTP 429 with code insufficient_quota
	KindAuth        ErrorKind = "auth"         // HTTP 401, 403; missing key
	KindBudget      ErrorKind = "budget_exceeded"
	KindCanceled    ErrorKind = "canceled" // the caller's context ended
	// KindBatchPending: the request is in a batch the provider has not
	// finished when the wait (BatchOptions.Wait) ran out, or was not sent
	// after it, or when the endpoint was declared down (retry.down_after)
	// while it waited; the batch stays recorded and a rerun resumes it. Like
	// KindBudget it ends a run as incomplete, never as a verdict.
	KindBatchPending ErrorKind = "batch_pending"

	// The reply: retried, then returned.
	KindMalformed ErrorKind = "malformed_reply" // truncated or invalid body, no choices, content failing Request.Validate

	// The request itself: never retried, the same request fails again.
	KindContextLength ErrorKind = "context_length" // prompt too long for the model
	KindBadRequest    ErrorKind = "bad_request"    // HTTP 400, 404, 422 and other 4xx
)

// Retryable reports whether a failure of this kind is retried.
func (k ErrorKind) Retryable() bool {
	return k.EndpointDown() || k == KindMalformed
}

// EndpointDown reports whether a failure of this kind says the endpoint is
// unavailable (unreachable, 5xx, timeouts, rate limits outlasting the
// retries) rather than anything about the request or the reply. Callers
// stop using an endpoint after MaxDownInARow such failures in a row.
func (k ErrorKind) EndpointDown() bool {
	switch k {
	case KindRateLimited, KindServer, KindTimeout, KindNetwork:
		return true
	}
	return false
}

// MaxDownInARow is how many calls in a row (the judge) or tasks in a row
// (generation) may fail with EndpointDown kinds, each after its retries,
// before the run stops using the endpoint: going on would only fail every
// remaining item the same way, slowly.
const MaxDownInARow = 8

// RequestFault reports whether the request itself is at fault (it would fail
// again unchanged: too long, or rejected as invalid). Every other kind is an
// infrastructure failure or a bad reply, not something the prompt caused.
func (k ErrorKind) RequestFault() bool {
	return k == KindContextLength || k == KindBadRequest
}

// Error is the only error type [Client.Complete] returns. Its text never
// contains the API key.
type Error struct {
	Kind     ErrorKind
	Endpoint string // endpoint name
	Tag      string // Request.Tag
	Status   int    // HTTP status of the last attempt; 0 if none
	Attempts int    // HTTP attempts made
	// Usage is what the failed attempts consumed (malformed replies are
	// billed by the provider).
	Usage   Usage
	Message string // redacted
	// Transport reports a malformed reply garbled on the wire rather than
	// by the model: the body cut off or truncated, not JSON at all, or
	// over the size limit. Such replies say the endpoint (or a proxy in
	// front of it) is broken, as a reset connection does: see EndpointDown.
	Transport bool
	cause     error // only context errors, so errors.Is works without leaking text
	// live, when set, gives the message when it is read rather than
	// Message, written when the call failed: a budget stop states the
	// folder's spending as it stands (calls in flight at the stop settle
	// after it).
	live fmt.Stringer
}

// EndpointDown reports whether this failure counts toward the endpoint-down
// stop: its kind says so, or the reply was garbled on the wire.
func (e *Error) EndpointDown() bool { return e.Kind.EndpointDown() || e.Transport }

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s", e.Endpoint)
	if e.Tag != "" {
		fmt.Fprintf(&b, " [%s]", e.Tag)
	}
	fmt.Fprintf(&b, ": %s", e.Kind)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Attempts > 0 {
		fmt.Fprintf(&b, " after %d attempt", e.Attempts)
		if e.Attempts > 1 {
			b.WriteString("s")
		}
	}
	msg := e.Message
	if e.live != nil {
		msg = e.live.String()
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

// liveText is err's text as it stands when read, for a budget stop
// (see Error.live); nil for any other error.
func liveText(err error) fmt.Stringer {
	var be *budgetError
	if errors.As(err, &be) && be.m != nil {
		return be
	}
	return nil
}

func (e *Error) Unwrap() error { return e.cause }

// KindOf returns the kind of an [*Error] in err's chain, "" for nil, and
// KindBadRequest for any other error.
func KindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindBadRequest
}

// apiErrorBody is OpenAI's (and Azure's) error envelope.
type apiErrorBody struct {
	Error *struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"` // a string, a number or null
	} `json:"error"`
}

// classifyStatus maps a non-2xx reply to a kind and a short message taken
// from the error envelope when there is one. The message is redacted before
// it is cut: a key echoed across the cut would otherwise survive in part,
// the redactor no longer recognising what is left of it.
func classifyStatus(status int, body []byte, redact redactor) (ErrorKind, string) {
	var env apiErrorBody
	msg, code := "", ""
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		msg = env.Error.Message
		_ = json.Unmarshal(env.Error.Code, &code)
		if code == "" {
			code = env.Error.Type
		}
	} else {
		msg = strings.TrimSpace(string(body))
	}
	msg = truncate(redact.apply(msg), maxErrorMessage)
	if code = redact.apply(code); code != "" && !strings.Contains(msg, code) {
		msg = code + ": " + truncate(msg, maxErrorMessage)
	}
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusTooManyRequests:
		if strings.Contains(lower, "insufficient_quota") {
			return KindQuota, msg
		}
		return KindRateLimited, msg
	case status == http.StatusRequestTimeout:
		return KindTimeout, msg
	case status == http.StatusConflict || status >= 500:
		return KindServer, msg
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindAuth, msg
	case status == http.StatusRequestEntityTooLarge || isContextLength(lower):
		return KindContextLength, msg
	default:
		return KindBadRequest, msg
	}
}

func isContextLength(lower string) bool {
	for _, s := range []string{"context_length_exceeded", "maximum context length", "context length", "context window", "prompt is too long"} {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}

// classifyTransport maps an error from sending the request or reading the
// reply. parent is the caller's context, attempt the per-attempt one.
func classifyTransport(parent, attempt context.Context, err error) ErrorKind {
	switch {
	case parent.Err() != nil:
		return KindCanceled
	case attempt.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return KindTimeout
	}
	return KindNetwork
}

// maxErrorMessage bounds the server's text kept in an error message.
const maxErrorMessage = 300

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// redactor removes secrets from any text the package emits.
type redactor []string

// minSecret is the shortest key treated as a secret. Local
// OpenAI-compatible servers (vLLM, llama.cpp, Ollama) take any key, and
// users give them "x" or "EMPTY"; replacing every "x" would garble the very
// messages that say what went wrong ("conte[REDACTED]t canceled"). Real
// provider keys are far longer.
const minSecret = 8

func (r redactor) apply(s string) string {
	for _, secret := range r {
		if len(secret) >= minSecret {
			s = strings.ReplaceAll(s, secret, "[REDACTED]")
		}
	}
	return s
}

// Advice says what to do about a failure that a rerun would only repeat
// (a wrong model id or URL, a refused key, a spent quota), or "" for a
// failure that waiting or rerunning may cure.
func Advice(err error) string {
	var e *Error
	if !errors.As(err, &e) {
		return ""
	}
	switch {
	case e.Status == http.StatusNotFound:
		return "the endpoint does not know this model id, or the base URL is wrong: check the model's id (model:, --model PROVIDER/NAME; for azure the deployment) and base_url; running again fails the same way"
	case e.Kind == KindAuth:
		return "the API key is missing or refused: check the variable api_key_env names (OPENAI_API_KEY for --model openai/...)"
	case e.Kind == KindQuota:
		return "the account's quota is spent: add credit or use another key, then run again"
	case e.Kind == KindBadRequest:
		return "the endpoint refuses the request as sent: check the model's settings (sampling, capabilities) against what the model accepts"
	}
	return ""
}
