package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// All names the whole split in a cell's Scenario or Difficulty.
const All = "all"

// Cell is one model's scores over one group of tasks in one mode.
type Cell struct {
	Split string
	// Scenario is a domain or All; Difficulty easy, medium, hard or All.
	Scenario, Difficulty string
	// N is the number of tasks averaged.
	N int
	// SQL and Exec are the SQL and execution scores. Mean is the
	// reference's unrounded mean (summed in task order); see Round6.
	SQL, Exec Interval
	// InvalidLeaves counts leaves without a valid verdict (judge errors,
	// unreadable replies, missing decisions, skipped leaves) that could
	// change a score of the cell's tasks; InvalidTasks the tasks with at
	// least one (InvalidLeavesNote).
	InvalidLeaves, InvalidTasks int
	// Ungraded counts tasks the decisions lack (strict mode scores them
	// with every leaf missing; reference mode leaves them out).
	Ungraded int
	// RS is the EHRSQL-style reliability of the cell's tasks (a task is
	// correct when its execution score reaches the threshold, abstains
	// when its final SQL is the marker), nil when the model has no run
	// outputs to tell abstentions from answers.
	RS *reliability.Scores
}

// InvalidLeavesNote defines the one "invalid leaves (tasks)" figure that
// the leaderboards (terminal, Markdown, HTML) and the judge-health table
// show: rubric.Score.Invalid summed over the tasks, with the number of
// tasks holding any. The judge-health table's verdict columns count every
// leaf, including those that cannot change a score; its "invalid leaves"
// column is this figure, so the two tables agree.
const InvalidLeavesNote = "Invalid leaves (tasks): the leaves with no valid verdict (a judge error or unreadable reply, " +
	"no decision recorded, or skipped) that could still change the score, which strict mode counts as failures; " +
	"in parentheses the tasks holding any. Counted from the decisions, so the same in both modes."

// Board is one model's leaderboard cells in one mode.
type Board struct {
	Model string
	Mode  rubric.Mode
	// Cells per split: the four difficulty cells of the whole split, then
	// per scenario (sorted) its difficulty cells and its total.
	Cells []*Cell
}

// Cell returns the cell of a split, scenario and difficulty, nil when the
// group holds no task.
func (b *Board) Cell(split, scenario, difficulty string) *Cell {
	for _, c := range b.Cells {
		if c.Split == split && c.Scenario == scenario && c.Difficulty == difficulty {
			return c
		}
	}
	return nil
}

// Reliability configures RS(c) on ClinSQL.
type Reliability struct {
	// Abstention says which final SQL abstains (default: exactly "null").
	Abstention reliability.Abstention
	// Threshold is the execution score at which an answer counts as
	// correct (default 1).
	Threshold float64
}

// board computes a model's cells in a mode.
func board(m *Model, mode rubric.Mode, splits []string, bs Bootstrap, rel Reliability) *Board {
	b := &Board{Model: m.Name, Mode: mode}
	r := m.Rescored(mode)
	for _, split := range splits {
		var ts []*scoring.TaskScore
		for _, t := range r.Tasks {
			if t.Key.Split == split {
				ts = append(ts, t)
			}
		}
		if len(ts) == 0 {
			continue
		}
		var groups []group
		diffs := append(append([]string{}, datasets.Difficulties...), All)
		for _, d := range diffs {
			groups = append(groups, group{All, d, func(k datasets.Key) bool { return d == All || k.Difficulty == d }})
		}
		for _, s := range scenariosOf(ts) {
			for _, d := range diffs {
				groups = append(groups, group{s, d, func(k datasets.Key) bool { return k.Domain == s && (d == All || k.Difficulty == d) }})
			}
		}
		for _, g := range groups {
			var sub []*scoring.TaskScore
			for _, t := range ts {
				if g.keep(t.Key) {
					sub = append(sub, t)
				}
			}
			if len(sub) == 0 {
				continue
			}
			c := cell(m, mode, split, g.scenario, g.difficulty, sub, bs)
			c.RS = reliabilityOf(m, sub, rel)
			b.Cells = append(b.Cells, c)
		}
	}
	return b
}

// group selects the tasks of a cell.
type group struct {
	scenario, difficulty string
	keep                 func(datasets.Key) bool
}

