package cli

import (
	"io"

	"github.com/clinsql/clinsql/llm"
)

// openMeter opens the spending record of an output folder (judge --out,
// generate --out): budget caps what the folder will ever have spent, over
// every run into it. It prints where the folder stands, so a resumed run
// says how much of the cap is left. Without prices nothing can be priced
// or capped, and the meter only counts calls and tokens.
func openMeter(w io.Writer, dir string, prices llm.Prices, budget float64) (*llm.Meter, error) {
	if len(prices) == 0 {
		return llm.NewMeter(prices, budget), nil
	}
	m, err := llm.OpenMeter(dir, prices, budget)
	if err != nil {
		return nil, err
	}
	m.Resumed().WriteText(w, dir, budget)
	return m, nil
}
