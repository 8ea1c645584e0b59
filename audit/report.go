package audit

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/runfolder"
)

// Classes of a gold failure.
const (
	// ClassRubric: the rubric lint shows the gold answer cannot satisfy
	// the leaf as written; the rubric or the gold result needs fixing.
	ClassRubric = "rubric/gold defect"
	// ClassJudge: no lint finding explains it; the judge is wrong.
	ClassJudge = "judge error"
)

// Row counts one mutation's leaves of one tree and kind.
type Row struct {
	Mutation string `json:"mutation"`
	Tree     string `json:"tree"`
	Kind     string `json:"kind"`
	// Leaves is every leaf of the answers; Testable those whose verdict is
	// known by construction (on gold: all, must pass; on a mutation: the
	// leaves that must fail).
	Leaves   int `json:"leaves"`
	Testable int `json:"testable"`
	// Decided counts the testable leaves decided, per source; Wrong those
	// decided against the known verdict (false fails on gold, missed
	// fails on a mutation), per source.
	Decided map[string]int `json:"decided"`
	Wrong   map[string]int `json:"wrong"`
	// Invalid counts the testable leaves the judge gave no verdict on (a
	// failed call, an unreadable reply): not decided, never right or
	// wrong. Undecided those it did not judge at all.
	Invalid   int `json:"invalid"`
	Undecided int `json:"undecided"`
}

// Failure is one leaf decided against its known verdict.
type Failure struct {
	Task        string `json:"task"`
	Variant     string `json:"variant"`
	Tree        string `json:"tree"`
	Leaf        string `json:"leaf"`
	Kind        string `json:"kind"`
	Source      string `json:"source"`
	Requirement string `json:"requirement"`
	Explanation string `json:"explanation"`
	// Expected says why the verdict is known.
	Expected string `json:"expected"`
	// Class (gold failures only): rubric/gold defect or judge error, with
	// the lint finding that makes it a defect.
	Class string `json:"class,omitempty"`
	Lint  string `json:"lint,omitempty"`
}

// Cost is what an LLM judge's audit spent.
type Cost struct {
	EstimatedUSD  float64 `json:"estimated_usd"`
	EstimatedCall int     `json:"estimated_calls"`
	BudgetUSD     float64 `json:"budget_usd"`
	SpentUSD      float64 `json:"spent_usd"`
	Calls         int     `json:"llm_calls"`
	CacheHits     int     `json:"cache_hits"`
	PromptTokens  int     `json:"prompt_tokens"`
	Completion    int     `json:"completion_tokens"`
	// Stopped is why judging stopped early (the budget), "" when it
	// finished.
	Stopped string `json:"stopped,omitempty"`
}

// Report is an audit's outcome.
type Report struct {
	Judge     string         `json:"judge"`
	Tasks     int            `json:"tasks"`
	Mutations []string       `json:"mutations"`
	Answers   map[string]int `json:"answers"`
	Rows      []Row          `json:"rows"`
	// GoldFailures are the false fails on gold answers, classified.
	GoldFailures []Failure `json:"gold_failures"`
	// Missed are the missed fails on mutated answers.
	Missed []Failure `json:"missed_fails"`
	Lint   []Finding `json:"rubric_lint"`
	Cost   *Cost     `json:"cost,omitempty"`
	Notes  []string  `json:"notes,omitempty"`
}

// Total sums a mutation's rows.
type Total struct {
	Answers, Leaves, Testable, Decided, Wrong, Invalid, Undecided int
	// CodeDecided and CodeWrong count the code checks' share.
	CodeDecided, CodeWrong int
}

// Totals sums the rows per mutation.
func (r *Report) Totals() map[string]Total {
	out := map[string]Total{}
	for _, row := range r.Rows {
		t := out[row.Mutation]
		t.Answers = r.Answers[row.Mutation]
		t.Leaves += row.Leaves
		t.Testable += row.Testable
		t.Undecided += row.Undecided
		t.Invalid += row.Invalid
		for s, n := range row.Decided {
			t.Decided += n
			if s == "code" {
				t.CodeDecided += n
			}
		}
		for s, n := range row.Wrong {
			t.Wrong += n
			if s == "code" {
				t.CodeWrong += n
			}
		}
		out[row.Mutation] = t
	}
	return out
}

