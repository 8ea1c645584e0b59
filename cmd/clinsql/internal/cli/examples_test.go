package cli

import (
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/refine/bench"

	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine"
)

// TestExampleConfigs loads the example configuration files the README
// points to, with the loaders the commands use, so that they cannot rot.
func TestExampleConfigs(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "examples")
	jc, err := judge.LoadConfig(filepath.Join(dir, "judge.yaml"))
	if err != nil {
		t.Fatalf("examples/judge.yaml: %v", err)
	}
	if jc.Endpoint.Retry.DownAfter == 0 || jc.BudgetUSD == 0 {
		t.Errorf("examples/judge.yaml lost its settings: %+v", jc)
	}
	bc, err := bench.Load(filepath.Join(dir, "bench.yaml"))
	if err != nil {
		t.Fatalf("examples/bench.yaml: %v", err)
	}
	if len(bc.LoadedModels) != 2 || bc.Judge != filepath.Join(dir, "judge.yaml") {
		t.Errorf("examples/bench.yaml: %d models, judge %q", len(bc.LoadedModels), bc.Judge)
	}
	if _, err := refine.LoadModels(filepath.Join(dir, "models.yaml")); err != nil {
		t.Errorf("examples/models.yaml: %v", err)
	}
	if _, err := ehrsqlbench.LoadModels(filepath.Join(dir, "ehrsql-models.yaml")); err != nil {
		t.Errorf("examples/ehrsql-models.yaml: %v", err)
	}
	if _, err := llm.LoadPrices(filepath.Join(dir, "prices.yaml")); err != nil {
		t.Errorf("examples/prices.yaml: %v", err)
	}
}
