package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clinsql/clinsql/llm/llmfmt"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Schema asks for structured output. Where the endpoint supports JSON-schema
// output (Capabilities.JSONSchema) it is sent as response_format json_schema;
// else, with Capabilities.JSONObject, as json_object; else not at all. In
// every case the reply must be a JSON object or the call fails as
// [KindMalformed] after retries; checking the reply against the schema is the
// caller's job (Request.Validate).
type Schema struct {
	Name   string          // [a-zA-Z0-9_-]{1,64}
	Schema json.RawMessage // a JSON Schema object
	Strict bool
}

// Request is one chat completion.
type Request struct {
	Messages []Message
	Schema   *Schema
	// Sampling overrides the endpoint's defaults field by field. Temperature
	// and top_p are dropped for endpoints with Capabilities.NoTemperature.
	Sampling llmfmt.Sampling
	// Sample numbers repeated draws of the same prompt (0, 1, 2, ...): it is
	// part of the cache key and added to the seed.
	Sample int
	// Tag labels the call in logs and errors (a leaf id, a task id). It is
	// not sent and not part of the cache key.
	Tag string
	// Validate, if set, checks the reply text; an error makes the reply
	// malformed: it is retried, never cached, and finally returned as
	// [KindMalformed]. Cached replies are validated again when read.
	Validate func(text string) error
	// Logprobs asks for the completion tokens' log-probabilities
	// (logprobs: true); the endpoint must declare Capabilities.Logprobs,
	// else the request fails before any call. A reply without them is
	// malformed.
	Logprobs bool
}

// Response is a successful completion.
type Response struct {
	Text         string
	FinishReason string // "stop", "length", "content_filter", ...
	// Usage is what this call consumed over all its attempts (zero when it
	// was served from the cache); CostUSD prices it when the client has a
	// [Meter] with a price for the model.
	Usage   Usage
	CostUSD float64
	// ReplyCostUSD is what the reply cost when it was bought: CostUSD for
	// a call made now; for a reply served from the cache, the usage its
	// entry records at the price it was bought at (online or in a batch),
	// whichever run paid for it. A run that reports only CostUSD reports
	// less than was billed for the replies it used when an earlier run
	// bought them and was killed before recording them.
	ReplyCostUSD float64
	Latency      time.Duration // wall time of Complete, waits and retries included
	FromCache    bool
	Attempts     int    // HTTP attempts made (0 when served from the cache)
	CacheKey     string // hex SHA-256 identifying the call
	// Logprobs summarises the completion tokens' log-probabilities
	// (choices[0].logprobs.content[].logprob), when the request asked.
	Logprobs llmfmt.Logprobs
}

func summarize(lps []float64) *llmfmt.Logprobs {
	s := &llmfmt.Logprobs{Tokens: len(lps)}
	for i, v := range lps {
		s.Sum += v
		if i == 0 || v < s.Min {
			s.Min = v
		}
	}
	return s
}

