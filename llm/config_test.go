package llm_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/clinsql/clinsql/llm"
)

func TestExampleEndpointsFile(t *testing.T) {
	eps, err := llm.LoadEndpoints(filepath.Join("testdata", "endpoints.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 3 {
		t.Fatalf("%d endpoints", len(eps))
	}
	j := eps[0]
	if j.Kind != llm.KindOpenAI || j.Model != "gpt-4o-mini" || j.Sampling.Temperature == nil || *j.Sampling.Temperature != 0 ||
		*j.Sampling.Seed != 7 || !j.Capabilities.JSONSchema || j.Limits.Timeout != time.Minute || j.Retry.Budget != 5*time.Minute {
		t.Errorf("endpoint 0 = %+v", j)
	}
	az := eps[1]
	if az.Kind != llm.KindAzure || az.Deployment != "o3-mini-prod" || !az.Capabilities.NoTemperature || !az.Capabilities.MaxCompletionTokens {
		t.Errorf("endpoint 1 = %+v", az)
	}
	if az.Mode != llm.ModeBatch || az.Batch.Poll != time.Minute || az.WithDefaults().Batch.MaxRequests != llm.DefaultBatchMaxRequests {
		t.Errorf("endpoint 1 batch settings = %+v %+v", az.Mode, az.Batch)
	}
	local := eps[2].WithDefaults()
	if local.APIKeyEnv != "" || local.Limits.Timeout != llm.DefaultTimeout || local.Retry.MaxAttempts != llm.DefaultMaxAttempts || len(local.Sampling.Stop) != 1 {
		t.Errorf("endpoint 2 = %+v", local)
	}
}

func TestEndpointErrorsNameFileAndField(t *testing.T) {
	const head = "endpoints:\n  - name: a\n    kind: openai\n    model: m\n"
	tests := []struct {
		name, yaml string
		want       []string // substrings of the error
		notWant    string
	}{
		{"no endpoints", "endpoints: []\n", []string{"endpoints: no endpoints"}, ""},
		{"missing name", "endpoints:\n  - kind: openai\n    model: m\n", []string{"endpoints[0].name: is required"}, ""},
		{"missing model and kind", "endpoints:\n  - name: a\n", []string{"endpoints[0].kind: is required", "endpoints[0].model: is required"}, ""},
		{"bad kind", "endpoints:\n  - name: a\n    kind: anthropic\n    model: m\n", []string{"endpoints[0].kind"}, ""},
		{"azure without deployment", "endpoints:\n  - name: a\n    kind: azure\n    model: m\n    base_url: https://x.openai.azure.com\n",
			[]string{"endpoints[0].deployment: is required", "endpoints[0].api_version: is required"}, ""},
		{"deployment on openai", head + "    deployment: d\n", []string{"endpoints[0].deployment: is only for kind azure"}, ""},
		{"credentials in URL", head + "    base_url: https://user:hunter2@example.com/v1\n", []string{"endpoints[0].base_url: must not contain credentials"}, "hunter2"},
		{"key instead of variable", head + "    api_key_env: sk-proj-abcdef123456\n", []string{"endpoints[0].api_key_env"}, "sk-proj-abcdef123456"},
		{"temperature range", head + "    sampling: {temperature: 2.5}\n", []string{"endpoints[0].sampling.temperature"}, ""},
		{"temperature unsupported", head + "    sampling: {temperature: 0}\n    capabilities: {no_temperature: true}\n",
			[]string{"endpoints[0].sampling.temperature: is set but capabilities.no_temperature is true"}, ""},
		{"negative rpm", head + "    limits: {rpm: -1}\n", []string{"endpoints[0].limits.rpm"}, ""},
		{"misspelt field", head + "    sampling: {temprature: 0}\n", []string{`judge.yaml:5: endpoints[0].sampling.temprature: unknown key "temprature"; allowed here: max_tokens, seed, stop, temperature, top_p`}, ""},
		{"bad duration", head + "    limits: {timeout: soon}\n", []string{"soon"}, ""},
		{"duplicate names", head + "  - name: a\n    kind: openai\n    model: n\n", []string{"endpoints[1].name", "endpoints[0]"}, ""},
		{"bad mode", head + "    mode: offline\n", []string{`endpoints[0].mode: "offline" is not online or batch`}, ""},
		{"batch over the provider's limits", head + "    mode: batch\n    batch: {max_requests: 60000, max_bytes: 300000000}\n",
			[]string{"endpoints[0].batch.max_requests", "endpoints[0].batch.max_bytes"}, ""},
		{"second endpoint", head + "  - name: b\n    kind: openai\n    model: n\n    retry: {max_attempts: -2}\n", []string{"endpoints[1].retry.max_attempts"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := llm.ParseEndpoints("judge.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range append(tt.want, "judge.yaml:") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if tt.notWant != "" && strings.Contains(msg, tt.notWant) {
				t.Errorf("error %q echoes a secret", msg)
			}
			var ce *llm.ConfigError
			if !errors.As(err, &ce) || ce.File != "judge.yaml" {
				t.Errorf("not a *ConfigError with the file: %#v", err)
			}
		})
	}
}

func TestInFile(t *testing.T) {
	err := llm.Endpoint{Name: "x", Kind: llm.KindOpenAI}.Validate()
	got := llm.InFile(err, "models.yaml", "models[3].endpoint").Error()
	if got != "models.yaml: models[3].endpoint.model: is required" {
		t.Errorf("got %q", got)
	}
	if llm.InFile(nil, "f", "p") != nil {
		t.Error("InFile(nil) != nil")
	}
}

// TestEmbedInline checks the pattern doc.go recommends to callers with their
// own YAML: an inline Endpoint plus their own fields, unknown fields refused.
func TestEmbedInline(t *testing.T) {
	type model struct {
		llm.Endpoint `yaml:",inline"`
		PromptMode   string `yaml:"prompt_mode"`
	}
	var f struct {
		Models []model `yaml:"models"`
	}
	src := "models:\n  - name: a\n    kind: openai\n    model: m\n    prompt_mode: cot\n    limits: {concurrency: 2}\n"
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	if len(f.Models) != 1 || f.Models[0].PromptMode != "cot" || f.Models[0].Limits.Concurrency != 2 || f.Models[0].Validate() != nil {
		t.Errorf("decoded %+v", f.Models)
	}
	dec = yaml.NewDecoder(strings.NewReader(src + "    bogus: 1\n"))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown field accepted: %v", err)
	}
}
