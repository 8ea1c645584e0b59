package llm

import (
	"fmt"
	"regexp"
	"strings"
)

// ModelSpec is a model named on the command line as PROVIDER/NAME
// (--model openai/gpt-4o), the way Inspect and promptfoo name one, instead
// of an endpoint in a YAML file.
type ModelSpec struct {
	Provider string // openai, azure or mock
	Name     string // the model id (openai), the deployment (azure), a label (mock)
}

// Providers a ModelSpec may name. "mock" is clinsql's built-in model
// (package llm/mock), started by the command that needs it.
const (
	ProviderOpenAI = "openai"
	ProviderAzure  = "azure"
	ProviderMock   = "mock"
)

// The environment variables a ModelSpec's endpoint reads, as the providers'
// own SDKs name them.
const (
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL" // any OpenAI-compatible server
	EnvAzureKey         = "AZURE_OPENAI_API_KEY"
	EnvAzureEndpoint    = "AZURE_OPENAI_ENDPOINT"
	EnvAzureVersion     = "OPENAI_API_VERSION"
	defaultAzureVersion = "2024-10-21"
)

// specName is what a NAME may hold: it becomes an output folder.
var specName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:+-]*$`)

// ParseModelSpec parses PROVIDER/NAME.
func ParseModelSpec(s string) (ModelSpec, error) {
	p, name, ok := strings.Cut(s, "/")
	if !ok || name == "" {
		return ModelSpec{}, fmt.Errorf("--model %q: want PROVIDER/NAME, e.g. openai/gpt-4o, azure/DEPLOYMENT or mock/demo", s)
	}
	switch p {
	case ProviderOpenAI, ProviderAzure, ProviderMock:
	default:
		return ModelSpec{}, fmt.Errorf("--model %q: provider %q is not openai, azure or mock (another OpenAI-compatible server: openai/NAME with %s set)", s, p, EnvOpenAIBaseURL)
	}
	if !specName.MatchString(name) {
		return ModelSpec{}, fmt.Errorf("--model %q: the name %q may hold letters, digits and . _ : + - only (it names the output folder)", s, name)
	}
	return ModelSpec{Provider: p, Name: name}, nil
}

// Endpoint is the endpoint an openai or azure spec names, configured from
// the environment (getenv, os.Getenv in use): openai reads OPENAI_API_KEY
// and, for another OpenAI-compatible server, OPENAI_BASE_URL; azure reads
// AZURE_OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT and OPENAI_API_VERSION. A
// mock spec has no endpoint until its server starts.
func (s ModelSpec) Endpoint(getenv func(string) string) (Endpoint, error) {
	e := Endpoint{Name: s.Name, Model: s.Name}
	switch s.Provider {
	case ProviderOpenAI:
		e.Kind, e.BaseURL, e.APIKeyEnv = KindOpenAI, getenv(EnvOpenAIBaseURL), EnvOpenAIKey
	case ProviderAzure:
		e.Kind, e.BaseURL, e.APIKeyEnv, e.Deployment = KindAzure, getenv(EnvAzureEndpoint), EnvAzureKey, s.Name
		if e.APIVersion = getenv(EnvAzureVersion); e.APIVersion == "" {
			e.APIVersion = defaultAzureVersion
		}
		if e.BaseURL == "" {
			return e, fmt.Errorf("--model %s/%s: set %s to the resource URL (https://NAME.openai.azure.com)", s.Provider, s.Name, EnvAzureEndpoint)
		}
	default:
		return e, fmt.Errorf("--model %s/%s: the mock is started by the command, not configured", s.Provider, s.Name)
	}
	if getenv(e.APIKeyEnv) == "" {
		if e.BaseURL == "" || e.Kind == KindAzure {
			return e, fmt.Errorf("--model %s/%s: set %s to your API key (or try the built-in model: --model mock/demo)", s.Provider, s.Name, e.APIKeyEnv)
		}
		e.APIKeyEnv = "" // a local OpenAI-compatible server without a key
	}
	if err := e.Validate(); err != nil {
		return e, fmt.Errorf("--model %s/%s: %w", s.Provider, s.Name, err)
	}
	return e, nil
}
