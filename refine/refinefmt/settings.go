package refinefmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/runfolder"
)

// SettingsFile holds a model's run settings in its run folder.
const SettingsFile = "clinsql_generate.json"

// Settings are what a run's answers depend on. A run folder keeps them in
// SettingsFile, every task's summary in TaskDetail.Settings, and a resumed
// run must have the same.
type Settings struct {
	Model         string          `json:"model"`    // the models file's name
	ModelID       string          `json:"model_id"` // sent to the endpoint
	Kind          string          `json:"kind"`
	Host          string          `json:"host"` // base URL host and path, no credentials
	Deployment    string          `json:"deployment,omitempty"`
	Sampling      llmfmt.Sampling `json:"sampling"`
	Prompt        PromptMode      `json:"prompt"`
	PromptVersion string          `json:"prompt_version"`
	SchemaSHA256  string          `json:"schema_sha256"`
	Rounds        int             `json:"rounds"`
	RefineOnEmpty bool            `json:"refine_on_empty"`
	History       bool            `json:"history"`
	Engine        string          `json:"engine"`
	// EngineSemantics are the engine's options that change results (the
	// embedded engine's division by zero), when it reports them.
	EngineSemantics string `json:"engine_semantics,omitempty"`
}

// PromptMode selects the prompts a model is given (see refine.Prompter).
type PromptMode string

const (
	// ModeCoT asks for step-by-step reasoning, then one fenced SQL block.
	ModeCoT PromptMode = "cot"
	// ModeDirect asks for the SQL only, in one fenced block.
	ModeDirect PromptMode = "direct"
	// ModeSchemaHinted is ModeCoT plus the task's clinically validated
	// filters and expected output columns, taken from its rubrics.
	ModeSchemaHinted PromptMode = "schema-hinted"
)

// Modes lists the prompt modes in the order help texts show them.
var Modes = []PromptMode{ModeCoT, ModeDirect, ModeSchemaHinted}

// ReadSettings reads the SettingsFile of run folder dir; ok is false when
// the folder has none. A file that does not decode is an error naming it.
func ReadSettings(dir string) (s Settings, ok bool, err error) {
	path := filepath.Join(dir, SettingsFile)
	// A run folder may come from elsewhere: read it as every other file
	// of one, regular files only, within a bound.
	b, err := runfolder.ReadFile(path, runfolder.MaxSummaryBytes)
	if errors.Is(err, os.ErrNotExist) {
		return Settings{}, false, nil
	}
	if err != nil {
		return Settings{}, false, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&s); err != nil {
		return Settings{}, false, fmt.Errorf("%s: %v", path, err)
	}
	return s, true, nil
}

// WriteSettings writes s as the SettingsFile of run folder dir.
func WriteSettings(dir string, s Settings) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, SettingsFile), append(b, '\n'))
}
