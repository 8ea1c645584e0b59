package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/rubric"
)

// mdTable writes a GitHub-flavoured Markdown table. align holds 'l' or 'r'
// per column.
func mdTable(w io.Writer, header []string, align string, rows [][]string) {
	// Markdown renders inline HTML: cells that are not code spans get <, >
	// and & escaped, so a model name cannot become markup.
	code := strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ")
	text := strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "&", "&amp;", "<", "&lt;", ">", "&gt;")
	cell := func(s string) string {
		if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
			return code.Replace(s)
		}
		return text.Replace(s)
	}
	line := func(cells []string) {
		fmt.Fprint(w, "|")
		for _, c := range cells {
			fmt.Fprintf(w, " %s |", cell(c))
		}
		fmt.Fprintln(w)
	}
	line(header)
	fmt.Fprint(w, "|")
	for i := range header {
		if i < len(align) && align[i] == 'r' {
			fmt.Fprint(w, "---:|")
		} else {
			fmt.Fprint(w, "---|")
		}
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		line(r)
	}
	fmt.Fprintln(w)
}

func modeName(m rubric.Mode) string {
	if m == rubric.Strict {
		return "strict"
	}
	return "reference"
}

func metricName(m Metric) string {
	switch m {
	case MetricSQL:
		return "SQL score"
	case MetricRS0:
		return "RS(0)"
	case MetricRS10:
		return "RS(10)"
	}
	return "execution score"
}

// madeBy names the clinsql build that wrote a file, for its header.
func madeBy() string { return fmt.Sprintf("Made by clinsql %s.", buildinfo.Current()) }

// setup is the one-paragraph description of how the numbers were made.
func (r *Report) setup() string {
	return fmt.Sprintf("Scores x100, two decimals: the unweighted mean over tasks rounded to 6 decimals, as the reference scorer publishes them. "+
		"Main mode: %s; %s mode beside it. Reference mode reproduces the published scorer; strict mode counts recorded judge errors and unreadable "+
		"replies as invalid instead of passes (scoring them as failures), honours critical leaves under every parent, and keeps tasks the grading "+
		"lacks in the denominator. 95%% confidence intervals: percentile bootstrap over tasks, %d resamples, seed %d. Ranked by %s (%s mode). %s",
		modeName(r.Mode), modeName(r.Other()), r.Bootstrap.Resamples, r.Bootstrap.Seed, metricName(r.RankBy), modeName(r.Mode), madeBy())
}

// writeCaveats writes what makes the report's scores not comparable with
// others (a subset of the tasks, runs on a sample database), each as a
// quoted line.
func (r *Report) writeCaveats(w io.Writer) {
	for _, c := range r.caveats() {
		fmt.Fprintf(w, "> **Caveat:** %s\n\n", c)
	}
}

// Caveats lists what makes the report's scores not comparable with others:
// a subset of the tasks, runs on a sample database (one sentence each).
func (r *Report) Caveats() []string { return r.caveats() }

// caveats lists what makes the report's scores not comparable with others.
func (r *Report) caveats() []string {
	var out []string
	if s := r.subsetNote(); s != "" {
		out = append(out, s)
	}
	return append(out, r.databaseCaveats()...)
}

// subsetNote flags a report over part of the tasks, "" for a whole task set.
func (r *Report) subsetNote() string {
	if r.Subset == "" {
		return ""
	}
	return fmt.Sprintf("Subset: %d tasks (%s); every score is over these tasks only, not comparable with scores over whole splits.", len(r.Tasks), r.Subset)
}

func ci(i Interval) string {
	if i.Lo != i.Lo { // NaN
		return ""
	}
	return fmt.Sprintf("[%s, %s]", pctCI(i.Lo), pctCI(i.Hi))
}

func diffCI(i Interval) string {
	return fmt.Sprintf("%s [%s, %s]", pctDiff(i.Mean), pctDiff(i.Lo), pctDiff(i.Hi))
}

func nByDifficulty(b *Board, split string) string {
	var parts []string
	for _, d := range datasets.Difficulties {
		if c := b.Cell(split, All, d); c != nil {
			parts = append(parts, fmt.Sprint(c.N))
		} else {
			parts = append(parts, "0")
		}
	}
	return strings.Join(parts, "/")
}

