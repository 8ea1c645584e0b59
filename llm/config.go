package llm

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/clinsql/clinsql/llm/llmfmt"
)

// Kind says which wire dialect an endpoint speaks.
type Kind string

const (
	// KindOpenAI is any OpenAI-compatible chat-completions server: the base URL
	// ends where "/chat/completions" is appended (for OpenAI itself
	// "https://api.openai.com/v1"), and the key is sent as a Bearer token.
	KindOpenAI Kind = "openai"
	// KindAzure is Azure OpenAI: requests go to
	// {base_url}/openai/deployments/{deployment}/chat/completions?api-version=...
	// and the key is sent in the "api-key" header.
	KindAzure Kind = "azure"
)

// Endpoint describes one model behind one API. It is what a YAML endpoints
// file holds and what [New] takes. The API key itself is never part of it:
// only the name of the environment variable that holds the key.
type Endpoint struct {
	// Name labels the endpoint in logs, errors and cost reports. It is not part
	// of the cache key, so renaming an endpoint keeps its cache.
	Name string `yaml:"name"`
	Kind Kind   `yaml:"kind"`
	// BaseURL defaults to https://api.openai.com/v1 for kind openai; it is
	// required for azure (the resource URL, e.g. https://NAME.openai.azure.com).
	BaseURL string `yaml:"base_url,omitempty"`
	// Model is the model id sent in the request body, used for prices and
	// part of the cache key.
	Model string `yaml:"model"`
	// Deployment and APIVersion are required for kind azure and refused
	// otherwise.
	Deployment string `yaml:"deployment,omitempty"`
	APIVersion string `yaml:"api_version,omitempty"`
	// APIKeyEnv names the environment variable holding the API key. Empty
	// means the server needs no key (a local server).
	APIKeyEnv    string          `yaml:"api_key_env,omitempty"`
	Sampling     llmfmt.Sampling `yaml:"sampling,omitempty"`
	Capabilities Capabilities    `yaml:"capabilities,omitempty"`
	Limits       Limits          `yaml:"limits,omitempty"`
	Retry        Retry           `yaml:"retry,omitempty"`
	// Mode is ModeOnline (the default: one HTTP call per request) or
	// ModeBatch: requests are collected into JSONL files and sent through
	// the provider's batch API (/v1/files, /v1/batches), answered within
	// 24 hours at the batch price (see [Price.Batch]). It is not part of the
	// cache key: a reply got one way serves the other.
	Mode  Mode        `yaml:"mode,omitempty"`
	Batch BatchLimits `yaml:"batch,omitempty"`
}

// Mode says how an endpoint's requests are sent.
type Mode string

const (
	ModeOnline Mode = "online"
	ModeBatch  Mode = "batch"
)

// Batched reports whether the endpoint sends its requests in batches.
func (e Endpoint) Batched() bool { return e.Mode == ModeBatch }

// BatchLimits shape the batches of an endpoint in mode batch.
type BatchLimits struct {
	// MaxRequests and MaxBytes bound one batch input file (defaults: the
	// providers' limits, 50,000 requests and 200 MB); more requests are
	// split over several batches.
	MaxRequests int   `yaml:"max_requests,omitempty"`
	MaxBytes    int64 `yaml:"max_bytes,omitempty"`
	// Poll is the interval between status checks of a batch (default 30s).
	Poll time.Duration `yaml:"poll,omitempty"`
	// Collect is how long requests are collected after the last one came
	// in before they are sent as a batch (default 2s): the callers issue
	// every request that is ready at about the same time.
	Collect time.Duration `yaml:"collect,omitempty"`
}

