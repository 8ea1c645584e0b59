package cli

import (
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/bench"
)

// benchConfig is the file clinsql run takes (refine/bench).
type benchConfig struct {
	*bench.Config
	file, judgeRaw string
	judgeModel     string // run --judge PROVIDER/NAME (no config file)
	models         []refine.Model
}

// loadBenchConfig reads and checks a benchmark config and the models file
// it names (bench.Load).
func loadBenchConfig(path string) (*benchConfig, error) {
	c, err := bench.Load(path)
	if err != nil {
		return nil, err
	}
	return &benchConfig{Config: c, file: c.File, judgeRaw: c.JudgeRaw, models: c.LoadedModels}, nil
}

// generateConfig is the generation part of the benchmark.
func (c *benchConfig) generateConfig(quiet bool) generateConfig {
	return generateConfig{
		Models: c.models, Tasks: c.Tasks, Filter: c.filter(), Out: c.Out, Cache: c.Cache,
		Prices: c.Prices, Budget: c.BudgetUSD, Concurrency: c.Concurrency, Engine: c.Engine.Name, Quiet: quiet,
		EngineCfg: c.EngineConfig(),
	}
}

// filter is the config's subset, as the subset flags give it.
func (c *benchConfig) filter() *taskFilter {
	return &taskFilter{sel: datasets.Selection{Split: c.Split, Domain: c.Domain, Difficulty: c.Difficulty, Limit: c.Limit}, keys: c.Task}
}