// Options are the process-level collaborators of a client. All are optional.
type Options struct {
	Cache  *Cache       // nil: no caching
	Meter  *Meter       // nil: no cost tracking or budget
	Logger *slog.Logger // nil: no logging; retries are logged at Info
	// Getenv reads the API key variable (default os.Getenv).
	Getenv func(string) string
	// Sleep waits between attempts and for rate limits (default: a timer).
	// Tests inject a recorder to check backoff without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock the endpoint's downtime, its rate limits and a
	// Retry-After date are measured with (default time.Now); tests pair it
	// with Sleep.
	Now func() time.Time
	// WithTimeout bounds one attempt by its timeout (default
	// context.WithTimeout). Tests pass one whose context expires when
	// their fake server holds the request, so that a timeout is an event
	// of the test, never a race with the machine's load.
	WithTimeout func(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
	// Batch is needed by an endpoint in mode batch: where its batches are
	// recorded, how long to wait for them, progress.
	Batch *BatchOptions
}

// Client calls one endpoint. It is safe for concurrent use; the endpoint's
// limits are shared with every other client of the same endpoint in the
// process.
type Client struct {
	ep     Endpoint
	api    *openai.Client
	gate   *gate
	cache  *Cache
	meter  *Meter
	log    *slog.Logger
	sleep  func(context.Context, time.Duration) error
	redact redactor
	host   string
	close  sync.Once
	now    func() time.Time
	within func(context.Context, time.Duration) (context.Context, context.CancelFunc)
	health health
	batch  *batcher // mode batch: requests go through the batch API
}

// health tracks whether the endpoint answers: since when it has failed
// without a success in between, and the reason once it is declared down.
type health struct {
	mu           sync.Mutex
	failingSince time.Time
	down         string
}

// unreachable reports the kinds that say nothing answered: rate limits are
// left out, a 429 is an endpoint that is up and busy.
func unreachable(k ErrorKind) bool { return k.EndpointDown() && k != KindRateLimited }

// record notes an attempt's outcome and reports the reason the endpoint is
// down, "" while it is not (yet). started is when the attempt was sent: an
// endpoint that never answered it has been failing since then, not since
// its timeout. transport marks a reply garbled on the wire (a dead proxy),
// which counts as a reset connection does. wait is the delay before the
// next attempt: a retry that would start past the limit is not made.
func (h *health) record(now, started time.Time, kind ErrorKind, transport bool, msg string, wait, limit time.Duration) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if started.IsZero() || started.After(now) {
		started = now
	}
	switch {
	case kind == "":
		h.failingSince, h.down = time.Time{}, ""
	case unreachable(kind) || transport:
		if h.failingSince.IsZero() || started.Before(h.failingSince) {
			h.failingSince = started
		}
		if h.down == "" && limit > 0 && now.Add(wait).Sub(h.failingSince) >= limit {
			h.down = fmt.Sprintf("declared down: failing for %s with no successful call, and the next retry would pass the %s limit (retry.down_after) (last: %s)",
				now.Sub(h.failingSince).Round(time.Second), limit, msg)
		}
	}
	return h.down
}

// attemptTimeout bounds one attempt: the endpoint's per-attempt timeout,
// and, once the endpoint is failing (refused, 5xx, timed out, garbled),
// no further than the end of the down_after window counted from the first
// attempt it did not answer. An endpoint that has not failed gets the whole
// timeout: a model slower than down_after (long chains of thought) cannot
// be told from a hung endpoint before its timeout, and cutting it short
// would declare a working model down. A hung endpoint is so declared down
// after one attempt's timeout.
func (h *health) attemptTimeout(now time.Time, timeout, limit time.Duration) time.Duration {
	if limit <= 0 {
		return timeout
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failingSince.IsZero() {
		return timeout
	}
	return max(min(timeout, h.failingSince.Add(limit).Sub(now)), time.Millisecond)
}

func (h *health) downReason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.down
}

// Close releases the client's share of its endpoint's process-wide load
// limits; once every client of the endpoint is closed, the endpoint can be
// configured again with other limits. Calls in flight are not interrupted.
// Close is idempotent. A client that is never closed keeps its endpoint's
// limits for the life of the process.
func (c *Client) Close() {
	c.close.Do(func() {
		if c.batch != nil {
			c.batch.close()
		}
		releaseGate(c.gate)
	})
}

