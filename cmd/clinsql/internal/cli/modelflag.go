package cli

import (
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/mock"
)

// mockSeed seeds the built-in model: the same questions always get the
// same answers and verdicts.
const mockSeed = 1

// specEndpoint is the endpoint --model PROVIDER/NAME names: openai and
// azure from the usual environment variables, mock a placeholder that
// startMock points at the built-in model once the questions are known.
func specEndpoint(env *Env, spec string) (llm.Endpoint, error) {
	s, err := llm.ParseModelSpec(spec)
	if err != nil {
		return llm.Endpoint{}, usageError{Msg: err.Error()}
	}
	if s.Provider == llm.ProviderMock {
		return mock.Placeholder(s.Name), nil
	}
	e, err := s.Endpoint(env.Getenv)
	if err != nil {
		return e, usageError{Msg: err.Error()}
	}
	return e, nil
}

// startMock starts the built-in model for the tasks' questions if one of
// the endpoints is its placeholder; the returned func stops it.
func startMock(tasks []*datasets.Task, endpoints ...*llm.Endpoint) (func(), error) {
	gold := map[string]string{}
	for _, t := range tasks {
		if t.GoldSQL != "" {
			gold[t.Question] = t.GoldSQL
		}
	}
	return mock.Resolve(endpoints, gold, mockSeed)
}