// Invalid is the number of testable leaves the judge gave no verdict on.
func (r *Report) Invalid() int {
	n := 0
	for _, row := range r.Rows {
		n += row.Invalid
	}
	return n
}

// GoldClassCounts counts the gold failures per class.
func (r *Report) GoldClassCounts() (judgeErr, rubricDefect int) {
	for _, f := range r.GoldFailures {
		if f.Class == ClassJudge {
			judgeErr++
		} else {
			rubricDefect++
		}
	}
	return
}

// Files written by WriteFiles.
const (
	MarkdownFile = "audit.md"
	JSONFile     = "audit.json"
	CSVFile      = "audit.csv"
	FailuresCSV  = "audit_failures.csv"
	LintCSV      = "rubric_lint.csv"
)

// WriteFiles writes the report to dir as Markdown, JSON and CSV.
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md bytes.Buffer
	if err := r.Markdown(&md); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{MarkdownFile: md.Bytes(), JSONFile: append(js, '\n'), CSVFile: r.rowsCSV(), FailuresCSV: r.failuresCSV(), LintCSV: r.lintCSV()}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := atomicfile.Write(filepath.Join(dir, n), files[n]); err != nil {
			return err
		}
	}
	return nil
}

// MaxJSONBytes bounds an audit.json read back (the 190 validation tasks'
// code-only audit writes about 1 MB).
const MaxJSONBytes = 64 << 20