// Capabilities state what the model behind an endpoint accepts. They are
// configured per endpoint, never guessed from the model name.
type Capabilities struct {
	// JSONSchema: the endpoint honours response_format {"type":"json_schema"}.
	JSONSchema bool `yaml:"json_schema"`
	// JSONObject: the endpoint honours response_format {"type":"json_object"}.
	// Used for schema requests when JSONSchema is false. (The OpenAI API then
	// requires the word "json" somewhere in the messages.)
	JSONObject bool `yaml:"json_object"`
	// NoTemperature: the model rejects temperature and top_p (reasoning
	// models); they are then never sent. Stated negatively so that the
	// common case needs no line in the file.
	NoTemperature bool `yaml:"no_temperature"`
	// MaxCompletionTokens: send max_completion_tokens instead of max_tokens
	// (required by OpenAI reasoning models).
	MaxCompletionTokens bool `yaml:"max_completion_tokens"`
	// Logprobs: the endpoint returns token log-probabilities when asked
	// (logprobs: true; OpenAI chat models do, reasoning models and many
	// served models do not). Needed by the EHRSQL logprob abstention.
	Logprobs bool `yaml:"logprobs"`
}

// Limits bound the load on an endpoint. They are shared by every client in
// the process that uses the same endpoint (same kind, URL, model, deployment
// and key variable).
type Limits struct {
	// Concurrency is the maximum number of requests in flight (default 4).
	Concurrency int `yaml:"concurrency,omitempty"`
	// RPM and TPM are requests and tokens per minute (0 = unlimited).
	RPM int `yaml:"rpm,omitempty"`
	TPM int `yaml:"tpm,omitempty"`
	// Timeout bounds one HTTP attempt (default 60s). Once the endpoint is
	// failing, an attempt also ends with the down_after window
	// (Retry.DownAfter); a model whose replies take longer than 60 s sets
	// timeout to what they take (down_after then defaults to it).
	Timeout time.Duration `yaml:"timeout,omitempty"`
}

// Retry bounds the retries of one call.
type Retry struct {
	// MaxAttempts counts the first attempt too (default 6; 1 = no retry).
	MaxAttempts int `yaml:"max_attempts,omitempty"`
	// Budget bounds the wall time of one call including waits (default 5m).
	// A wait that would end past the budget is not started.
	Budget time.Duration `yaml:"budget,omitempty"`
	// BaseDelay and MaxDelay shape the exponential backoff with full jitter:
	// before attempt n+1 the client waits a random time in
	// [0, min(MaxDelay, BaseDelay*2^(n-1))], or longer if the server sent
	// Retry-After (defaults 1s and 60s).
	BaseDelay time.Duration `yaml:"base_delay,omitempty"`
	MaxDelay  time.Duration `yaml:"max_delay,omitempty"`
	// DownAfter declares the endpoint down once it has been unreachable
	// (network errors, 5xx, timeouts, replies garbled on the wire; not rate
	// limits, which say it is up) for this long with no successful call in
	// between, counted from the first attempt it did not answer (default
	// 30s, or limits.timeout when that is longer): the call in progress
	// stops retrying and later calls of the client fail at once, with the
	// reason, instead of each spending its retry budget. A hung endpoint
	// (connections accepted, nothing answered) cannot be told from a slow
	// model before limits.timeout, so it is declared down after one
	// attempt's timeout; retries after a failure never wait past the window.
	DownAfter time.Duration `yaml:"down_after,omitempty"`
}

// Defaults applied by [Endpoint.WithDefaults].
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultConcurrency = 4
	DefaultTimeout     = 60 * time.Second
	DefaultMaxAttempts = 6
	DefaultBudget      = 5 * time.Minute
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 60 * time.Second
	DefaultDownAfter   = 30 * time.Second

	DefaultBatchMaxRequests = 50_000
	DefaultBatchMaxBytes    = 200 << 20
	DefaultBatchPoll        = 30 * time.Second
	DefaultBatchCollect     = 2 * time.Second
)