// table4 writes the paper's Table 4 shape for one split and mode: SQL and
// execution score per difficulty and average.
func (r *Report) table4(w io.Writer, split string, mode rubric.Mode) {
	header := []string{"#", "Model", "n (E/M/H)"}
	for _, m := range []string{"SQL", "Exec"} {
		header = append(header, m+" Easy", m+" Medium", m+" Hard", m+" Avg")
	}
	rs := r.hasReliability()
	if rs {
		header = append(header, "RS(0)", "RS(10)")
	}
	header = append(header, "Invalid leaves (tasks)")
	var rows [][]string
	for i, name := range r.Ranking(split).Models {
		b := r.Board(mode, name)
		all := b.Cell(split, All, All)
		if all == nil {
			continue
		}
		row := []string{fmt.Sprint(i + 1), r.withBadge(name), fmt.Sprintf("%d (%s)", all.N, nByDifficulty(b, split))}
		for _, f := range []func(*Cell) Interval{func(c *Cell) Interval { return c.SQL }, func(c *Cell) Interval { return c.Exec }} {
			for _, d := range append(append([]string{}, datasets.Difficulties...), All) {
				if c := b.Cell(split, All, d); c != nil {
					row = append(row, pct(f(c).Mean))
				} else {
					row = append(row, "–")
				}
			}
		}
		if rs {
			row = append(row, rsText(all.RS, 0), rsText(all.RS, 10))
		}
		row = append(row, invalidText(all))
		rows = append(rows, row)
	}
	mdTable(w, header, "rlrrrrrrrrrrrr", rows)
}

// hasReliability reports whether the RS columns mean anything: some model
// abstained on some task. Without an abstention RS(c) is only the execution
// accuracy with a penalty (-668 to -1000 for every model on ClinSQL, where
// no model is asked to abstain), so the columns are left out; report.json
// and the CSV files keep the figures.
func (r *Report) hasReliability() bool {
	for _, b := range r.Boards[r.Mode] {
		for _, c := range b.Cells {
			if c.RS != nil && c.RS.AbstainedAnswerable+c.RS.AbstainedUnanswerable > 0 {
				return true
			}
		}
	}
	return false
}

// ShowsRS reports whether RS(c) is shown beside the scores (some model
// abstained on some task): the Markdown, the HTML and the command's summary
// show the columns under the same rule.
func (r *Report) ShowsRS() bool { return r.hasReliability() }

// rsText formats RS(c), already x100, or "–" without run outputs.
func rsText(s *reliability.Scores, c int) string {
	if s == nil {
		return "–"
	}
	if c == 0 {
		return fmt.Sprintf("%.2f", s.RS0)
	}
	return fmt.Sprintf("%.2f", s.RS10)
}

// WriteLeaderboardMarkdown writes leaderboard.md: per split, Table 4 in the
// report's mode and in the other, both modes side by side with intervals,
// paired differences, per-scenario scores and judge health.
func (r *Report) WriteLeaderboardMarkdown(w io.Writer) {
	fmt.Fprintln(w, "# ClinSQL leaderboard")
	fmt.Fprintln(w)
	r.writeCaveats(w)
	fmt.Fprintln(w, r.setup())
	fmt.Fprintln(w)
	fmt.Fprintln(w, InvalidLeavesNote)
	fmt.Fprintln(w)
	for _, split := range r.Splits {
		fmt.Fprintf(w, "## %s split\n\n", split)
		for _, mode := range r.Modes() {
			fmt.Fprintf(w, "### SQL and execution score per difficulty, %s mode\n\n", modeName(mode))
			r.table4(w, split, mode)
		}
		r.besideTable(w, split)
		r.scenarioTables(w, split)
		var cs []*Comparison
		for _, c := range r.Comparisons {
			if c.Split == split {
				cs = append(cs, c)
			}
		}
		if len(cs) > 0 {
			fmt.Fprintf(w, "### Paired differences (%s mode, tasks both models were scored on)\n\n", modeName(r.Mode))
			fmt.Fprintf(w, "Difference A - B x100 with its 95%% bootstrap interval over paired tasks; * marks an interval that excludes 0 (over at least %d tasks).\n", minSignificantN)
			fmt.Fprintln(w)
			var rows [][]string
			for _, c := range cs {
				star := func(i Interval) string {
					if c.Significant(i) {
						return diffCI(i) + " *"
					}
					return diffCI(i)
				}
				rows = append(rows, []string{c.A, c.B, c.Difficulty, fmt.Sprint(c.N), star(c.SQL), star(c.Exec)})
			}
			mdTable(w, []string{"A", "B", "Difficulty", "n", "Δ SQL [95% CI]", "Δ Exec [95% CI]"}, "llrrrr", rows)
		}
	}
	r.healthTable(w)
	r.writeLabelsMarkdown(w)
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "%d warnings while reading the inputs; see report.json.\n", len(r.Warnings))
	}
}

