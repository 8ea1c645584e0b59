package refine

import (
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine/refinefmt"
)

// DefaultRounds is the number of refinement rounds after the first attempt
// when a model does not say (the reference's three executions in all).
const DefaultRounds = 2

// MaxRounds bounds Rounds: each round is a paid call.
const MaxRounds = 10

// Model is one entry of a models file: an LLM endpoint (inline, see package
// llm: name, kind, base_url, model, api_key_env, sampling, capabilities,
// limits, retry) plus how clinsql generate drives it.
type Model struct {
	llm.Endpoint `yaml:",inline"`
	// Prompt is the prompt mode (default cot).
	Prompt refinefmt.PromptMode `yaml:"prompt,omitempty"`
	// Rounds is the number of fix requests allowed after the first attempt
	// (default 2; 0 disables refinement).
	Rounds *int `yaml:"rounds,omitempty"`
	// RefineOnEmpty also asks for a fix when a query runs but returns no
	// rows (the reference refines on errors only).
	RefineOnEmpty bool `yaml:"refine_on_empty,omitempty"`
	// History shows every earlier attempt of the task in a fix request, not
	// only the last one.
	History bool `yaml:"history,omitempty"`
	// Tasks is the number of this model's tasks in flight at once (default:
	// limits.concurrency, itself 4 by default). A task waits for its model
	// call under the endpoint's own concurrency and rate limits, so Tasks
	// above limits.concurrency only overlaps execution with generation.
	Tasks int `yaml:"tasks,omitempty"`
}

// RoundsOrDefault returns Rounds, or DefaultRounds when unset.
func (m Model) RoundsOrDefault() int {
	if m.Rounds == nil {
		return DefaultRounds
	}
	return *m.Rounds
}

// PromptOrDefault returns Prompt, or ModeCoT when unset.
func (m Model) PromptOrDefault() refinefmt.PromptMode {
	if m.Prompt == "" {
		return refinefmt.ModeCoT
	}
	return m.Prompt
}

// TasksOrDefault returns Tasks, or the endpoint's concurrency.
func (m Model) TasksOrDefault() int {
	if m.Tasks > 0 {
		return m.Tasks
	}
	return m.Endpoint.WithDefaults().Limits.Concurrency
}

// safeName is what a model name may be: it names the model's folder in the
// output, so no path separators, no leading dot.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+=@-]*$`)

// Validate checks the model and returns every problem, each an
// [*llm.ConfigError] with a field path relative to the model.
func (m Model) Validate() error {
	var errs []error
	if err := m.Endpoint.Validate(); err != nil {
		// Flatten, so that llm.InFile places every problem, not the first.
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = append(errs, j.Unwrap()...)
		} else {
			errs = append(errs, err)
		}
	}
	bad := func(field, format string, a ...any) {
		errs = append(errs, &llm.ConfigError{Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	if m.Name != "" && !safeName.MatchString(m.Name) {
		bad("name", "%q cannot name a folder: use letters, digits and _ . + = @ - (not first: . -)", m.Name)
	}
	switch m.Prompt {
	case "", refinefmt.ModeCoT, refinefmt.ModeDirect, refinefmt.ModeSchemaHinted:
	default:
		bad("prompt", "%q is not one of cot, direct, schema-hinted", m.Prompt)
	}
	if m.Rounds != nil && (*m.Rounds < 0 || *m.Rounds > MaxRounds) {
		bad("rounds", "%d is outside [0, %d]", *m.Rounds, MaxRounds)
	}
	if m.Tasks < 0 {
		bad("tasks", "must not be negative")
	}
	return errors.Join(errs...)
}

// ModelsFile is the shape of a models file:
//
//	models:
//	  - name: gpt-4.1
//	    kind: openai
//	    model: gpt-4.1
//	    api_key_env: OPENAI_API_KEY
//	    sampling: {temperature: 0.2, max_tokens: 4096}
//	    limits: {concurrency: 8, rpm: 500}
//	    prompt: cot
//	    rounds: 2
//
// See testdata/models.example.yaml for every field.
type ModelsFile struct {
	Models []Model `yaml:"models"`
}

// LoadModels reads and validates a models file. Unknown fields are errors;
// every problem names the file and the field ("models.yaml:
// models[1].sampling.temperature: 3 is outside [0, 2]").
func LoadModels(path string) ([]Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModels(path, data)
}

// ParseModels is [LoadModels] on bytes already read; name is used in errors.
func ParseModels(name string, data []byte) ([]Model, error) {
	models, err := DecodeModels[Model](name, data)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(CheckModels(name, models)...); err != nil {
		return nil, err
	}
	return models, nil
}

// DecodeModels decodes the models list of a models file whose entries are
// M (Model, or a benchmark's extension of it) strictly: unknown fields are
// errors, and so is a file without models.
func DecodeModels[M any](name string, data []byte) ([]M, error) {
	var f struct {
		Models []M `yaml:"models"`
	}
	if err := llm.DecodeYAML(name, data, &f); err != nil {
		return nil, err
	}
	if len(f.Models) == 0 {
		return nil, &llm.ConfigError{File: name, Field: "models", Problem: "no models"}
	}
	return f.Models, nil
}

// CheckModels validates each model and that no two share a name (names are
// output folders), every problem located by file and field.
func CheckModels(name string, models []Model) []error {
	var errs []error
	seen := map[string]int{}
	for i, m := range models {
		prefix := fmt.Sprintf("models[%d]", i)
		if err := m.Validate(); err != nil {
			errs = append(errs, llm.InFile(err, name, prefix))
		}
		// Names are folders: two models differing only in case would share
		// one on case-insensitive file systems.
		if j, dup := seen[lowerASCII(m.Name)]; dup && m.Name != "" {
			errs = append(errs, &llm.ConfigError{File: name, Field: prefix + ".name",
				Problem: fmt.Sprintf("%q is also the name of models[%d] (names are output folders)", m.Name, j)})
		}
		seen[lowerASCII(m.Name)] = i
	}
	return errs
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
