package reports

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/rubric"
)

// Scores in the CSV files are x100 with two decimals, formatted here so
// that the files are stable across platforms and match the Markdown.

// LeaderboardRow is one row of leaderboard.csv: one model, split and
// difficulty (easy, medium, hard or all). sql_score and exec_score are in
// the report's mode; both modes' figures follow.
type LeaderboardRow struct {
	Model         string `csv:"model"`
	Split         string `csv:"split"`
	Difficulty    string `csv:"difficulty"`
	Mode          string `csv:"mode"`
	Rank          int    `csv:"rank"`
	N             int    `csv:"n"`
	SQLScore      string `csv:"sql_score"`
	SQLLo         string `csv:"sql_ci_lo"`
	SQLHi         string `csv:"sql_ci_hi"`
	ExecScore     string `csv:"exec_score"`
	ExecLo        string `csv:"exec_ci_lo"`
	ExecHi        string `csv:"exec_ci_hi"`
	InvalidLeaves int    `csv:"invalid_leaves"`
	InvalidTasks  int    `csv:"invalid_tasks"`
	Ungraded      int    `csv:"ungraded_tasks"`
	RefN          int    `csv:"reference_n"`
	RefSQL        string `csv:"reference_sql_score"`
	RefExec       string `csv:"reference_exec_score"`
	StrictN       int    `csv:"strict_n"`
	StrictSQL     string `csv:"strict_sql_score"`
	StrictExec    string `csv:"strict_exec_score"`
	RS0           string `csv:"rs0"`
	RS10          string `csv:"rs10"`
	Abstained     string `csv:"abstained"`
	// Subset describes the report's task filter ("" over whole task
	// sets): the scores are then the subset's.
	Subset string `csv:"subset"`
	// Database is the model's database badge ("sample DB: duckdb, 100
	// patients"), "" for runs on BigQuery or without a manifest.
	Database string `csv:"database"`
}

// ScenarioRow is one row of scenarios.csv: one model, mode, split,
// scenario and difficulty.
type ScenarioRow struct {
	Model         string `csv:"model"`
	Mode          string `csv:"mode"`
	Split         string `csv:"split"`
	Scenario      string `csv:"scenario"`
	Difficulty    string `csv:"difficulty"`
	N             int    `csv:"n"`
	SQLScore      string `csv:"sql_score"`
	SQLLo         string `csv:"sql_ci_lo"`
	SQLHi         string `csv:"sql_ci_hi"`
	ExecScore     string `csv:"exec_score"`
	ExecLo        string `csv:"exec_ci_lo"`
	ExecHi        string `csv:"exec_ci_hi"`
	InvalidLeaves int    `csv:"invalid_leaves"`
	InvalidTasks  int    `csv:"invalid_tasks"`
}

// ComparisonRow is one row of comparisons.csv.
type ComparisonRow struct {
	A          string `csv:"model_a"`
	B          string `csv:"model_b"`
	Mode       string `csv:"mode"`
	Split      string `csv:"split"`
	Difficulty string `csv:"difficulty"`
	N          int    `csv:"n_paired"`
	SQLDiff    string `csv:"sql_diff"`
	SQLLo      string `csv:"sql_diff_ci_lo"`
	SQLHi      string `csv:"sql_diff_ci_hi"`
	ExecDiff   string `csv:"exec_diff"`
	ExecLo     string `csv:"exec_diff_ci_lo"`
	ExecHi     string `csv:"exec_diff_ci_hi"`
}

// TaxonomyCSVRow is one row of taxonomy.csv.
type TaxonomyCSVRow struct {
	Model    string `csv:"model"`
	Bucket   string `csv:"bucket"`
	Leaves   int    `csv:"leaves"`
	Passed   int    `csv:"passed"`
	Failed   int    `csv:"failed"`
	Invalid  int    `csv:"invalid"`
	Skipped  int    `csv:"skipped"`
	Missing  int    `csv:"missing"`
	FailRate string `csv:"fail_rate"`
}

