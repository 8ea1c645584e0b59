package cli

import (
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/mock"
)

// mockSeed seeds the built-in model: the same questions always get the
// same answers and verdicts.
const mockSeed = 1

// modelFlagUsage is the help of --model on every command that generates
// (generate, and generate --benchmark ehrsql).
const modelFlagUsage = "one model as `PROVIDER/NAME`, no models file: openai/gpt-4o (OPENAI_API_KEY, OPENAI_BASE_URL), azure/DEPLOYMENT (AZURE_OPENAI_*), mock/NAME (the built-in model, offline)"

// checkModelSource refuses a command line with both or neither of
// --models FILE and --model PROVIDER/NAME.
func checkModelSource(file, spec string) error {
	if (file == "") == (spec == "") {
		return usagef("give --models FILE or --model PROVIDER/NAME (try --model mock/demo: the built-in model, no API key)")
	}
	return nil
}

// specEndpoint is the endpoint --model PROVIDER/NAME names: openai and
// azure from the usual environment variables, mock a placeholder that
// startMock points at the built-in model once the questions are known.
func specEndpoint(env *Env, spec string) (llm.Endpoint, error) {
	s, err := llm.ParseModelSpec(spec)
	if err != nil {
		return llm.Endpoint{}, usageError{err.Error()}
	}
	if s.Provider == llm.ProviderMock {
		return mock.Placeholder(s.Name), nil
	}
	e, err := s.Endpoint(env.Getenv)
	if err != nil {
		return e, usageError{err.Error()}
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

// startEHRSQLMock is startMock for EHRSQL questions: each split's label is
// its gold ("null" for a question the database cannot answer, so the
// mock's gold answer abstains there).
func startEHRSQLMock(splits []*ehrsql.Split, endpoints ...*llm.Endpoint) (func(), error) {
	gold := map[string]string{}
	for _, s := range splits {
		if s == nil {
			continue
		}
		for _, q := range s.Data.Questions {
			if sql := s.Labels.Values[q.ID]; sql != "" {
				gold[q.Question] = sql
			}
		}
	}
	return mock.Resolve(endpoints, gold, mockSeed)
}