func scenariosOf(ts []*scoring.TaskScore) []string {
	set := map[string]bool{}
	for _, t := range ts {
		set[t.Key.Domain] = true
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func cell(m *Model, mode rubric.Mode, split, scenario, difficulty string, ts []*scoring.TaskScore, bs Bootstrap) *Cell {
	avg := scoring.Summarise(ts).All
	c := &Cell{Split: split, Scenario: scenario, Difficulty: difficulty, N: avg.N}
	sql := make([]float64, len(ts))
	exec := make([]float64, len(ts))
	for i, t := range ts {
		sql[i], exec[i] = t.SQL.Value, t.Results.Value
		// Invalid leaves are a property of the decisions, not of the mode:
		// count them from the strict scoring of the same task.
		if st := m.strict[t.Key]; st != nil {
			if n := st.Invalid(); n > 0 {
				c.InvalidLeaves += n
				c.InvalidTasks++
			}
			if !st.Graded {
				c.Ungraded++
			}
		}
	}
	ci := bs.Means(strings.Join([]string{"cell", m.Name, string(mode), split, scenario, difficulty}, "|"), sql, exec)
	c.SQL = Interval{Mean: avg.SQL, Lo: ci[0].Lo, Hi: ci[0].Hi}
	c.Exec = Interval{Mean: avg.Results, Lo: ci[1].Lo, Hi: ci[1].Hi}
	return c
}

// reliabilityOf scores RS(c) over ts from the model's final SQL and
// execution scores; nil without run outputs.
func reliabilityOf(m *Model, ts []*scoring.TaskScore, rel Reliability) *reliability.Scores {
	if len(m.Outputs) == 0 {
		return nil
	}
	tasks := make([]reliability.Task, len(ts))
	for i, t := range ts {
		rt := reliability.Task{Key: t.Key.String(), Exec: math.Min(1, math.Max(0, t.Results.Value))}
		if o := m.Outputs[t.Key]; o != nil {
			rt.FinalSQL = o.Summary.FinalSQL
			rt.ExecFailed = !o.Summary.ExecutionSuccess
		} else {
			rt.ExecFailed = true // no output: nothing ran
		}
		tasks[i] = rt
	}
	rep, err := reliability.ScoreTasks(tasks, reliability.TaskOptions{Abstention: rel.Abstention, Threshold: rel.Threshold})
	if err != nil {
		return nil // keys are unique and scores clamped: cannot happen
	}
	return &rep.Scores
}

// Metric is what models are ranked by.
type Metric string

const (
	MetricExec Metric = "exec"
	MetricSQL  Metric = "sql"
	// MetricRS0 and MetricRS10 rank by reliability; models without run
	// outputs rank last.
	MetricRS0  Metric = "rs0"
	MetricRS10 Metric = "rs10"
)

// ParseMetric accepts exec, sql, rs0 and rs10.
func ParseMetric(s string) (Metric, error) {
	switch Metric(s) {
	case MetricExec, MetricSQL, MetricRS0, MetricRS10:
		return Metric(s), nil
	}
	return "", fmt.Errorf("unknown metric %q (want exec, sql, rs0 or rs10)", s)
}

// value is a cell's figure for the metric, NaN when it has none.
func (c *Cell) value(metric Metric) float64 {
	switch metric {
	case MetricSQL:
		return scoring.Round6(c.SQL.Mean)
	case MetricRS0, MetricRS10:
		if c.RS == nil {
			return math.NaN()
		}
		if metric == MetricRS0 {
			return c.RS.RS0
		}
		return c.RS.RS10
	}
	return scoring.Round6(c.Exec.Mean)
}

// Ranking orders the models of one split, best first, by the metric over
// the whole split in the report's mode. Ties keep name order.
type Ranking struct {
	Split  string   `json:"split"`
	Metric Metric   `json:"metric"`
	Models []string `json:"models"`
}

func rankModels(boards []*Board, split string, metric Metric) Ranking {
	type row struct {
		name string
		v    float64
	}
	var rows []row
	for _, b := range boards {
		c := b.Cell(split, All, All)
		if c == nil {
			continue
		}
		// Scores rank on the published (6-decimal) figure, so that models
		// tied in the table are tied in the ranking.
		rows = append(rows, row{b.Model, c.value(metric)})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		vi, vj := rows[i].v, rows[j].v
		if math.IsNaN(vi) != math.IsNaN(vj) {
			return math.IsNaN(vj)
		}
		if vi != vj && !math.IsNaN(vi) {
			return vi > vj
		}
		return rows[i].name < rows[j].name
	})
	r := Ranking{Split: split, Metric: metric}
	for _, x := range rows {
		r.Models = append(r.Models, x.name)
	}
	return r
}

// Comparison is the paired difference A - B over the tasks both models
// were scored on, in one mode, split and difficulty.
type Comparison struct {
	A, B       string
	Mode       rubric.Mode
	Split      string
	Difficulty string
	// N is the number of paired tasks.
	N         int
	SQL, Exec Interval
}

// minSignificantN is the fewest paired tasks whose interval the tables mark
// as excluding 0: percentile intervals over a handful of tasks are too
// narrow to mean anything (over one task they are a single point).
const minSignificantN = 10

// Significant reports whether the difference's intervals exclude 0 over
// enough tasks to say so.
func (c *Comparison) Significant(i Interval) bool {
	return c.N >= minSignificantN && (i.Lo > 0 || i.Hi < 0)
}

func compare(a, b *Model, mode rubric.Mode, split string, bs Bootstrap) []*Comparison {
	var out []*Comparison
	for _, d := range append(append([]string{}, datasets.Difficulties...), All) {
		var sa, sb, ea, eb []float64
		for _, t := range a.Rescored(mode).Tasks {
			if t.Key.Split != split || (d != All && t.Key.Difficulty != d) {
				continue
			}
			u := b.TaskScore(mode, t.Key)
			if u == nil {
				continue
			}
			sa, sb = append(sa, t.SQL.Value), append(sb, u.SQL.Value)
			ea, eb = append(ea, t.Results.Value), append(eb, u.Results.Value)
		}
		if len(sa) == 0 {
			continue
		}
		label := strings.Join([]string{"paired", a.Name, b.Name, string(mode), split, d}, "|")
		ds := make([]float64, len(sa))
		de := make([]float64, len(sa))
		for i := range sa {
			ds[i], de[i] = sa[i]-sb[i], ea[i]-eb[i]
		}
		ci := bs.Means(label, ds, de)
		out = append(out, &Comparison{A: a.Name, B: b.Name, Mode: mode, Split: split, Difficulty: d, N: len(sa), SQL: ci[0], Exec: ci[1]})
	}
	return out
}

// pct formats a fraction x100 with two decimals; the published figures
// are rounded to 6 decimals first, as the reference rounds its averages.
func pct(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return fmt.Sprintf("%.2f", 100*scoring.Round6(x))
}

// pctCI formats an interval bound x100 with two decimals.
func pctCI(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return fmt.Sprintf("%.2f", 100*x)
}

// pctDiff formats a difference x100 with a sign.
func pctDiff(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return fmt.Sprintf("%+.2f", 100*x)
}