// besideTable shows both modes' averages with their intervals.
func (r *Report) besideTable(w io.Writer, split string) {
	ms := r.Modes()
	fmt.Fprintf(w, "### Averages with 95%% confidence intervals, %s and %s mode\n\n", modeName(ms[0]), modeName(ms[1]))
	header := []string{"Model"}
	for _, m := range ms {
		header = append(header, modeName(m)+" n", modeName(m)+" SQL", "95% CI", modeName(m)+" Exec", "95% CI")
	}
	header = append(header, "Ungraded tasks", "Invalid leaves (tasks)")
	var rows [][]string
	for _, name := range r.Ranking(split).Models {
		row := []string{name}
		var strict *Cell
		for _, m := range ms {
			c := r.Board(m, name).Cell(split, All, All)
			if c == nil {
				row = append(row, "0", "–", "", "–", "")
				continue
			}
			if m == rubric.Strict {
				strict = c
			}
			row = append(row, fmt.Sprint(c.N), pct(c.SQL.Mean), ci(c.SQL), pct(c.Exec.Mean), ci(c.Exec))
		}
		if strict != nil {
			row = append(row, fmt.Sprint(strict.Ungraded), invalidText(strict))
		} else {
			row = append(row, "", "")
		}
		rows = append(rows, row)
	}
	mdTable(w, header, "lrrlrlrrlrlrr", rows)
}

// scenarioTables writes execution and SQL score per scenario.
func (r *Report) scenarioTables(w io.Writer, split string) {
	var scen []string
	seen := map[string]bool{}
	for _, b := range r.Boards[r.Mode] {
		for _, c := range b.Cells {
			if c.Split == split && c.Scenario != All && !seen[c.Scenario] {
				seen[c.Scenario] = true
				scen = append(scen, c.Scenario)
			}
		}
	}
	if len(scen) == 0 {
		return
	}
	for _, metric := range []string{"Exec", "SQL"} {
		fmt.Fprintf(w, "### %s score per scenario, %s mode\n\n", metric, modeName(r.Mode))
		header := []string{"Model"}
		for _, s := range scen {
			header = append(header, strings.ReplaceAll(s, "_", " "))
		}
		header = append(header, "All")
		var rows [][]string
		for _, name := range r.Ranking(split).Models {
			b := r.Board(r.Mode, name)
			row := []string{name}
			for _, s := range append(append([]string{}, scen...), All) {
				c := b.Cell(split, s, All)
				switch {
				case c == nil:
					row = append(row, "–")
				case metric == "SQL":
					row = append(row, pct(c.SQL.Mean))
				default:
					row = append(row, pct(c.Exec.Mean))
				}
			}
			rows = append(rows, row)
		}
		mdTable(w, header, "l"+strings.Repeat("r", len(scen)+1), rows)
	}
	fmt.Fprintln(w, "Scenario x difficulty cells, with task counts and intervals, are in scenarios.md and scenarios.csv.")
	fmt.Fprintln(w)
}

// WriteScenariosMarkdown writes scenarios.md: per split and scenario, each
// model's SQL and execution score per difficulty in the report's mode, with
// task counts.
func (r *Report) WriteScenariosMarkdown(w io.Writer) {
	fmt.Fprintln(w, "# ClinSQL scores per scenario and difficulty")
	fmt.Fprintln(w)
	r.writeCaveats(w)
	fmt.Fprintln(w, r.setup())
	fmt.Fprintln(w)
	for _, split := range r.Splits {
		for _, s := range datasetsScenarios(r, split) {
			fmt.Fprintf(w, "## %s: %s (%s mode)\n\n", split, strings.ReplaceAll(s, "_", " "), modeName(r.Mode))
			header := []string{"Model", "n (E/M/H)"}
			for _, m := range []string{"SQL", "Exec"} {
				header = append(header, m+" Easy", m+" Medium", m+" Hard", m+" All")
			}
			var rows [][]string
			for _, name := range r.Ranking(split).Models {
				b := r.Board(r.Mode, name)
				all := b.Cell(split, s, All)
				if all == nil {
					continue
				}
				var ns []string
				for _, d := range datasets.Difficulties {
					if c := b.Cell(split, s, d); c != nil {
						ns = append(ns, fmt.Sprint(c.N))
					} else {
						ns = append(ns, "0")
					}
				}
				row := []string{name, fmt.Sprintf("%d (%s)", all.N, strings.Join(ns, "/"))}
				for _, f := range []func(*Cell) Interval{func(c *Cell) Interval { return c.SQL }, func(c *Cell) Interval { return c.Exec }} {
					for _, d := range append(append([]string{}, datasets.Difficulties...), All) {
						if c := b.Cell(split, s, d); c != nil {
							row = append(row, pct(f(c).Mean))
						} else {
							row = append(row, "–")
						}
					}
				}
				rows = append(rows, row)
			}
			mdTable(w, header, "lrrrrrrrrr", rows)
		}
	}
}

