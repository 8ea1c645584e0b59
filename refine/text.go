package refine

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/refine/refinefmt"
)

// WriteTable prints one line per model: its tasks by status, how many ran
// by each attempt, and this run's tokens and cost; then why a model
// stopped.
func (res *Result) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\ttasks\tok\tempty\tfailed\tno SQL\tunsupported\tpending\texec ≤1\t≤2\t≤3\ttokens\tcost $\t")
	for _, m := range res.Models {
		s := m.Summary
		if s == nil {
			fmt.Fprintf(tw, "%s\t(no summary)\t\n", m.Model)
			continue
		}
		tokens := m.Usage.PromptTokens + m.Usage.CompletionTokens
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%d\t%.2f\t\n", m.Model,
			s.Total+len(s.Excluded)+len(s.Pending), s.Statuses[refinefmt.StatusOK], s.Statuses[refinefmt.StatusEmpty],
			s.Statuses[refinefmt.StatusFailed], s.Statuses[refinefmt.StatusNoSQL], len(s.Excluded), len(s.Pending),
			s.CumulativeRate(1), s.CumulativeRate(2), s.CumulativeRate(3), tokens, m.CostUSD)
	}
	tw.Flush()
	for _, m := range res.Models {
		if m.Stopped != "" {
			fmt.Fprintf(w, "%s: %s\n", m.Model, m.Stopped)
		}
	}
	fmt.Fprintln(w, "exec ≤k: tasks whose query ran by attempt k, of the tasks counted (unsupported and pending ones are not);")
	fmt.Fprintln(w, "tokens and cost: this run's uncached calls.")
}

// WriteEstimate prints the calls generating SQL for tasks would make per
// model, their prompt tokens and, with prices, their cost: first calls,
// every refinement round, and at the batch share.
func WriteEstimate(w io.Writer, models []Model, tasks []*datasets.Task, prices llm.Prices) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\ttasks\tfirst calls\tprompt tokens\tcost $ (first)\tcost $ (all rounds)\tbatch $ (all rounds)\t")
	for _, m := range models {
		p := NewPrompter(m.PromptOrDefault(), mimic.V31)
		promptTokens := 0
		for _, t := range tasks {
			promptTokens += llm.EstimateTokens([]llm.Message{{Role: llmfmt.RoleUser, Content: p.Generate(t)}})
		}
		completion := m.Sampling.MaxTokens
		if completion == 0 {
			completion = llm.DefaultCompletionReserve
		}
		first, all, batch := "-", "-", "-"
		if prices != nil {
			if usd, ok := prices.Cost(m.Model, llm.Usage{PromptTokens: promptTokens, CompletionTokens: completion * len(tasks)}); ok {
				first = fmt.Sprintf("%.2f", usd)
				all = fmt.Sprintf("%.2f", usd*float64(1+m.RoundsOrDefault()))
				batch = fmt.Sprintf("%.2f", usd*float64(1+m.RoundsOrDefault())*prices[m.Model].BatchShare())
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", m.Name, len(tasks), len(tasks), promptTokens, first, all, batch)
	}
	tw.Flush()
	fmt.Fprintln(w, "prompt tokens are estimated (4 bytes a token); completions at max_tokens; \"all rounds\" is the worst case; \"batch\" at the batch API's share of the price (mode: batch)")
}
