package ehrsqlbench

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine"
)

// Step is one abstention step of a strategy.
type Step string

const (
	// StepModel: the model answers "null" when it judges the question
	// unanswerable (the prompt invites it to).
	StepModel Step = "model"
	// StepLogprob: abstain when the answer's mean token log-probability is
	// below a threshold calibrated on the calibration split.
	StepLogprob Step = "logprob"
	// StepConsistency: abstain unless a share of the k samples at least a
	// calibrated threshold agree on the execution result (normalised as the
	// scorer normalises), or when the agreeing answer is "null".
	StepConsistency Step = "consistency"
	// StepEnsemble: abstain unless a quorum of the ensemble's models give
	// the same execution result.
	StepEnsemble Step = "ensemble"
	// StepExecutable: abstain when the answer fails to run or returns no
	// rows.
	StepExecutable Step = "executable"
)

var steps = []Step{StepModel, StepLogprob, StepConsistency, StepEnsemble, StepExecutable}

// Strategy is a list of steps applied in order: the first that abstains
// decides. Its name is the steps joined by "+" ("model+logprob").
type Strategy []Step

func (s Strategy) String() string {
	parts := make([]string, len(s))
	for i, st := range s {
		parts[i] = string(st)
	}
	return strings.Join(parts, "+")
}

// Has reports whether the strategy has step st.
func (s Strategy) Has(st Step) bool { return slices.Contains(s, st) }

// Calibrated reports whether the strategy has a threshold to calibrate.
func (s Strategy) Calibrated() bool { return s.Has(StepLogprob) || s.Has(StepConsistency) }

// ParseStrategy reads "model+logprob+executable".
func ParseStrategy(text string) (Strategy, error) {
	var s Strategy
	for _, p := range strings.Split(text, "+") {
		st := Step(strings.TrimSpace(p))
		if !slices.Contains(steps, st) {
			return nil, fmt.Errorf("%q: step %q is not one of model, logprob, consistency, ensemble, executable", text, st)
		}
		if s.Has(st) {
			return nil, fmt.Errorf("%q: step %q twice", text, st)
		}
		s = append(s, st)
	}
	return s, nil
}

// Consistency configures the self-consistency samples.
type Consistency struct {
	// K is the number of samples per question, the first included
	// (default 5): consistency costs K times the calls.
	K int `yaml:"k,omitempty"`
	// Temperature of the extra samples (default 0.7); the first sample
	// keeps the model's own sampling.
	Temperature *float64 `yaml:"temperature,omitempty"`
}

// Ensemble names the models whose answers must agree.
type Ensemble struct {
	// Models are other models of the same run (this model always takes part).
	Models []string `yaml:"models"`
	// Quorum is how many of the ensemble (this model included) must give
	// the same result (default: all).
	Quorum int `yaml:"quorum,omitempty"`
}

// Model is one entry of an EHRSQL models file: a refine.Model (endpoint,
// rounds, tasks) plus the EHRSQL settings.
type Model struct {
	refine.Model `yaml:",inline"`
	// Shots is the number of nearest train examples in the prompt (default 0).
	Shots int `yaml:"shots,omitempty"`
	// Strategies are the abstention strategies scored side by side, each a
	// "+"-joined list of steps (default: ["model"]).
	Strategies  []string    `yaml:"strategies,omitempty"`
	Consistency Consistency `yaml:"consistency,omitempty"`
	Ensemble    Ensemble    `yaml:"ensemble,omitempty"`

	parsed []Strategy
}

// Defaults.
const (
	DefaultK           = 5
	DefaultTemperature = 0.7
	MaxShots           = 20
	MaxK               = 20
)

// StrategyList returns the parsed strategies (validated by LoadModels).
func (m Model) StrategyList() []Strategy {
	if m.parsed != nil {
		return m.parsed
	}
	var out []Strategy
	for _, s := range m.Strategies {
		if st, err := ParseStrategy(s); err == nil {
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		out = []Strategy{{StepModel}}
	}
	return out
}

// needs reports whether any strategy has step st.
func (m Model) needs(st Step) bool {
	for _, s := range m.StrategyList() {
		if s.Has(st) {
			return true
		}
	}
	return false
}

// Samples is the number of answers asked per question: K when a strategy
// uses consistency, else 1.
func (m Model) Samples() int {
	if !m.needs(StepConsistency) {
		return 1
	}
	if m.Consistency.K == 0 {
		return DefaultK
	}
	return m.Consistency.K
}

// Quorum is the ensemble quorum (default: every member).
func (m Model) Quorum() int {
	if m.Ensemble.Quorum > 0 {
		return m.Ensemble.Quorum
	}
	return 1 + len(m.Ensemble.Models)
}

func (m Model) temperature() float64 {
	if m.Consistency.Temperature != nil {
		return *m.Consistency.Temperature
	}
	return DefaultTemperature
}

// LoadModels reads and validates an EHRSQL models file; every problem
// names the file and the field.
func LoadModels(path string) ([]Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModels(path, data)
}

// ParseModels is LoadModels on bytes already read.
func ParseModels(name string, data []byte) ([]Model, error) {
	models, err := refine.DecodeModels[Model](name, data)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	base := make([]refine.Model, len(models))
	for i, m := range models {
		names[m.Name] = true
		base[i] = m.Model
	}
	errs := refine.CheckModels(name, base)
	for i := range models {
		m := &models[i]
		prefix := fmt.Sprintf("models[%d]", i)
		bad := func(field, format string, a ...any) {
			errs = append(errs, &llm.ConfigError{File: name, Field: prefix + "." + field, Problem: fmt.Sprintf(format, a...)})
		}
		if m.Prompt != "" {
			bad("prompt", "EHRSQL prompts have one wording; leave prompt unset")
		}
		if m.Shots < 0 || m.Shots > MaxShots {
			bad("shots", "%d is outside [0, %d]", m.Shots, MaxShots)
		}
		if m.Consistency.K != 0 && (m.Consistency.K < 2 || m.Consistency.K > MaxK) {
			bad("consistency.k", "%d is outside [2, %d]", m.Consistency.K, MaxK)
		}
		if t := m.Consistency.Temperature; t != nil && (*t < 0 || *t > 2) {
			bad("consistency.temperature", "%v is outside [0, 2]", *t)
		}
		for j, s := range m.Strategies {
			st, err := ParseStrategy(s)
			if err != nil {
				bad(fmt.Sprintf("strategies[%d]", j), "%v", err)
				continue
			}
			m.parsed = append(m.parsed, st)
		}
		if len(m.Strategies) == 0 {
			m.parsed = []Strategy{{StepModel}}
		}
		if m.needs(StepLogprob) && !m.WithDefaults().Capabilities.Logprobs {
			bad("strategies", "logprob needs an endpoint that returns log-probabilities: set capabilities: {logprobs: true} if it does")
		}
		if m.needs(StepEnsemble) {
			if len(m.Ensemble.Models) == 0 {
				bad("ensemble.models", "the ensemble strategy needs other models of the run")
			}
			for j, o := range m.Ensemble.Models {
				if !names[o] || o == m.Name {
					bad(fmt.Sprintf("ensemble.models[%d]", j), "%q is not another model of this file", o)
				}
			}
			if q := m.Ensemble.Quorum; q < 0 || q > 1+len(m.Ensemble.Models) {
				bad("ensemble.quorum", "%d is outside [1, %d]", q, 1+len(m.Ensemble.Models))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return models, nil
}
