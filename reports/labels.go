package reports

import (
	"fmt"
	"io"
	"sort"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// LabelPanel is what a label set says about the report's judges: how
// accurate each model's judge is on the labelled leaves of its answers,
// and the leaderboard corrected by the labels (each labelled leaf taking
// its label, the scores computed again).
type LabelPanel struct {
	// File names the label set.
	File string
	Rows []LabelRow
	// Total sums the rows' counts (the rates over every model's leaves).
	Total LabelRow
}

// LabelRow is one model's judge measured against its labelled leaves.
type LabelRow struct {
	Model string
	// Accuracy is the judge's, over every labelled leaf of the model's
	// tasks; Code the code checks' share of it (source=code).
	Accuracy, Code agreement.Accuracy
	// Changed counts the labelled leaves whose verdict the label changes
	// (wrong, or left without a verdict), arguable labels aside.
	Changed int
	// Scores are the published and corrected scores per split and mode.
	Scores []CorrectedScore
}

// CorrectedScore is one model's mean scores over one split in one mode,
// as judged and with the labels applied.
type CorrectedScore struct {
	Split string
	Mode  rubric.Mode
	// N is the number of tasks averaged.
	N                               int
	SQL, Exec                       float64
	CorrectedSQL, CorrectedExec     float64
	ChangedTasksSQL, ChangedTasksEx int
}

// applyLabels builds the label panel: for each model with labelled leaves,
// its judge's accuracy and its scores with the labels applied. The
// corrected scores rescore the model's grading files with every pass or
// fail label replacing the judge's decision, so they are computed exactly
// as the leaderboard's.
func (r *Report) applyLabels(file string, labels []labelset.Label, tasks []*datasets.Task) error {
	p := &LabelPanel{File: file, Total: LabelRow{Model: "all models"}}
	byModel := map[string][]labelset.Label{}
	for _, l := range labels {
		byModel[l.Model] = append(byModel[l.Model], l)
	}
	var all []agreement.Labelled
	for _, m := range r.Models {
		ls := byModel[folderName(m.Name)]
		if len(ls) == 0 {
			continue
		}
		row := LabelRow{Model: m.Name}
		var items []agreement.Labelled
		over := map[datasets.Key]map[LeafKey]labelset.Label{}
		for _, l := range ls {
			d, judged := m.Decisions[l.Key]
			if !judged {
				continue
			}
			dec := d[LeafKey{Tree(l.Tree), l.Leaf}]
			v := agreement.Verdict{Status: agreement.Missing}
			if dec != nil {
				v = agreement.Verdict{Status: dec.Status.String(), Source: dec.Source, Explanation: dec.Explanation}
			}
			it := agreement.Labelled{Item: agreement.Item{Model: m.Name, Task: l.Key.String(), Tree: l.Tree, Leaf: l.Leaf,
				A: v, B: agreement.Verdict{Status: l.Label, Source: "label", Explanation: l.Rationale}}, Chosen: l.Chosen, Weight: 1}
			if l.Drawn > 0 && l.Population > 0 {
				it.Weight = float64(l.Population) / float64(l.Drawn)
			}
			items = append(items, it)
			if l.Label == labelset.Pass || l.Label == labelset.Fail {
				if v.Status != l.Label {
					row.Changed++
				}
				if over[l.Key] == nil {
					over[l.Key] = map[LeafKey]labelset.Label{}
				}
				over[l.Key][LeafKey{Tree(l.Tree), l.Leaf}] = l
			}
		}
		if len(items) == 0 {
			continue
		}
		all = append(all, items...)
		rep := agreement.Score(items)
		row.Accuracy = *rep.Slice("all", agreement.AnswersAll)
		if c := rep.Slice("source=code", agreement.AnswersAll); c != nil {
			row.Code = *c
		}
		scores, err := correctedScores(m, over, tasks, r.Splits, r.Modes(), r.Subset != "")
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		row.Scores = scores
		p.Total.Changed += row.Changed
		p.Rows = append(p.Rows, row)
	}
	if len(p.Rows) == 0 {
		return fmt.Errorf("labels %s: no labelled leaf of the report's models (labelled: %s)", file, labelledModels(byModel))
	}
	rep := agreement.Score(all)
	p.Total.Accuracy = *rep.Slice("all", agreement.AnswersAll)
	if c := rep.Slice("source=code", agreement.AnswersAll); c != nil {
		p.Total.Code = *c
	}
	r.Labels = p
	return nil
}

func labelledModels(byModel map[string][]labelset.Label) string {
	var names []string
	for m := range byModel {
		names = append(names, m)
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], "...")
	}
	return fmt.Sprint(names)
}