// ReadJSON reads an audit.json written by WriteFiles.
func ReadJSON(path string) (*Report, error) {
	b, err := runfolder.ReadFile(path, MaxJSONBytes)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

func sources(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var s []string
	for _, k := range keys {
		s = append(s, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Markdown writes the report's tables.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Judge audit: %s\n\n", r.Judge)
	fmt.Fprintf(&b, "%d tasks; answers whose verdicts are known by construction: the gold answer (every leaf must pass) "+
		"and mutated gold answers (the leaves listed as testable must fail).\n\n", r.Tasks)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note: %s\n\n", n)
	}
	b.WriteString("## Per mutation\n\n")
	b.WriteString("| answer | answers | leaves | testable | decided | wrong | invalid | undecided |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	tot := r.Totals()
	for _, m := range r.Mutations {
		t, ok := tot[m]
		if !ok {
			fmt.Fprintf(&b, "| %s | 0 | 0 | 0 | 0 | 0 | 0 | 0 |\n", m)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", m, t.Answers, t.Leaves, t.Testable, t.Decided, t.Wrong, t.Invalid, t.Undecided)
	}
	b.WriteString("\nOn gold, wrong = false fails; on a mutation, wrong = missed fails (a pass where the leaf must fail). " +
		"Invalid: the judge gave no verdict (a failed call, an unreadable reply), counted neither as decided nor as right or wrong.\n\n")
	if inv := r.Invalid(); inv > 0 {
		fmt.Fprintf(&b, "**%d testable leaves have no verdict (invalid)**: the figures on false and missed fails cover the decided leaves only.\n\n", inv)
	}
	b.WriteString("## Per leaf kind and source\n\n")
	b.WriteString("| answer | tree | kind | leaves | testable | decided | wrong | invalid | undecided |\n|---|---|---|---:|---:|---|---|---:|---:|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %d | %d |\n", row.Mutation, row.Tree, row.Kind, row.Leaves, row.Testable,
			sources(row.Decided), sources(row.Wrong), row.Invalid, row.Undecided)
	}
	je, rd := r.GoldClassCounts()
	fmt.Fprintf(&b, "\n## False fails on gold (%d: %d %s, %d %s)\n\n", len(r.GoldFailures), je, ClassJudge, rd, ClassRubric)
	writeFailures(&b, r.GoldFailures, true)
	fmt.Fprintf(&b, "\n## Missed fails on mutations (%d)\n\n", len(r.Missed))
	writeFailures(&b, r.Missed, false)
	fmt.Fprintf(&b, "\n## Rubric lint (%d findings)\n\n", len(r.Lint))
	if len(r.Lint) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| task | leaf | kind | problem |\n|---|---|---|---|\n")
		for _, f := range r.Lint {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", f.Task, f.Leaf, f.Kind, cell(f.Problem))
		}
	}
	if c := r.Cost; c != nil {
		fmt.Fprintf(&b, "\n## Cost\n\nestimated $%.4f over %d calls; budget $%.4f; spent $%.4f in %d calls (%d cache hits), %d prompt and %d completion tokens",
			c.EstimatedUSD, c.EstimatedCall, c.BudgetUSD, c.SpentUSD, c.Calls, c.CacheHits, c.PromptTokens, c.Completion)
		if c.Stopped != "" {
			fmt.Fprintf(&b, "; stopped early: %s", c.Stopped)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFailures(b *strings.Builder, fs []Failure, gold bool) {
	if len(fs) == 0 {
		b.WriteString("None.\n")
		return
	}
	if gold {
		b.WriteString("| task | leaf | kind | source | class | requirement | judge's explanation | lint |\n|---|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| answer | task | tree | leaf | kind | source | requirement | why it must fail | judge's explanation |\n|---|---|---|---|---|---|---|---|---|\n")
	}
	for _, f := range fs {
		if gold {
			fmt.Fprintf(b, "| %s | %s/%s | %s | %s | %s | %s | %s | %s |\n", f.Task, f.Tree, f.Leaf, f.Kind, f.Source, f.Class, cell(f.Requirement), cell(f.Explanation), cell(f.Lint))
		} else {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f.Variant, f.Task, f.Tree, f.Leaf, f.Kind, f.Source, cell(f.Requirement), cell(f.Expected), cell(f.Explanation))
		}
	}
}

// cell makes a text fit one Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func csvBytes(rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.WriteAll(rows) // a bytes.Buffer does not fail
	return b.Bytes()
}

func (r *Report) rowsCSV() []byte {
	rows := [][]string{{"answer", "tree", "kind", "source", "leaves", "testable", "decided", "wrong", "invalid", "undecided"}}
	for _, row := range r.Rows {
		srcs := map[string]bool{}
		for s := range row.Decided {
			srcs[s] = true
		}
		var keys []string
		for s := range srcs {
			keys = append(keys, s)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			keys = []string{""}
		}
		for i, s := range keys {
			leaves, testable, invalid, undecided := "", "", "", ""
			if i == 0 {
				// Leaf counts go on the first source's line only, so that
				// a column sum counts each leaf once.
				leaves, testable, invalid, undecided = strconv.Itoa(row.Leaves), strconv.Itoa(row.Testable), strconv.Itoa(row.Invalid), strconv.Itoa(row.Undecided)
			}
			rows = append(rows, []string{row.Mutation, row.Tree, row.Kind, s, leaves, testable, strconv.Itoa(row.Decided[s]), strconv.Itoa(row.Wrong[s]), invalid, undecided})
		}
	}
	return csvBytes(rows)
}

func (r *Report) failuresCSV() []byte {
	rows := [][]string{{"answer", "task", "tree", "leaf", "kind", "source", "class", "requirement", "explanation", "expected", "lint"}}
	for _, f := range append(append([]Failure{}, r.GoldFailures...), r.Missed...) {
		rows = append(rows, []string{f.Variant, f.Task, f.Tree, f.Leaf, f.Kind, f.Source, f.Class, f.Requirement, f.Explanation, f.Expected, f.Lint})
	}
	return csvBytes(rows)
}

func (r *Report) lintCSV() []byte {
	rows := [][]string{{"task", "leaf", "kind", "problem", "requirement"}}
	for _, f := range r.Lint {
		rows = append(rows, []string{f.Task, f.Leaf, f.Kind, f.Problem, f.Requirement})
	}
	return csvBytes(rows)
}

// Sum is the number of leaves decided in a row, over every source.
func (row Row) Sum() int { return sum(row.Decided) }
