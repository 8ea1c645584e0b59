package cli

import (
	"fmt"
	"io"
	"path/filepath"

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
	st := m.Resumed()
	fmt.Fprintf(w, "spent so far in this folder: $%.4f", st.SpentUSD)
	if budget > 0 {
		fmt.Fprintf(w, " of $%.4f", budget)
	} else {
		fmt.Fprint(w, " (no budget cap)")
	}
	fmt.Fprintln(w)
	if st.Unreconciled > 0 {
		// Batch requests of a run that stopped (batch wait, endpoint
		// down) stay reserved too, until the run that reads them.
		fmt.Fprintf(w, "note: %d calls of earlier runs are unsettled (in flight when a run was killed, or in batches not yet read); they count at their worst case ($%.4f), a batch request's until a run reads its result\n", st.Unreconciled, st.UnreconciledUSD)
	}
	if st.Recovered != "" {
		fmt.Fprintf(w, "note: %s\n", st.Recovered)
	}
	if st.Compacted > 0 {
		fmt.Fprintf(w, "note: %s: compacted (%d lines of settled calls replaced by their totals)\n", filepath.Join(dir, llm.SpendingFile), st.Compacted)
	}
	if st.Overrun > 1 {
		fmt.Fprintf(w, "note: the provider has reported usage up to %.2fx a call's worst case; calls reserve that much\n", st.Overrun)
	}
	return m, nil
}
