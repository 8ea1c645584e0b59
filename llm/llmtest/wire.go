package llmtest

import (
	"encoding/json"
	"strings"
)

// ChatRequest is a decoded chat-completions request body. Pointer fields are
// nil when the field was absent, so a test can tell "temperature": 0 from
// no temperature.
type ChatRequest struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Seed                *int            `json:"seed"`
	Stop                StopList        `json:"stop"`
	ResponseFormat      *ResponseFormat `json:"response_format"`
	Stream              bool            `json:"stream"`
	Logprobs            *bool           `json:"logprobs"`
	TopLogprobs         *int            `json:"top_logprobs"`
}

// Message is one chat message. Content given as an array of parts is
// flattened to its text parts.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role = raw.Role
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw.Content, &m.Content); err == nil {
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return err
	}
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	m.Content = sb.String()
	return nil
}

// StopList accepts the API's string-or-array "stop".
type StopList []string

func (s *StopList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = StopList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

// ResponseFormat is the request's response_format.
type ResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	} `json:"json_schema"`
}

// Call is one valid request as the server received it.
type Call struct {
	Seq     int         // arrival order, from 1 (counting invalid requests too)
	Path    string      // URL path
	Request ChatRequest // decoded body
	Raw     []byte      // body as sent
	// Azure requests: the deployment from the path and the api-version.
	Azure      bool
	Deployment string
	APIVersion string
	// Batch requests: the batch and the line's custom_id ("" online).
	Batch    string
	CustomID string
}

// Prompt is every message's content joined by newlines, for matching.
func (c *Call) Prompt() string {
	var sb strings.Builder
	for i, m := range c.Request.Messages {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(m.Content)
	}
	return sb.String()
}

// LastUser is the content of the last user message.
func (c *Call) LastUser() string {
	for i := len(c.Request.Messages) - 1; i >= 0; i-- {
		if c.Request.Messages[i].Role == "user" {
			return c.Request.Messages[i].Content
		}
	}
	return ""
}

// APIError is OpenAI's error object ({"error": {...}}).
type APIError struct {
	Message string
	Type    string
	Param   string // "" is sent as null
	Code    string // "" is sent as null
}

func (e APIError) MarshalJSON() ([]byte, error) {
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return json.Marshal(map[string]any{"message": e.Message, "type": e.Type, "param": orNull(e.Param), "code": orNull(e.Code)})
}

type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   usage    `json:"usage"`
}

type choice struct {
	Index        int             `json:"index"`
	Message      Message         `json:"message"`
	Logprobs     *choiceLogprobs `json:"logprobs"`
	FinishReason string          `json:"finish_reason"`
}

// choiceLogprobs is OpenAI's choices[].logprobs: null unless the request
// asked for logprobs.
type choiceLogprobs struct {
	Content []tokenLogprob `json:"content"`
	Refusal []tokenLogprob `json:"refusal"`
}

type tokenLogprob struct {
	Token       string         `json:"token"`
	Logprob     float64        `json:"logprob"`
	Bytes       []int          `json:"bytes"`
	TopLogprobs []tokenLogprob `json:"top_logprobs"`
}

// tokenize cuts s into the fake's tokens: pieces of up to 4 bytes, on rune
// boundaries (the usual rule of thumb for English text).
func tokenize(s string) []string {
	var out []string
	for len(s) > 0 {
		n := 0
		for _, r := range s {
			l := len(string(r))
			if n > 0 && n+l > 4 {
				break
			}
			n += l
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// logprobsFor is the logprobs object of content: token i gets per[i] when
// given (the last value repeats), else each.
func logprobsFor(content string, each float64, per []float64) *choiceLogprobs {
	lp := &choiceLogprobs{Content: []tokenLogprob{}}
	for i, tok := range tokenize(content) {
		v := each
		if len(per) > 0 {
			v = per[min(i, len(per)-1)]
		}
		b := make([]int, len(tok))
		for j := range len(tok) {
			b[j] = int(tok[j])
		}
		lp.Content = append(lp.Content, tokenLogprob{Token: tok, Logprob: v, Bytes: b, TopLogprobs: []tokenLogprob{}})
	}
	return lp
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}