func datasetsScenarios(r *Report, split string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range r.sortedKeys() {
		if k.Split == split && !seen[k.Domain] {
			seen[k.Domain] = true
			out = append(out, k.Domain)
		}
	}
	return out
}

func (r *Report) healthTable(w io.Writer) {
	fmt.Fprintln(w, "## Judge health")
	fmt.Fprintln(w)
	fmt.Fprintln(w, HealthNote)
	fmt.Fprintln(w)
	var rows [][]string
	for _, h := range r.Health {
		calls, usage, cost := "–", "–", "–"
		if h.HasUsage {
			calls = fmt.Sprint(h.LLMCalls)
			usage = fmt.Sprintf("%d / %d", h.PromptTokens, h.CompletionTokens)
			cost = fmt.Sprintf("%.4f", h.CostUSD)
		}
		judgeName := h.Judge
		if h.Complete != nil && !*h.Complete {
			judgeName += ", incomplete"
		}
		rows = append(rows, []string{h.Model, judgeName, fmt.Sprint(h.Tasks), fmt.Sprint(h.Leaves), fmt.Sprint(h.Passed), fmt.Sprint(h.Failed),
			fmt.Sprint(h.Invalid), fmt.Sprint(h.Skipped), fmt.Sprint(h.Missing), h.invalidText(),
			fmt.Sprint(h.BySource[SourceCode]), fmt.Sprint(h.BySource[SourceLLM]), fmt.Sprint(h.BySource[SourceReplay]),
			fmt.Sprint(h.BySource[SourceRecorded] + h.BySource[SourceJudge]),
			fmt.Sprintf("%.1f%%", 100*h.CodeShare()), fmt.Sprintf("%.1f%%", 100*h.LLMShare()),
			fmt.Sprintf("%d / %d / %d", h.JudgeErrors, h.Unparsed, h.NonBinary), calls, usage, cost})
	}
	mdTable(w, []string{"Model", "Judge", "Tasks", "Leaves", "Pass", "Fail", "Invalid verdict", "Skipped", "Missing", "Invalid leaves (tasks)",
		"Code", "LLM", "Replay", "Recorded", "Code share", "LLM share", "Judge errors / unparsed / non-binary", "LLM calls", "Tokens in / out", "Cost (USD)"},
		"llrrrrrrrrrrrrrrrrrr", rows)
}

// WriteTaxonomyMarkdown writes taxonomy.md: the rules, each model's failure
// rate per bucket and its most often failed leaves.
func (r *Report) WriteTaxonomyMarkdown(w io.Writer) {
	tx := r.Taxonomy
	fmt.Fprintln(w, "# Error taxonomy")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every rubric leaf is tagged with one bucket: the first rule below that matches its tree, its top-level category id and its text "+
		"(leaf id, requirements and the ids of its ancestors below the category). Failure rate = failed / (passed + failed) leaves "+
		"over the model's graded tasks, from the recorded verdicts (every leaf, gated or not, as recorded); invalid leaves "+
		"(judge errors, unreadable replies) are counted apart. "+madeBy())
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Rules")
	fmt.Fprintln(w)
	var rows [][]string
	for i, ru := range Rules {
		tree, cat, text := ruleText(ru)
		rows = append(rows, []string{fmt.Sprint(i + 1), tree, "`" + cat + "`", text, string(ru.Bucket), ru.Why, fmt.Sprint(tx.RuleLeaves[i])})
	}
	mdTable(w, []string{"#", "Tree", "Category", "Text", "Bucket", "What it captures", "Leaves"}, "rllllll", rows)
	fmt.Fprintln(w, "Temporal vocabulary (case-insensitive, whole words):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "```")
	fmt.Fprintln(w, temporalText)
	fmt.Fprintln(w, "```")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Failure rate per bucket (%)")
	fmt.Fprintln(w)
	header := []string{"Model"}
	for _, b := range Buckets {
		header = append(header, string(b))
	}
	header = append(header, "Invalid verdicts")
	rows = nil
	for _, m := range r.orderedModels() {
		row := []string{m}
		inv := 0
		for _, b := range Buckets {
			tr, _ := tx.Row(m, b)
			inv += tr.Invalid
			row = append(row, fmt.Sprintf("%s (%d/%d)", rate(tr.Failed, tr.Passed+tr.Failed), tr.Failed, tr.Passed+tr.Failed))
		}
		row = append(row, fmt.Sprint(inv))
		rows = append(rows, row)
	}
	mdTable(w, header, "lrrrrrrr", rows)
	fmt.Fprintln(w, "## Most often failed leaves")
	fmt.Fprintln(w)
	rows = nil
	for _, m := range r.orderedModels() {
		for _, f := range tx.Top {
			if f.Model != m {
				continue
			}
			rows = append(rows, []string{m, string(f.Tree), f.LeafID, string(f.Bucket), fmt.Sprintf("%d/%d", f.Failed, f.Decided), f.Example.String()})
		}
	}
	mdTable(w, []string{"Model", "Tree", "Leaf id", "Bucket", "Failed/decided", "Example task"}, "llllrl", rows)
}