// WithDefaults returns a copy with every unset optional field filled in.
func (e Endpoint) WithDefaults() Endpoint {
	if e.BaseURL == "" && e.Kind == KindOpenAI {
		e.BaseURL = DefaultBaseURL
	}
	if e.Limits.Concurrency == 0 {
		e.Limits.Concurrency = DefaultConcurrency
	}
	if e.Retry.DownAfter == 0 {
		// An endpoint configured for calls slower than the default window
		// gets a window as long as its calls: one timed-out attempt alone
		// never declares it down.
		e.Retry.DownAfter = max(DefaultDownAfter, e.Limits.Timeout)
	}
	if e.Limits.Timeout == 0 {
		e.Limits.Timeout = DefaultTimeout
	}
	if e.Retry.MaxAttempts == 0 {
		e.Retry.MaxAttempts = DefaultMaxAttempts
	}
	if e.Retry.Budget == 0 {
		e.Retry.Budget = DefaultBudget
	}
	if e.Retry.BaseDelay == 0 {
		e.Retry.BaseDelay = DefaultBaseDelay
	}
	if e.Retry.MaxDelay == 0 {
		e.Retry.MaxDelay = DefaultMaxDelay
	}
	if e.Mode == "" {
		e.Mode = ModeOnline
	}
	if e.Batch.MaxRequests == 0 {
		e.Batch.MaxRequests = DefaultBatchMaxRequests
	}
	if e.Batch.MaxBytes == 0 {
		e.Batch.MaxBytes = DefaultBatchMaxBytes
	}
	if e.Batch.Poll == 0 {
		e.Batch.Poll = DefaultBatchPoll
	}
	if e.Batch.Collect == 0 {
		e.Batch.Collect = DefaultBatchCollect
	}
	return e
}

