package llmfmt

// Message roles.
const (
	RoleSystem    = "system"
	RoleDeveloper = "developer"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Sampling holds the sampling parameters. In an endpoint (llm.Endpoint)
// they are the defaults; in a request (llm.Request) any field that is set
// overrides the default. Pointers distinguish "unset" from zero:
// temperature 0 is sent as 0.
//
// The fields have no JSON names: the files that record Sampling as JSON
// (run settings, cache keys) spell them as Go does, and keep doing so.
type Sampling struct {
	Temperature *float64 `yaml:"temperature,omitempty"`
	TopP        *float64 `yaml:"top_p,omitempty"`
	// MaxTokens caps the completion (0 = the server's default).
	MaxTokens int `yaml:"max_tokens,omitempty"`
	// Seed is sent as seed+Request.Sample, so the k samples of one prompt are
	// not identical by construction.
	Seed *int     `yaml:"seed,omitempty"`
	Stop []string `yaml:"stop,omitempty"`
}

// Logprobs summarises a completion's token log-probabilities. A summary
// rather than the list keeps llm.Response comparable and cache entries
// small.
type Logprobs struct {
	Tokens int     `json:"tokens"`
	Sum    float64 `json:"sum"`
	Min    float64 `json:"min"`
}

// Mean is the mean token log-probability (0 without tokens).
func (l Logprobs) Mean() float64 {
	if l.Tokens == 0 {
		return 0
	}
	return l.Sum / float64(l.Tokens)
}