// orderedModels lists model names by the first split's ranking, then any
// others in input order.
func (r *Report) orderedModels() []string {
	var out []string
	seen := map[string]bool{}
	if len(r.Rankings) > 0 {
		for _, m := range r.Rankings[0].Models {
			out = append(out, m)
			seen[m] = true
		}
	}
	for _, m := range r.Models {
		if !seen[m.Name] {
			out = append(out, m.Name)
		}
	}
	return out
}

// WriteRefinementMarkdown writes refinement.md: execution success after
// each attempt and what each refinement round rescued.
func (r *Report) WriteRefinementMarkdown(w io.Writer) {
	fmt.Fprintln(w, "# Self-refinement")
	fmt.Fprintln(w)
	if len(r.Refinement) == 0 {
		fmt.Fprintln(w, "No run folders were given: refinement needs the models' execution summaries (--run).")
		return
	}
	fmt.Fprintln(w, "Tasks whose final SQL ran without error after attempt k (cumulative, % of the split's tasks), from the execution "+
		"summaries; rescued = tasks whose SQL first ran at refinement round k; published = benchmark_summary.json's cumulative counts "+
		"(! marks a disagreement with the execution summaries). "+madeBy())
	fmt.Fprintln(w)
	maxA := 3
	for _, x := range r.Refinement {
		maxA = max(maxA, len(x.Cumulative))
	}
	header := []string{"Model", "Split", "Tasks"}
	for k := 1; k <= maxA; k++ {
		header = append(header, fmt.Sprintf("≤%d", k))
	}
	for k := 1; k < maxA; k++ {
		header = append(header, fmt.Sprintf("Rescued r%d", k))
	}
	header = append(header, "Never ran", "No SQL", "Published")
	var rows [][]string
	for _, m := range r.orderedModels() {
		for _, x := range r.Refinement {
			if x.Model != m {
				continue
			}
			row := []string{x.Model, x.Split, fmt.Sprint(x.Tasks)}
			for k := 0; k < maxA; k++ {
				if k < len(x.Cumulative) {
					row = append(row, fmt.Sprintf("%.1f (%d)", x.Rate(k), x.Cumulative[k]))
				} else {
					row = append(row, "")
				}
			}
			for k := 1; k < maxA; k++ {
				if k < len(x.FirstSuccess) {
					row = append(row, fmt.Sprint(x.FirstSuccess[k]))
				} else {
					row = append(row, "")
				}
			}
			pub := "–"
			if x.Published != nil {
				pub = strings.Trim(strings.ReplaceAll(fmt.Sprint(x.Published), " ", "/"), "[]")
				if x.Mismatch {
					pub += " !"
				}
			}
			row = append(row, fmt.Sprint(x.Failed), fmt.Sprint(x.NoSQL), pub)
			rows = append(rows, row)
		}
	}
	mdTable(w, header, "ll"+strings.Repeat("r", len(header)-2), rows)
	var warned []string
	for _, m := range r.orderedModels() {
		for _, x := range r.Refinement {
			if x.Model == m && x.Warned > 0 {
				warned = append(warned, fmt.Sprintf("%s (%s) %d", x.Model, x.Split, x.Warned))
			}
		}
	}
	if len(warned) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Final SQL that ran only with a warning, not exactly as BigQuery would have (on a sample database, a division by zero given NULL; "+
			"see each task's attempts): %s.\n", strings.Join(warned, "; "))
	}
}
