package judge

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the estimate as clinsql judge does before it judges:
// what is judged and how, the leaves to decide, and, for an LLM judge (j
// not nil), the calls and tokens priced by its meter.
func (e JobEstimate) WriteText(w io.Writer, j *OpenedLLM) {
	opts := e.Options
	group := string(opts.Group)
	if opts.GroupGated {
		group += "+gated"
	}
	fmt.Fprintf(w, "judging %s: %d tasks, mode %s, judge %s, grouping %s", e.Model, e.Tasks, opts.Mode, opts.Backend.Name(), group)
	if opts.ReferenceGuided {
		fmt.Fprint(w, ", REFERENCE-GUIDED (gold shown to the judge)")
	}
	fmt.Fprintln(w)
	if e.Resumed > 0 {
		fmt.Fprintf(w, "resuming: %d leaves already decided\n", e.Resumed)
	}
	fmt.Fprintf(w, "estimate: %d leaves to decide, %d by code, at most %d by the judge in %d calls", e.Leaves, e.CodeLeaves, e.BackendLeaves, e.Calls)
	if opts.Skipping {
		fmt.Fprint(w, " (gate skipping usually saves about a third)")
	}
	fmt.Fprintln(w)
	if j == nil {
		return
	}
	fmt.Fprintf(w, "estimate: at most %d calls, ~%d prompt and at most %d completion tokens", e.Calls, e.PromptTokens, e.CompletionTokens)
	if meter := j.Meter; meter != nil {
		model := j.Judge.EndpointModel()
		if usd, err := meter.Prices().Estimate(model, 1, e.PromptTokens, e.CompletionTokens); err == nil {
			fmt.Fprintf(w, ", at most %s before cache hits", meter.Prices().OnlineAndBatch(model, usd))
		} else if len(meter.Prices()) > 0 {
			fmt.Fprintf(w, " (no price for %s)", model)
		}
		if b := meter.Budget(); b > 0 {
			fmt.Fprintf(w, "; budget $%.2f", b)
		}
	}
	fmt.Fprintln(w)
}

// EndpointModel is the model the judge's endpoint names (its name is
// "llm:ENDPOINT/MODEL@..."), the key of its price.
func (j *LLMJudge) EndpointModel() string {
	name := strings.TrimPrefix(j.Name(), "llm:")
	_, rest, _ := strings.Cut(name, "/")
	m, _, _ := strings.Cut(rest, "@")
	return m
}
