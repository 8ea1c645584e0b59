package cli

import (
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

// startMock starts the built-in model, answering gold (datasets' or
// ehrsql's GoldByQuestion), if one of the endpoints is its placeholder;
// the returned func stops it.
func startMock(gold map[string]string, endpoints ...*llm.Endpoint) (func(), error) {
	return mock.Resolve(endpoints, gold, mockSeed)
}
