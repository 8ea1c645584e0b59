package llm

import (
	"fmt"
	"io"
	"path/filepath"
)

// OnlineAndBatch formats the cost of usd online and at the batch share of
// model's price, for estimates: "$1.20 online, $0.60 in batch mode".
func (p Prices) OnlineAndBatch(model string, usd float64) string {
	return fmt.Sprintf("$%.2f online, $%.2f in batch mode", usd, usd*p[model].BatchShare())
}

// OpenFolderMeter opens the spending record of an output folder (judge
// --out, generate --out): budget caps what the folder will ever have
// spent, over every run into it (OpenMeter). It writes to w where the
// folder stands, so a resumed run says how much of the cap is left.
// Without prices nothing can be priced or capped, and the meter only
// counts calls and tokens (NewMeter), recording nothing.
func OpenFolderMeter(w io.Writer, dir string, prices Prices, budget float64) (*Meter, error) {
	if len(prices) == 0 {
		return NewMeter(prices, budget), nil
	}
	m, err := OpenMeter(dir, prices, budget)
	if err != nil {
		return nil, err
	}
	m.Resumed().WriteText(w, dir, budget)
	return m, nil
}

// WriteText prints where an output folder (dir) stands before a run
// resumes into it: what it has spent against budget (0: no cap), and the
// notes a resumed run needs (unsettled calls, a recovered or compacted
// record, the provider's overrun).
func (st FolderSpending) WriteText(w io.Writer, dir string, budget float64) {
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
		fmt.Fprintf(w, "note: %s: compacted (%d lines of settled calls replaced by their totals)\n", filepath.Join(dir, SpendingFile), st.Compacted)
	}
	if st.Overrun > 1 {
		fmt.Fprintf(w, "note: the provider has reported usage up to %.2fx a call's worst case; calls reserve that much\n", st.Overrun)
	}
}