// folderName is the name a model's folders carry: a provider's model id
// "org/name" (as a grading records it) is named by its last element, as
// the release's folders and the labels name it.
func folderName(model string) string {
	for i := len(model) - 1; i >= 0; i-- {
		if model[i] == '/' {
			return model[i+1:]
		}
	}
	return model
}

// correctedScores rescores the model's grading files with the labels
// applied and averages both per split and mode over the tasks both score.
func correctedScores(m *Model, over map[datasets.Key]map[LeafKey]labelset.Label, tasks []*datasets.Task, splits []string, modes []rubric.Mode, subset bool) ([]CorrectedScore, error) {
	var out []CorrectedScore
	for _, mode := range modes {
		fixed := map[datasets.Key]*scoring.TaskScore{}
		for _, file := range m.Gradings {
			g, err := scoring.ReadGrading(file)
			if err != nil {
				return nil, err
			}
			if subset {
				g = g.Only(tasks)
			}
			g = withLabels(g, over)
			rs, err := scoring.Rescore(g, tasks, mode)
			if err != nil {
				return nil, err
			}
			for _, t := range rs.Tasks {
				fixed[t.Key] = t
			}
		}
		for _, split := range splits {
			c := CorrectedScore{Split: split, Mode: mode}
			for _, t := range m.Rescored(mode).Tasks {
				f := fixed[t.Key]
				if t.Key.Split != split || f == nil {
					continue
				}
				c.N++
				c.SQL += t.SQL.Value
				c.Exec += t.Results.Value
				c.CorrectedSQL += f.SQL.Value
				c.CorrectedExec += f.Results.Value
				if f.SQL.Value != t.SQL.Value {
					c.ChangedTasksSQL++
				}
				if f.Results.Value != t.Results.Value {
					c.ChangedTasksEx++
				}
			}
			if c.N == 0 {
				continue
			}
			n := float64(c.N)
			c.SQL, c.Exec, c.CorrectedSQL, c.CorrectedExec = c.SQL/n, c.Exec/n, c.CorrectedSQL/n, c.CorrectedExec/n
			out = append(out, c)
		}
	}
	return out, nil
}

// withLabels returns a copy of g whose labelled leaves record their label
// (score 1 for pass, 0 for fail) and its rationale.
func withLabels(g *scoring.Grading, over map[datasets.Key]map[LeafKey]labelset.Label) *scoring.Grading {
	c := *g
	c.Evaluations = make([]scoring.Evaluation, len(g.Evaluations))
	for i, e := range g.Evaluations {
		c.Evaluations[i] = e
		k, err := datasets.ParseKey(e.SamplePath)
		if err != nil || over[k] == nil {
			continue
		}
		apply := func(tree Tree, recs map[string]scoring.Record) map[string]scoring.Record {
			out := make(map[string]scoring.Record, len(recs))
			for id, r := range recs {
				out[id] = r
			}
			for lk, l := range over[k] {
				if lk.Tree != tree {
					continue
				}
				r := out[lk.ID]
				r.Score, r.NoScore = 0, false
				if l.Label == labelset.Pass {
					r.Score = 1
				}
				r.Explanation = "label: " + l.Rationale
				out[lk.ID] = r
			}
			return out
		}
		c.Evaluations[i].SQLEvaluations = apply(TreeSQL, e.SQLEvaluations)
		c.Evaluations[i].ResultsEvaluations = apply(TreeResults, e.ResultsEvaluations)
	}
	return &c
}

// wilsonPct prints a rate as a percentage with its interval.
func wilsonPct(r agreement.Rate) string {
	if r.N == 0 || r.P != r.P {
		return "–"
	}
	return fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*r.P, 100*r.Lo, 100*r.Hi)
}

// labelAccuracyRows are the "how accurate is this judge" table's rows.
func (p *LabelPanel) labelAccuracyRows() [][]string {
	var rows [][]string
	for _, row := range append(append([]LabelRow{}, p.Rows...), p.Total) {
		a, c := &row.Accuracy, &row.Code
		rows = append(rows, []string{row.Model, fmt.Sprint(a.Labelled), fmt.Sprint(a.Arguable), fmt.Sprint(a.Undecided), fmt.Sprint(a.Decided()),
			fmt.Sprint(a.FalsePass + a.FalseFail), wilsonPct(a.Errors()), wilsonPct(a.FalsePassRate()), wilsonPct(a.FalseFailRate()),
			codeWrong(c), wilsonPct(c.Errors())})
	}
	return rows
}