// TaxonomyLeafRow is one row of taxonomy_leaves.csv.
type TaxonomyLeafRow struct {
	Model   string `csv:"model"`
	Tree    string `csv:"tree"`
	LeafID  string `csv:"leaf_id"`
	Bucket  string `csv:"bucket"`
	Decided int    `csv:"decided"`
	Failed  int    `csv:"failed"`
	Example string `csv:"example_task"`
}

// RuleRow is one row of taxonomy_rules.csv.
type RuleRow struct {
	Order    int    `csv:"order"`
	Tree     string `csv:"tree"`
	Category string `csv:"category_regexp"`
	Text     string `csv:"text_regexp"`
	Bucket   string `csv:"bucket"`
	Why      string `csv:"captures"`
	Leaves   int    `csv:"leaves"`
}

// RefinementCSVRow is one row of refinement.csv; attempts beyond the third
// are in report.json.
type RefinementCSVRow struct {
	Model      string `csv:"model"`
	Split      string `csv:"split"`
	Tasks      int    `csv:"tasks"`
	After1     int    `csv:"ran_after_1"`
	After2     int    `csv:"ran_after_2"`
	After3     int    `csv:"ran_after_3"`
	Rate1      string `csv:"rate_after_1"`
	Rate2      string `csv:"rate_after_2"`
	Rate3      string `csv:"rate_after_3"`
	Rescued1   int    `csv:"rescued_round_1"`
	Rescued2   int    `csv:"rescued_round_2"`
	NeverRan   int    `csv:"never_ran"`
	NoSQL      int    `csv:"no_sql"`
	Published1 string `csv:"published_after_1"`
	Published2 string `csv:"published_after_2"`
	Published3 string `csv:"published_after_3"`
	Mismatch   bool   `csv:"published_mismatch"`
	// Warned: final SQL that ran only with a warning (RefinementRow.Warned).
	Warned int `csv:"ran_with_warnings"`
}

// HealthCSVRow is one row of health.csv.
type HealthCSVRow struct {
	Model            string `csv:"model"`
	Judge            string `csv:"judge"`
	Complete         string `csv:"complete"`
	Tasks            int    `csv:"tasks"`
	Ungraded         int    `csv:"ungraded_tasks"`
	Leaves           int    `csv:"leaves"`
	Passed           int    `csv:"passed"`
	Failed           int    `csv:"failed"`
	Invalid          int    `csv:"invalid"`
	Skipped          int    `csv:"skipped"`
	Missing          int    `csv:"missing"`
	InvalidLeaves    int    `csv:"invalid_leaves"`
	InvalidTasks     int    `csv:"tasks_with_invalid_leaves"`
	Code             int    `csv:"decided_code"`
	LLM              int    `csv:"decided_llm"`
	Replay           int    `csv:"decided_replay"`
	Recorded         int    `csv:"decided_recorded"`
	CodeShare        string `csv:"code_share"`
	LLMShare         string `csv:"llm_share"`
	JudgeErrors      int    `csv:"judge_errors"`
	Unparsed         int    `csv:"unparsed_replies"`
	NonBinary        int    `csv:"non_binary_scores"`
	LLMCalls         string `csv:"llm_calls"`
	CacheHits        string `csv:"cache_hits"`
	PromptTokens     string `csv:"prompt_tokens"`
	CompletionTokens string `csv:"completion_tokens"`
	CostUSD          string `csv:"cost_usd"`
}

func pctPlain(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return pct(x)
}