// ConfigError is one invalid field. File is empty when the endpoint did not
// come from a file; Field is a path such as "endpoints[2].limits.rpm".
type ConfigError struct {
	File    string
	Line    int // 0 when unknown
	Field   string
	Problem string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate checks the endpoint and returns every problem found, each a
// [*ConfigError] (joined with [errors.Join]). Field paths are relative to the
// endpoint; [LoadEndpoints] prefixes them with the file and list index.
func (e Endpoint) Validate() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &ConfigError{Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	if strings.TrimSpace(e.Name) == "" {
		bad("name", "is required")
	}
	switch e.Kind {
	case KindOpenAI:
		if e.Deployment != "" {
			bad("deployment", "is only for kind azure")
		}
		if e.APIVersion != "" {
			bad("api_version", "is only for kind azure")
		}
	case KindAzure:
		if e.BaseURL == "" {
			bad("base_url", "is required for kind azure")
		}
		if e.Deployment == "" {
			bad("deployment", "is required for kind azure")
		}
		if e.APIVersion == "" {
			bad("api_version", "is required for kind azure")
		}
	case "":
		bad("kind", "is required (openai or azure)")
	default:
		bad("kind", "%q is not openai or azure", e.Kind)
	}
	if e.BaseURL != "" {
		u, err := url.Parse(e.BaseURL)
		switch {
		case err != nil:
			bad("base_url", "is not a URL")
		case u.Scheme != "http" && u.Scheme != "https":
			bad("base_url", "must start with http:// or https://")
		case u.Host == "":
			bad("base_url", "has no host")
		case u.User != nil:
			// Credentials in a URL end up in logs and error messages.
			bad("base_url", "must not contain credentials; use api_key_env")
		case u.RawQuery != "" || u.Fragment != "":
			bad("base_url", "must not have a query or fragment")
		}
	}
	if strings.TrimSpace(e.Model) == "" {
		bad("model", "is required")
	}
	if e.APIKeyEnv != "" && !envName.MatchString(e.APIKeyEnv) {
		// A value that is not a variable name is most likely a pasted key;
		// do not echo it.
		bad("api_key_env", "must be the name of an environment variable, not a key")
	}
	s := e.Sampling
	if s.Temperature != nil {
		if *s.Temperature < 0 || *s.Temperature > 2 {
			bad("sampling.temperature", "%v is outside [0, 2]", *s.Temperature)
		}
		if e.Capabilities.NoTemperature {
			bad("sampling.temperature", "is set but capabilities.no_temperature is true")
		}
	}
	if s.TopP != nil {
		if *s.TopP < 0 || *s.TopP > 1 {
			bad("sampling.top_p", "%v is outside [0, 1]", *s.TopP)
		}
		if e.Capabilities.NoTemperature {
			bad("sampling.top_p", "is set but capabilities.no_temperature is true")
		}
	}
	if s.MaxTokens < 0 {
		bad("sampling.max_tokens", "must not be negative")
	}
	if len(s.Stop) > 4 {
		bad("sampling.stop", "has %d sequences; the API accepts at most 4", len(s.Stop))
	}
	l := e.Limits
	if l.Concurrency < 0 {
		bad("limits.concurrency", "must not be negative")
	}
	if l.RPM < 0 {
		bad("limits.rpm", "must not be negative")
	}
	if l.TPM < 0 {
		bad("limits.tpm", "must not be negative")
	}
	if l.Timeout < 0 {
		bad("limits.timeout", "must not be negative")
	}
	r := e.Retry
	if r.MaxAttempts < 0 {
		bad("retry.max_attempts", "must not be negative")
	}
	if r.Budget < 0 {
		bad("retry.budget", "must not be negative")
	}
	if r.BaseDelay < 0 {
		bad("retry.base_delay", "must not be negative")
	}
	if r.MaxDelay < 0 {
		bad("retry.max_delay", "must not be negative")
	}
	if r.DownAfter < 0 {
		bad("retry.down_after", "must not be negative")
	}
	switch e.Mode {
	case "", ModeOnline, ModeBatch:
	default:
		bad("mode", "%q is not online or batch", e.Mode)
	}
	b := e.Batch
	if b.MaxRequests < 0 || b.MaxRequests > DefaultBatchMaxRequests {
		bad("batch.max_requests", "must be between 1 and %d (the providers' limit)", DefaultBatchMaxRequests)
	}
	if b.MaxBytes < 0 || b.MaxBytes > DefaultBatchMaxBytes {
		bad("batch.max_bytes", "must be between 1 and %d (the providers' limit)", DefaultBatchMaxBytes)
	}
	if b.Poll < 0 {
		bad("batch.poll", "must not be negative")
	}
	if b.Collect < 0 {
		bad("batch.collect", "must not be negative")
	}
	return errors.Join(errs...)
}

// EndpointsFile is the shape of an endpoints YAML file.
type EndpointsFile struct {
	Endpoints []Endpoint `yaml:"endpoints"`
}

// LoadEndpoints reads and validates an endpoints file. Unknown fields are
// errors (a misspelt "temprature" must not silently fall back to a default).
// Every problem is reported with the file name and the field path.
func LoadEndpoints(path string) ([]Endpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseEndpoints(path, data)
}

// ParseEndpoints is [LoadEndpoints] on bytes already read; name is used in
// error messages.
func ParseEndpoints(name string, data []byte) ([]Endpoint, error) {
	var f EndpointsFile
	if err := DecodeYAML(name, data, &f); err != nil {
		return nil, err
	}
	if len(f.Endpoints) == 0 {
		return nil, &ConfigError{File: name, Field: "endpoints", Problem: "no endpoints"}
	}
	var errs []error
	seen := map[string]int{}
	for i, ep := range f.Endpoints {
		prefix := fmt.Sprintf("endpoints[%d]", i)
		if err := ep.Validate(); err != nil {
			errs = append(errs, InFile(err, name, prefix))
		}
		if j, dup := seen[ep.Name]; dup && ep.Name != "" {
			errs = append(errs, &ConfigError{File: name, Field: prefix + ".name",
				Problem: fmt.Sprintf("%q is also the name of endpoints[%d]", ep.Name, j)})
		}
		seen[ep.Name] = i
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return f.Endpoints, nil
}

// InFile returns err (from [Endpoint.Validate]) with every [*ConfigError]
// placed in file under the field prefix, for callers that embed an Endpoint
// in their own YAML (a models file, a judge config).
func InFile(err error, file, prefix string) error {
	if err == nil {
		return nil
	}
	var parts []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	} else {
		parts = []error{err}
	}
	out := make([]error, 0, len(parts))
	for _, p := range parts {
		var ce *ConfigError
		if errors.As(p, &ce) {
			c := *ce
			c.File = file
			if prefix != "" {
				if c.Field != "" {
					c.Field = prefix + "." + c.Field
				} else {
					c.Field = prefix
				}
			}
			out = append(out, &c)
		} else {
			out = append(out, fmt.Errorf("%s: %s: %w", file, prefix, p))
		}
	}
	return errors.Join(out...)
}
