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
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}