var labelAccuracyHeader = []string{"Model", "Labelled", "Arguable", "Undecided", "Decided", "Wrong", "Error rate [95% CI]",
	"False pass", "False fail", "Code checks wrong", "Code error rate"}

// correctedRows are the corrected leaderboard's rows in a split and mode.
func (p *LabelPanel) correctedRows(split string, mode rubric.Mode) [][]string {
	var rows [][]string
	for _, row := range p.Rows {
		for _, c := range row.Scores {
			if c.Split != split || c.Mode != mode {
				continue
			}
			rows = append(rows, []string{row.Model, fmt.Sprint(c.N), fmt.Sprint(row.Changed),
				fmt.Sprintf("%.2f", 100*c.SQL), fmt.Sprintf("%.2f", 100*c.CorrectedSQL), fmt.Sprintf("%+.2f", 100*(c.CorrectedSQL-c.SQL)),
				fmt.Sprintf("%.2f", 100*c.Exec), fmt.Sprintf("%.2f", 100*c.CorrectedExec), fmt.Sprintf("%+.2f", 100*(c.CorrectedExec-c.Exec)),
				fmt.Sprintf("%d / %d", c.ChangedTasksSQL, c.ChangedTasksEx)})
		}
	}
	return rows
}

var correctedHeader = []string{"Model", "Tasks", "Leaves changed", "SQL", "SQL corrected", "Δ SQL", "Exec", "Exec corrected", "Δ Exec", "Tasks changed (SQL / Exec)"}

// writeLabelsMarkdown writes the label panel: the judges' accuracy, then
// the corrected leaderboard per split and mode.
func (r *Report) writeLabelsMarkdown(w io.Writer) {
	p := r.Labels
	if p == nil {
		return
	}
	fmt.Fprintf(w, "## How accurate is this judge? (labels: %s)\n\n", p.File)
	fmt.Fprintln(w, "Each model's judge against the labelled leaves of its answers: a wrong verdict is a pass against a fail label (false pass) or a fail against a pass label (false fail); arguable labels and leaves without a verdict are counted, not rated. Intervals are 95% Wilson intervals over the labelled leaves, which were drawn stratified (see the label set), so these rates are the labelled sample's, not the population's.")
	fmt.Fprintln(w)
	mdTable(w, labelAccuracyHeader, "lrrrrrrrrrr", p.labelAccuracyRows())
	for _, split := range r.Splits {
		for _, mode := range r.Modes() {
			rows := p.correctedRows(split, mode)
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(w, "### Leaderboard corrected by the labels, %s split, %s mode\n\n", split, modeName(mode))
			fmt.Fprintln(w, "Scores x100 as judged and with each labelled leaf taking its label (arguable ones keep the judge's verdict); the judge's known errors removed, the rest unchanged.")
			fmt.Fprintln(w)
			mdTable(w, correctedHeader, "lrrrrrrrrr", rows)
		}
	}
}

// htmlLabels is the label panel in report.html.
type htmlLabels struct {
	File            string
	Header          []string
	Rows            [][]string
	CorrectedHeader []string
	Corrected       []htmlCorrected
}

type htmlCorrected struct {
	Title string
	Rows  [][]string
}

func (r *Report) htmlLabels() *htmlLabels {
	p := r.Labels
	if p == nil {
		return nil
	}
	h := &htmlLabels{File: p.File, Header: labelAccuracyHeader, Rows: p.labelAccuracyRows(), CorrectedHeader: correctedHeader}
	for _, split := range r.Splits {
		for _, mode := range r.Modes() {
			if rows := p.correctedRows(split, mode); len(rows) > 0 {
				h.Corrected = append(h.Corrected, htmlCorrected{Title: split + " split, " + modeName(mode) + " mode", Rows: rows})
			}
		}
	}
	return h
}

// codeWrong is "k of n" for the code checks' decisions, "–" without any
// (a recorded grading).
func codeWrong(c *agreement.Accuracy) string {
	if c.Decided() == 0 {
		return "–"
	}
	return fmt.Sprintf("%d of %d", c.FalsePass+c.FalseFail, c.Decided())
}
