package llm

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestModelSpec(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		spec   string
		getenv func(string) string
		want   Endpoint
		err    string
	}{
		{"openai/gpt-4o", env("OPENAI_API_KEY", "k"), Endpoint{Name: "gpt-4o", Kind: KindOpenAI, Model: "gpt-4o", APIKeyEnv: "OPENAI_API_KEY"}, ""},
		{"openai/llama3", env("OPENAI_BASE_URL", "http://localhost:8000/v1"), Endpoint{Name: "llama3", Kind: KindOpenAI, Model: "llama3", BaseURL: "http://localhost:8000/v1"}, ""},
		{"azure/dep1", env("AZURE_OPENAI_API_KEY", "k", "AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com"),
			Endpoint{Name: "dep1", Kind: KindAzure, Model: "dep1", Deployment: "dep1", BaseURL: "https://x.openai.azure.com", APIVersion: "2024-10-21", APIKeyEnv: "AZURE_OPENAI_API_KEY"}, ""},
		{"openai/gpt-4o", env(), Endpoint{}, "set OPENAI_API_KEY"},
		{"azure/dep1", env("AZURE_OPENAI_API_KEY", "k"), Endpoint{}, "set AZURE_OPENAI_ENDPOINT"},
		{"gpt-4o", env(), Endpoint{}, "want PROVIDER/NAME"},
		{"anthropic/claude", env(), Endpoint{}, `provider "anthropic" is not openai, azure or mock`},
		{"openai/../x", env("OPENAI_API_KEY", "k"), Endpoint{}, "letters, digits"},
		{"mock/demo", env(), Endpoint{}, "started by the command"},
	} {
		s, err := ParseModelSpec(tc.spec)
		var e Endpoint
		if err == nil {
			e, err = s.Endpoint(tc.getenv)
		}
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.spec, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.spec, err)
		case tc.err == "" && !reflect.DeepEqual(e, tc.want):
			t.Errorf("%s: %+v, want %+v", tc.spec, e, tc.want)
		}
	}
}

// A failure a rerun would repeat says what to fix, never only "run again".
func TestAdvice(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&Error{Kind: KindBadRequest, Status: 404}, "does not know this model id"},
		{&Error{Kind: KindAuth, Status: 401}, "API key is missing or refused"},
		{&Error{Kind: KindQuota, Status: 429}, "quota is spent"},
		{&Error{Kind: KindServer, Status: 503}, ""},
		{context.Canceled, ""},
	} {
		if got := Advice(tc.err); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.err, got, tc.want)
		}
	}
}