// New returns a client for ep. It fails if ep is invalid, if its key
// variable is unset, or if a capped meter has no price for the model.
func New(ep Endpoint, opts Options) (*Client, error) {
	ep = ep.WithDefaults()
	if err := ep.Validate(); err != nil {
		return nil, fmt.Errorf("llm: endpoint %q: %w", ep.Name, err)
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	key := ""
	if ep.APIKeyEnv != "" {
		key = getenv(ep.APIKeyEnv)
		if key == "" {
			return nil, &Error{Kind: KindAuth, Endpoint: ep.Name, Message: fmt.Sprintf("environment variable %s (api_key_env) is not set", ep.APIKeyEnv)}
		}
	}
	if opts.Meter != nil {
		if err := opts.Meter.check(ep); err != nil {
			return nil, err
		}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	g, err := gateFor(ep, now)
	if err != nil {
		return nil, err
	}
	var cfg openai.ClientConfig
	if ep.Kind == KindAzure {
		cfg = openai.DefaultAzureConfig(key, ep.BaseURL)
		cfg.APIVersion = ep.APIVersion
		deployment := ep.Deployment
		cfg.AzureModelMapperFunc = func(string) string { return deployment }
	} else {
		cfg = openai.DefaultConfig(key)
		cfg.BaseURL = ep.BaseURL
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// Keep a connection per concurrent request: the default of 2 idle
	// connections per host makes a pool of 32 reconnect constantly.
	tr.MaxIdleConnsPerHost = ep.Limits.Concurrency
	cfg.HTTPClient = doer{hc: &http.Client{Transport: tr}}

	c := &Client{
		ep:     ep,
		api:    openai.NewClientWithConfig(cfg),
		gate:   g,
		cache:  opts.Cache,
		meter:  opts.Meter,
		log:    opts.Logger,
		sleep:  opts.Sleep,
		redact: redactor{key},
		host:   hostOf(ep.BaseURL),
		now:    now,
		within: opts.WithTimeout,
	}
	if c.within == nil {
		c.within = context.WithTimeout
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if ep.Batched() {
		if opts.Batch == nil || opts.Batch.Dir == "" {
			releaseGate(g)
			return nil, fmt.Errorf("llm: endpoint %s is in mode batch, which needs a folder to record its batches in (Options.Batch.Dir)", ep.Name)
		}
		if c.batch, err = openBatcher(c, *opts.Batch); err != nil {
			releaseGate(g)
			return nil, err
		}
	}
	return c, nil
}

// Endpoint returns the endpoint with defaults applied.
func (c *Client) Endpoint() Endpoint { return c.ep }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func (c *Client) checkRequest(r Request) string {
	if len(r.Messages) == 0 {
		return "request has no messages"
	}
	for i, m := range r.Messages {
		switch m.Role {
		case llmfmt.RoleSystem, llmfmt.RoleDeveloper, llmfmt.RoleUser, llmfmt.RoleAssistant:
		default:
			return fmt.Sprintf("messages[%d]: role %q is not system, developer, user or assistant", i, m.Role)
		}
	}
	if r.Sample < 0 {
		return "sample index is negative"
	}
	if r.Logprobs && !c.ep.Capabilities.Logprobs {
		return "log-probabilities requested, but the endpoint does not declare capabilities.logprobs"
	}
	if s := r.Schema; s != nil {
		if !schemaName.MatchString(s.Name) {
			return fmt.Sprintf("schema name %q must match [a-zA-Z0-9_-]{1,64}", s.Name)
		}
		var obj map[string]any
		if err := json.Unmarshal(s.Schema, &obj); err != nil {
			return "schema is not a JSON object: " + err.Error()
		}
	}
	if t := r.Sampling.Temperature; t != nil && (*t < 0 || *t > 2) {
		return fmt.Sprintf("temperature %v is outside [0, 2]", *t)
	}
	if p := r.Sampling.TopP; p != nil && (*p < 0 || *p > 1) {
		return fmt.Sprintf("top_p %v is outside [0, 1]", *p)
	}
	return ""
}

// effective merges the request's sampling over the endpoint's and applies
// the capabilities: the result is exactly what is sent.
func (c *Client) effective(r Request) llmfmt.Sampling {
	s := c.ep.Sampling
	o := r.Sampling
	if o.Temperature != nil {
		s.Temperature = o.Temperature
	}
	if o.TopP != nil {
		s.TopP = o.TopP
	}
	if o.MaxTokens != 0 {
		s.MaxTokens = o.MaxTokens
	}
	if o.Seed != nil {
		s.Seed = o.Seed
	}
	if o.Stop != nil {
		s.Stop = o.Stop
	}
	if c.ep.Capabilities.NoTemperature {
		s.Temperature, s.TopP = nil, nil
	}
	if s.Seed != nil {
		seed := *s.Seed + r.Sample
		s.Seed = &seed
	}
	if len(s.Stop) == 0 {
		s.Stop = nil // no stop sequences, however spelt: one cache key
	}
	return s
}

func (c *Client) format(r Request) keyFormat {
	if r.Schema == nil {
		return keyFormat{}
	}
	switch {
	case c.ep.Capabilities.JSONSchema:
		var schema any
		_ = json.Unmarshal(r.Schema.Schema, &schema) // checked in checkRequest
		return keyFormat{Type: "json_schema", Name: r.Schema.Name, Strict: r.Schema.Strict, Schema: schema}
	case c.ep.Capabilities.JSONObject:
		return keyFormat{Type: "json_object"}
	}
	return keyFormat{}
}

// build turns the request into go-openai's type plus the body fields that
// go-openai would drop or second-guess.
func (c *Client) build(r Request, s llmfmt.Sampling, f keyFormat) (openai.ChatCompletionRequest, map[string]any) {
	req := openai.ChatCompletionRequest{Model: c.ep.Model, Stop: s.Stop, Seed: s.Seed, LogProbs: r.Logprobs}
	for _, m := range r.Messages {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	switch f.Type {
	case "json_schema":
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: r.Schema.Name, Schema: r.Schema.Schema, Strict: r.Schema.Strict,
			},
		}
	case "json_object":
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	// go-openai's float32 fields are omitempty, so temperature 0 (the usual
	// judge setting) would silently become the server's default of 1. The
	// sampling floats are therefore written into the body directly, exactly
	// as configured. The token cap goes the same way because go-openai
	// refuses max_tokens for model ids that look like reasoning models (a
	// guess from the name); the endpoint's Capabilities decide instead.
	patch := map[string]any{}
	if s.Temperature != nil {
		patch["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		patch["top_p"] = *s.TopP
	}
	if s.MaxTokens > 0 {
		if c.ep.Capabilities.MaxCompletionTokens {
			patch["max_completion_tokens"] = s.MaxTokens
		} else {
			patch["max_tokens"] = s.MaxTokens
		}
	}
	return req, patch
}

// Complete sends one chat completion, or answers it from the cache. Every
// error is an [*Error]; see [ErrorKind] for which are retried.
func (c *Client) Complete(ctx context.Context, r Request) (Response, error) {
	start := time.Now()
	fail := func(kind ErrorKind, msg string) (Response, error) {
		return Response{}, &Error{Kind: kind, Endpoint: c.ep.Name, Tag: r.Tag, Message: c.redact.apply(msg)}
	}
	if msg := c.checkRequest(r); msg != "" {
		return fail(KindBadRequest, msg)
	}
	s := c.effective(r)
	f := c.format(r)
	key, err := cacheKey(keyInput{Kind: c.ep.Kind, Host: c.host, Model: c.ep.Model, Deployment: c.ep.Deployment,
		Sampling: s, Messages: r.Messages, Format: f, Sample: r.Sample, Logprobs: r.Logprobs})
	if err != nil {
		return fail(KindBadRequest, err.Error())
	}
	validate := func(text string, logprobs *llmfmt.Logprobs) error {
		if r.Logprobs && logprobs == nil {
			return errors.New("log-probabilities were requested but the reply has none")
		}
		if r.Schema != nil {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(text), &obj); err != nil {
				return fmt.Errorf("reply is not a JSON object: %v", err)
			}
		}
		if r.Validate != nil {
			return r.Validate(text)
		}
		return nil
	}

	if c.cache != nil {
		if hit, ok := c.cache.get(key); ok && validate(hit.Text, hit.Logprobs) == nil {
			if c.meter != nil {
				c.meter.count(c.ep.Name, c.ep.Model, Tally{Calls: 1, CacheHits: 1}, Usage{})
			}
			return Response{Text: hit.Text, FinishReason: hit.FinishReason, FromCache: true, ReplyCostUSD: c.boughtFor(hit),
				Latency: time.Since(start), CacheKey: key, Logprobs: deref(hit.Logprobs)}, nil
		}
	}

	estPrompt := EstimateTokens(r.Messages)
	// worst is what one attempt may cost: the prompt estimate (which errs
	// high) plus the token cap sent; each attempt reserves it.
	worst := Usage{PromptTokens: estPrompt, CompletionTokens: s.MaxTokens}
	if s.MaxTokens == 0 {
		worst.CompletionTokens = DefaultCompletionReserve
	}
	if c.batch != nil {
		oreq, patch := c.build(r, s, f)
		return c.batch.complete(ctx, r.Tag, key, oreq, patch, worst, validate, start)
	}
	if reason := c.health.downReason(); reason != "" {
		// Declared down by an earlier call: fail at once, as that call did.
		return Response{}, &Error{Kind: KindNetwork, Endpoint: c.ep.Name, Tag: r.Tag, Message: reason}
	}
	estTokens := estPrompt + s.MaxTokens
	if s.MaxTokens == 0 {
		estTokens += DefaultCompletionReserve / 4
	}

	oreq, patch := c.build(r, s, f)
	deadline := start.Add(c.ep.Retry.Budget)
	var used Usage
	var last outcome
	var persist func(outcome)
	if c.cache != nil {
		persist = func(o outcome) {
			if err := c.cache.put(key, cachedReply{Text: o.text, FinishReason: o.finish, Usage: o.usage, Logprobs: o.logprobs}); err != nil {
				// The reply is good; losing its cache entry only costs a call later.
				c.log.Warn("llm cache write failed", "endpoint", c.ep.Name, "error", err)
			}
		}
	}
	attempts, tries := 0, 0
	for {
		tries++
		last = c.attempt(ctx, oreq, patch, estTokens, worst, validate, persist)
		if last.sent {
			attempts++
		}
		used = used.Add(last.usage)
		if last.kind == "" {
			c.health.record(c.now(), last.started, "", false, "", 0, 0) // it answers again
			break
		}
		delay := backoff(tries, c.ep.Retry.BaseDelay, c.ep.Retry.MaxDelay, last.retryAfter)
		if down := c.health.record(c.now(), last.started, last.kind, last.transport, c.redact.apply(last.msg), delay, c.ep.Retry.DownAfter); down != "" {
			last.msg = down
			break
		}
		if !last.kind.Retryable() || tries >= c.ep.Retry.MaxAttempts {
			break
		}
		if time.Now().Add(delay).After(deadline) {
			last.msg += fmt.Sprintf(" (retry budget of %s exhausted)", c.ep.Retry.Budget)
			break
		}
		c.log.LogAttrs(ctx, slog.LevelInfo, "llm retry",
			slog.String("endpoint", c.ep.Name), slog.String("tag", r.Tag), slog.Int("sample", r.Sample),
			slog.Int("attempt", tries), slog.String("kind", string(last.kind)), slog.Int("status", last.status),
			slog.Duration("delay", delay), slog.String("error", c.redact.apply(last.msg)))
		if err := c.sleep(ctx, delay); err != nil {
			last = outcome{kind: KindCanceled, msg: err.Error(), cause: err}
			break
		}
	}

	var cost float64
	if last.kind != "" {
		if c.meter != nil {
			c.meter.count(c.ep.Name, c.ep.Model, Tally{Failures: 1, Attempts: attempts}, used)
		}
		e := &Error{Kind: last.kind, Endpoint: c.ep.Name, Tag: r.Tag, Status: last.status, Attempts: attempts,
			Usage: used, Message: c.redact.apply(last.msg), Transport: last.transport, live: last.live}
		c.log.LogAttrs(ctx, slog.LevelDebug, "llm call failed",
			slog.String("endpoint", c.ep.Name), slog.String("tag", r.Tag), slog.Int("sample", r.Sample),
			slog.String("kind", string(e.Kind)), slog.Int("attempts", attempts), slog.String("error", e.Message))
		if last.cause != nil && (errors.Is(last.cause, context.Canceled) || errors.Is(last.cause, context.DeadlineExceeded)) {
			e.cause = last.cause
		}
		return Response{}, e
	}
	if c.meter != nil {
		cost = c.meter.count(c.ep.Name, c.ep.Model, Tally{Calls: 1, Attempts: attempts}, used)
	}
	resp := Response{Text: last.text, FinishReason: last.finish, Usage: used, CostUSD: cost, ReplyCostUSD: cost,
		Latency: time.Since(start), Attempts: attempts, CacheKey: key, Logprobs: deref(last.logprobs)}
	c.log.LogAttrs(ctx, slog.LevelDebug, "llm call",
		slog.String("endpoint", c.ep.Name), slog.String("tag", r.Tag), slog.Int("sample", r.Sample),
		slog.Int("attempts", attempts), slog.Duration("latency", resp.Latency),
		slog.Int("prompt_tokens", used.PromptTokens), slog.Int("completion_tokens", used.CompletionTokens))
	return resp, nil
}

// boughtFor prices a cached reply as it was bought (0 without a meter or
// a price).
func (c *Client) boughtFor(r cachedReply) float64 {
	if c.meter == nil {
		return 0
	}
	usd, _ := c.meter.prices.costIn(c.ep.Model, r.Usage, r.Batch)
	return usd
}

// Meter returns the client's meter (nil without one).
func (c *Client) Meter() *Meter { return c.meter }

// Cache is the client's reply cache, nil without one.
func (c *Client) Cache() *Cache { return c.cache }

func deref(l *llmfmt.Logprobs) llmfmt.Logprobs {
	if l == nil {
		return llmfmt.Logprobs{}
	}
	return *l
}

// outcome is one attempt's result; kind "" means success.
type outcome struct {
	text, finish string
	logprobs     *llmfmt.Logprobs
	usage        Usage
	// sent: the request went to the transport; billing says how the
	// attempt is charged against the budget (usageReported, usageNone,
	// usageUnknown).
	sent       bool
	billing    string
	kind       ErrorKind
	status     int
	retryAfter time.Duration
	msg        string
	cause      error
	// transport: the body was garbled on the wire (see Error.Transport).
	transport bool
	// started is when the request was sent (zero if it never was).
	started time.Time
	// live renders a budget stop's message when it is read (Error.live).
	live fmt.Stringer
}

// A successful reply is given to persist before the endpoint's slot is
// released, so that the calls a crash can lose are at most the endpoint's
// concurrency: a reply received is on disk before another call goes out in
// its place.
//
// The attempt's worst case is reserved with the meter last, just before the
// request is sent, and settled as soon as the reply is judged.
func (c *Client) attempt(ctx context.Context, oreq openai.ChatCompletionRequest, patch map[string]any, est int, worst Usage, validate func(string, *llmfmt.Logprobs) error, persist func(outcome)) (o outcome) {
	if err := c.gate.acquire(ctx); err != nil {
		return outcome{kind: KindCanceled, msg: err.Error(), cause: err}
	}
	defer c.gate.release()
	defer func() {
		if o.kind == "" && persist != nil {
			persist(o)
		}
	}()
	if c.gate.rpm != nil {
		if err := c.gate.rpm.wait(ctx, 1, c.sleep); err != nil {
			return outcome{kind: KindCanceled, msg: err.Error(), cause: err}
		}
	}
	if c.gate.tpm != nil {
		if err := c.gate.tpm.wait(ctx, est, c.sleep); err != nil {
			return outcome{kind: KindCanceled, msg: err.Error(), cause: err}
		}
	}
	if c.meter != nil {
		res, err := c.meter.reserve(ctx, c.ep.Name, c.ep.Model, worst)
		if err != nil {
			if ctx.Err() != nil {
				return outcome{kind: KindCanceled, msg: err.Error(), cause: ctx.Err()}
			}
			return outcome{kind: KindBudget, msg: err.Error(), live: liveText(err)}
		}
		defer func() { c.meter.settle(res, o.usage, o.billing) }()
	}
	started := c.now()
	actx, cancel := c.within(ctx, c.health.attemptTimeout(started, c.ep.Limits.Timeout, c.ep.Retry.DownAfter))
	defer cancel()
	ex := &exchange{patch: patch}
	resp, err := c.api.CreateChatCompletion(withExchange(actx, ex), oreq)
	o = c.judge(ctx, actx, ex, resp, err, validate)
	o.sent, o.started = ex.sent, started
	if c.gate.tpm != nil {
		// Settle the estimate: with no usage reported (an error), the
		// tokens are given back.
		c.gate.tpm.adjust(o.usage.PromptTokens + o.usage.CompletionTokens - est)
	}
	return o
}

// judge classifies one attempt from what the doer saw on the wire.
func (c *Client) judge(ctx, actx context.Context, ex *exchange, resp openai.ChatCompletionResponse, err error, validate func(string, *llmfmt.Logprobs) error) outcome {
	o := outcome{status: ex.status, billing: usageNone}
	// A request that reached the provider but got no usable reply back may
	// have been billed: it is charged at its reservation (usageUnknown).
	switch {
	case !ex.sent:
		// go-openai refused the request before sending it.
		o.kind, o.msg = KindBadRequest, fmt.Sprint(err)
		if ex.sendErr == nil && ctx.Err() != nil {
			o.kind, o.cause = KindCanceled, ctx.Err()
		}
		return o
	case ex.sendErr != nil && ex.status == 0:
		if ex.wrote.Load() {
			o.billing = usageUnknown
		}
		o.kind, o.msg, o.cause = classifyTransport(ctx, actx, ex.sendErr), ex.sendErr.Error(), ex.sendErr
		if o.kind == KindCanceled {
			o.cause = ctx.Err()
		}
		return o
	case ex.status < 200 || ex.status > 299:
		o.kind, o.msg = classifyStatus(ex.status, ex.body, c.redact)
		o.retryAfter = retryAfter(ex.header, c.now())
		return o
	case ex.sendErr != nil:
		// Headers arrived but the body was cut off.
		o.billing = usageUnknown
		if ctx.Err() != nil {
			o.kind, o.msg, o.cause = KindCanceled, ctx.Err().Error(), ctx.Err()
			return o
		}
		o.kind, o.msg, o.transport = KindMalformed, "reply body cut off: "+ex.sendErr.Error(), true
		return o
	case len(ex.body) > maxReplyBytes:
		o.kind, o.msg, o.billing, o.transport = KindMalformed, "reply body larger than 32 MiB", usageUnknown, true
		return o
	case err != nil || !json.Valid(ex.body):
		// go-openai's streaming decoder accepts trailing garbage; the whole
		// body must be one JSON value.
		o.kind, o.msg, o.billing, o.transport = KindMalformed, "reply body is not valid JSON", usageUnknown, true
		if err != nil {
			o.msg += ": " + err.Error()
		}
		return o
	}
	return c.completion(o, resp, validate)
}

// completion reads a chat completion that arrived whole (online or in a
// batch result file) into o: usage, text, log-probabilities, validation.
func (c *Client) completion(o outcome, resp openai.ChatCompletionResponse, validate func(string, *llmfmt.Logprobs) error) outcome {
	o.usage = Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	o.billing = usageReported
	if u := o.usage; u == (Usage{}) || u.PromptTokens < 0 || u.CompletionTokens < 0 {
		// A reply without usage (or with nonsense) says nothing of its cost.
		o.usage, o.billing = Usage{}, usageUnknown
	}
	if len(resp.Choices) == 0 {
		o.kind, o.msg = KindMalformed, "reply has no choices"
		return o
	}
	ch := resp.Choices[0]
	o.text, o.finish = ch.Message.Content, string(ch.FinishReason)
	if ch.LogProbs != nil {
		lps := make([]float64, len(ch.LogProbs.Content))
		for i, t := range ch.LogProbs.Content {
			lps[i] = t.LogProb
		}
		o.logprobs = summarize(lps)
	}
	if err := validate(o.text, o.logprobs); err != nil {
		o.kind, o.msg = KindMalformed, fmt.Sprintf("finish_reason %q: %v", o.finish, err)
	}
	return o
}

// backoff is exponential backoff with full jitter, never shorter than the
// server's Retry-After.
func backoff(attempt int, base, max, retryAfter time.Duration) time.Duration {
	ceil := max
	if attempt-1 < 30 {
		if d := base << (attempt - 1); d > 0 && d < max {
			ceil = d
		}
	}
	d := time.Duration(rand.Int64N(int64(ceil) + 1))
	if retryAfter > d {
		d = retryAfter
	}
	return d
}