// LeaderboardRows returns leaderboard.csv's rows: per split, models in rank
// order, difficulties easy, medium, hard, all.
func (r *Report) LeaderboardRows() []LeaderboardRow {
	var rows []LeaderboardRow
	for _, split := range r.Splits {
		for i, name := range r.Ranking(split).Models {
			b := r.Board(r.Mode, name)
			ref, strict := r.Board(rubric.Reference, name), r.Board(rubric.Strict, name)
			for _, d := range append(append([]string{}, datasets.Difficulties...), All) {
				c := b.Cell(split, All, d)
				// A difficulty without tasks keeps its row (n 0, no scores),
				// so every model has the same rows.
				rc, sc := ref.Cell(split, All, d), strict.Cell(split, All, d)
				row := LeaderboardRow{Model: name, Split: split, Difficulty: d, Mode: modeName(r.Mode), Rank: i + 1, Subset: r.Subset, Database: r.badgeOf(name)}
				if c != nil {
					row.N, row.SQLScore, row.SQLLo, row.SQLHi = c.N, pct(c.SQL.Mean), pctCI(c.SQL.Lo), pctCI(c.SQL.Hi)
					row.ExecScore, row.ExecLo, row.ExecHi = pct(c.Exec.Mean), pctCI(c.Exec.Lo), pctCI(c.Exec.Hi)
					row.InvalidLeaves, row.InvalidTasks, row.Ungraded = c.InvalidLeaves, c.InvalidTasks, c.Ungraded
					if c.RS != nil {
						row.RS0, row.RS10 = fmt.Sprintf("%.2f", c.RS.RS0), fmt.Sprintf("%.2f", c.RS.RS10)
						row.Abstained = fmt.Sprint(c.RS.AbstainedAnswerable + c.RS.AbstainedUnanswerable)
					}
				}
				if rc != nil {
					row.RefN, row.RefSQL, row.RefExec = rc.N, pct(rc.SQL.Mean), pct(rc.Exec.Mean)
				}
				if sc != nil {
					row.StrictN, row.StrictSQL, row.StrictExec = sc.N, pct(sc.SQL.Mean), pct(sc.Exec.Mean)
					row.Ungraded = sc.Ungraded
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

func (r *Report) scenarioRows() []ScenarioRow {
	var rows []ScenarioRow
	for _, mode := range r.Modes() {
		for _, split := range r.Splits {
			for _, name := range r.Ranking(split).Models {
				for _, c := range r.Board(mode, name).Cells {
					if c.Split != split || c.Scenario == All {
						continue
					}
					rows = append(rows, ScenarioRow{Model: name, Mode: modeName(mode), Split: split, Scenario: c.Scenario, Difficulty: c.Difficulty,
						N: c.N, SQLScore: pct(c.SQL.Mean), SQLLo: pctCI(c.SQL.Lo), SQLHi: pctCI(c.SQL.Hi),
						ExecScore: pct(c.Exec.Mean), ExecLo: pctCI(c.Exec.Lo), ExecHi: pctCI(c.Exec.Hi),
						InvalidLeaves: c.InvalidLeaves, InvalidTasks: c.InvalidTasks})
				}
			}
		}
	}
	return rows
}

func (r *Report) comparisonRows() []ComparisonRow {
	var rows []ComparisonRow
	for _, c := range r.Comparisons {
		rows = append(rows, ComparisonRow{A: c.A, B: c.B, Mode: modeName(c.Mode), Split: c.Split, Difficulty: c.Difficulty, N: c.N,
			SQLDiff: pctDiff(c.SQL.Mean), SQLLo: pctDiff(c.SQL.Lo), SQLHi: pctDiff(c.SQL.Hi),
			ExecDiff: pctDiff(c.Exec.Mean), ExecLo: pctDiff(c.Exec.Lo), ExecHi: pctDiff(c.Exec.Hi)})
	}
	return rows
}

func (r *Report) taxonomyRows() ([]TaxonomyCSVRow, []TaxonomyLeafRow, []RuleRow) {
	var rows []TaxonomyCSVRow
	var leaves []TaxonomyLeafRow
	for _, m := range r.orderedModels() {
		for _, b := range Buckets {
			t, _ := r.Taxonomy.Row(m, b)
			rows = append(rows, TaxonomyCSVRow{Model: m, Bucket: string(b), Leaves: t.Leaves, Passed: t.Passed, Failed: t.Failed,
				Invalid: t.Invalid, Skipped: t.Skipped, Missing: t.Missing, FailRate: rate(t.Failed, t.Passed+t.Failed)})
		}
		for _, f := range r.Taxonomy.Top {
			if f.Model == m {
				leaves = append(leaves, TaxonomyLeafRow{Model: m, Tree: string(f.Tree), LeafID: f.LeafID, Bucket: string(f.Bucket),
					Decided: f.Decided, Failed: f.Failed, Example: f.Example.String()})
			}
		}
	}
	var rules []RuleRow
	for i, ru := range Rules {
		rules = append(rules, RuleRow{Order: i + 1, Tree: string(ru.Tree), Category: ru.Category, Text: ru.Text, Bucket: string(ru.Bucket),
			Why: ru.Why, Leaves: r.Taxonomy.RuleLeaves[i]})
	}
	return rows, leaves, rules
}

func (r *Report) refinementRows() []RefinementCSVRow {
	at := func(xs []int, k int) int {
		if k < len(xs) {
			return xs[k]
		}
		return 0
	}
	pub := func(xs []int, k int) string {
		if k < len(xs) {
			return fmt.Sprint(xs[k])
		}
		return ""
	}
	var rows []RefinementCSVRow
	for _, m := range r.orderedModels() {
		for _, x := range r.Refinement {
			if x.Model != m {
				continue
			}
			rows = append(rows, RefinementCSVRow{Model: x.Model, Split: x.Split, Tasks: x.Tasks,
				After1: at(x.Cumulative, 0), After2: at(x.Cumulative, 1), After3: at(x.Cumulative, 2),
				Rate1: fmt.Sprintf("%.2f", x.Rate(0)), Rate2: fmt.Sprintf("%.2f", x.Rate(1)), Rate3: fmt.Sprintf("%.2f", x.Rate(2)),
				Rescued1: at(x.FirstSuccess, 1), Rescued2: at(x.FirstSuccess, 2), NeverRan: x.Failed, NoSQL: x.NoSQL, Warned: x.Warned,
				Published1: pub(x.Published, 0), Published2: pub(x.Published, 1), Published3: pub(x.Published, 2), Mismatch: x.Mismatch})
		}
	}
	return rows
}

func (r *Report) healthRows() []HealthCSVRow {
	var rows []HealthCSVRow
	for _, h := range r.Health {
		row := HealthCSVRow{Model: h.Model, Judge: h.Judge, Tasks: h.Tasks, Ungraded: h.Ungraded, Leaves: h.Leaves, Passed: h.Passed, Failed: h.Failed,
			Invalid: h.Invalid, Skipped: h.Skipped, Missing: h.Missing, InvalidLeaves: h.InvalidLeaves, InvalidTasks: h.InvalidTasks,
			Code: h.BySource[SourceCode], LLM: h.BySource[SourceLLM],
			Replay: h.BySource[SourceReplay], Recorded: h.BySource[SourceRecorded] + h.BySource[SourceJudge],
			CodeShare: fmt.Sprintf("%.4f", h.CodeShare()), LLMShare: fmt.Sprintf("%.4f", h.LLMShare()),
			JudgeErrors: h.JudgeErrors, Unparsed: h.Unparsed, NonBinary: h.NonBinary}
		if h.Complete != nil {
			row.Complete = fmt.Sprint(*h.Complete)
		}
		if h.HasUsage {
			row.LLMCalls, row.PromptTokens, row.CompletionTokens = fmt.Sprint(h.LLMCalls), fmt.Sprint(h.PromptTokens), fmt.Sprint(h.CompletionTokens)
			row.CacheHits = fmt.Sprint(h.CacheHits)
			row.CostUSD = fmt.Sprintf("%.6f", h.CostUSD)
		}
		rows = append(rows, row)
	}
	return rows
}

func writeCSV[T any](w io.Writer, rows []T) error {
	if rows == nil {
		rows = []T{}
	}
	cw := &formulaSafeWriter{gocsv.DefaultCSVWriter(w)}
	return gocsv.MarshalCSV(rows, cw)
}

// formulaSafeWriter writes CSV cells so that a spreadsheet does not run
// them: a text cell starting with = + - @ (or a tab or carriage return,
// which some spreadsheets skip before looking) is prefixed with a single
// quote, as OWASP advises against CSV injection. Model names, leaf texts
// and error messages come from others; "=HYPERLINK(...)" as a model name
// would otherwise be a live formula in leaderboard.csv. Numbers ("-0.0512",
// "+1") are left as they are: they are what the cells are for.
type formulaSafeWriter struct{ *gocsv.SafeCSVWriter }

func (f *formulaSafeWriter) Write(row []string) error {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = neutraliseFormula(c)
	}
	return f.SafeCSVWriter.Write(out)
}

func neutraliseFormula(c string) string {
	if c == "" || !strings.ContainsRune("=+-@\t\r", rune(c[0])) {
		return c
	}
	if _, err := strconv.ParseFloat(c, 64); err == nil {
		return c
	}
	return "'" + c
}

// taskStatus says what became of the model's answer to task k, for the
// task view and tasks.csv.
func (m *Model) taskStatus(k datasets.Key) string {
	var status string
	if o := m.Outputs[k]; o != nil {
		switch n := firstSuccess(o.Summary); {
		case len(o.Summary.RefinementAttempts) == 0 && !o.Summary.ExecutionSuccess:
			status = "no SQL generated"
			if o.Summary.FinalError != nil {
				status += ": " + truncRunes(*o.Summary.FinalError, maxErrorRunes)
			}
		case n == 0:
			status = "SQL failed on every attempt"
		default:
			status = fmt.Sprintf("ran at attempt %d, %d rows", n, o.Summary.RowCount)
			for _, w := range finalWarnings(o.Summary) {
				status += "; warning: " + truncRunes(w, maxErrorRunes)
			}
		}
	} else {
		status = "no run output given"
	}
	if st := m.strict[k]; st != nil && !st.Graded {
		status += "; not graded (the grading file lacks this task)"
	}
	return status
}

// TaskRow is a row of tasks.csv: one model's scores on one task (main mode).
type TaskRow struct {
	Model         string `csv:"model"`
	Split         string `csv:"split"`
	Task          string `csv:"task"`
	Difficulty    string `csv:"difficulty"`
	Domain        string `csv:"domain"`
	Mode          string `csv:"mode"`
	SQLScore      string `csv:"sql_score"`
	ExecScore     string `csv:"execution_score"`
	Status        string `csv:"status"`
	InvalidLeaves int    `csv:"invalid_leaves"`
}

// taskRows returns tasks.csv's rows: models in report order, each model's
// tasks in key order; scores x100 in the report's main mode, empty when that
// mode does not score the task.
func (r *Report) taskRows() []TaskRow {
	var rows []TaskRow
	for _, m := range r.Models {
		keys := make([]datasets.Key, 0, len(m.strict))
		for k := range m.strict {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
		for _, k := range keys {
			row := TaskRow{Model: m.Name, Split: k.Split, Task: k.String(), Difficulty: k.Difficulty, Domain: k.Domain,
				Mode: modeName(r.Mode), Status: m.taskStatus(k), InvalidLeaves: m.strict[k].Invalid()}
			if ts := m.TaskScore(r.Mode, k); ts != nil {
				row.SQLScore, row.ExecScore = pct(ts.SQL.Value), pct(ts.Results.Value)
			}
			rows = append(rows, row)
		}
	}
	return rows
}
