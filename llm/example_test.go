package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// Example judges one answer twice through the fake server: the second call
// is answered by the cache. A prompt that is too long fails with a typed
// error that the caller records as data.
func Example() {
	// A fake OpenAI-compatible server; a real run points BaseURL at the
	// provider instead.
	srv := llmtest.New(llmtest.ByPrompt(
		llmtest.Fixed(llmtest.JSON(map[string]string{"verdict": "pass"})),
		llmtest.Match("HUGE", llmtest.Fixed(llmtest.ContextLengthExceeded())),
	), llmtest.Options{})
	defer srv.Close()
	os.Setenv("EXAMPLE_API_KEY", "sk-example") // keys come only from the environment

	dir, _ := os.MkdirTemp("", "llm-example")
	defer os.RemoveAll(dir)
	cache, _ := llm.OpenCache(dir)
	meter := llm.NewMeter(llm.Prices{"gpt-4o-mini": {Prompt: 0.15, Completion: 0.60}}, 1.00)

	c, err := llm.New(llm.Endpoint{
		Name: "judge", Kind: llm.KindOpenAI, BaseURL: srv.OpenAIBaseURL(),
		Model: "gpt-4o-mini", APIKeyEnv: "EXAMPLE_API_KEY",
		Sampling:     llmfmt.Sampling{Temperature: new(0.0), MaxTokens: 200},
		Capabilities: llm.Capabilities{JSONSchema: true},
	}, llm.Options{Cache: cache, Meter: meter})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llmfmt.RoleSystem, Content: "You judge SQL results."},
			{Role: llmfmt.RoleUser, Content: "Does the result have a column for age?"},
		},
		Schema: &llm.Schema{Name: "verdict", Strict: true, Schema: json.RawMessage(
			`{"type":"object","properties":{"verdict":{"enum":["pass","fail"]}},"required":["verdict"],"additionalProperties":false}`)},
		Tag: "task-1/leaf-3",
	}
	for range 2 {
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s from cache: %v\n", resp.Text, resp.FromCache)
	}

	req.Messages[1].Content = "HUGE " + strings.Repeat("row ", 10)
	_, err = c.Complete(context.Background(), req)
	kind := llm.KindOf(err)
	fmt.Printf("error kind %s, request at fault: %v\n", kind, kind.RequestFault())

	fmt.Println("HTTP calls:", srv.Calls())
	t := meter.Total()
	fmt.Printf("calls %d, cache hits %d, failures %d\n", t.Calls, t.CacheHits, t.Failures)
	// Output:
	// {"verdict":"pass"} from cache: false
	// {"verdict":"pass"} from cache: true
	// error kind context_length, request at fault: true
	// HTTP calls: 2
	// calls 2, cache hits 1, failures 1
}
