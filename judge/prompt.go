package judge

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
)

// PromptOptions bound what a prompt shows of an answer. The reference
// judge pasted every result row into every prompt (up to 4.9 MB); a
// preview with counts is enough to judge a rubric leaf and keeps prompts
// small and cacheable.
type PromptOptions struct {
	MaxRows    int // result rows shown (default 20)
	MaxColumns int // result columns shown (default 30)
	MaxCell    int // characters per cell (default 80)
	MaxSQL     int // characters of SQL (default 16000)
	// SQLRows is the preview size for SQL-rubric leaves, where the result
	// is context only (default 5).
	SQLRows int
}

// DefaultPromptOptions are the bounds used when a field is zero.
var DefaultPromptOptions = PromptOptions{MaxRows: 20, MaxColumns: 30, MaxCell: 80, MaxSQL: 16000, SQLRows: 5}

func (o PromptOptions) withDefaults() PromptOptions {
	d := DefaultPromptOptions
	if o.MaxRows > 0 {
		d.MaxRows = o.MaxRows
	}
	if o.MaxColumns > 0 {
		d.MaxColumns = o.MaxColumns
	}
	if o.MaxCell > 0 {
		d.MaxCell = o.MaxCell
	}
	if o.MaxSQL > 0 {
		d.MaxSQL = o.MaxSQL
	}
	if o.SQLRows > 0 {
		d.SQLRows = o.SQLRows
	}
	return d
}

// PromptVersion names the prompt's wording; it is recorded in the judge's
// name so that a changed prompt never resumes a ledger of the old one.
const PromptVersion = "v1"

const systemPrompt = `You grade one requirement of a rubric for a clinical text-to-SQL answer. The answer is a BigQuery SQL query over MIMIC-IV v3.1 and, when it ran, its result.

Decide whether the answer meets the requirement. Judge only the requirement given; the enclosing requirements are context that says what it refers to. Do not reward or penalise anything else. If the requirement cannot be met because the query failed or returned nothing, it is not met.

Reply with one JSON object and nothing else:
{"reasoning": "<one to three sentences>", "verdict": "pass"}
or the same with "verdict": "fail".`

const referencePrompt = `REFERENCE-GUIDED GRADING: a reference solution (gold SQL and its result) follows the answer. It is one correct solution; an answer may differ from it and still meet the requirement. Gold values are often approximate (APPROX_QUANTILES).`

// BuildPrompt renders the judge prompt for one leaf: the requirement and
// its enclosing requirements, the question, the candidate SQL, the
// execution status and error, and a bounded preview of the result with row
// and column counts; in reference-guided mode also the gold SQL and gold
// result, labelled as such.
func BuildPrompt(req *LeafRequest, o PromptOptions) []llm.Message {
	o = o.withDefaults()
	var b strings.Builder
	sys := systemPrompt
	if req.ReferenceGuided {
		sys += "\n\n" + referencePrompt
	}

	b.WriteString("## Requirement to grade\n")
	b.WriteString(strings.TrimSpace(req.Leaf.Requirements))
	b.WriteString("\n")
	if anc := req.Leaf.Ancestors(); len(anc) > 0 {
		b.WriteString("\n## Enclosing requirements (outermost first)\n")
		for i, a := range anc {
			fmt.Fprintf(&b, "%s- %s\n", strings.Repeat("  ", i), strings.TrimSpace(a.Requirements))
		}
	}
	target := "the query result"
	if req.Tree == judgefmt.TreeSQL {
		target = "the SQL query"
	}
	fmt.Fprintf(&b, "\n## Evaluation target\n%s\n", target)
	writeAnswer(&b, req.Task, req.Answer, req.Tree, req.ReferenceGuided, o)
	b.WriteString("\nReply with the JSON object only.")
	return []llm.Message{{Role: llmfmt.RoleSystem, Content: sys}, {Role: llmfmt.RoleUser, Content: b.String()}}
}

// writeAnswer writes what every leaf of a task's tree is judged on: the
// question, the candidate SQL, the execution status and error, a bounded
// preview of the result (fewer rows for the SQL tree, where the result is
// context only) and, reference-guided, the gold SQL and result. Each
// section starts with a blank line.
func writeAnswer(b *strings.Builder, task *datasets.Task, a *codecheck.Answer, tree judgefmt.Tree, guided bool, o PromptOptions) {
	b.WriteString("\n## Question\n")
	b.WriteString(strings.TrimSpace(task.Question))
	b.WriteString("\n")

	b.WriteString("\n## Candidate SQL\n")
	if a.SQLAbsent {
		b.WriteString("(absent: this run was released as its result CSV only; the SQL text is unknown, not empty)\n")
	} else if strings.TrimSpace(a.SQL) == "" {
		b.WriteString("(none: the model produced no SQL)\n")
	} else {
		writeFenced(b, "sql", clip(a.SQL, o.MaxSQL))
	}

	b.WriteString("\n## Execution\n")
	b.WriteString(executionStatus(a))
	b.WriteString("\n")
	if a.HasResult() && a.Table != nil {
		rows := o.MaxRows
		if tree == judgefmt.TreeSQL {
			rows = o.SQLRows
		}
		b.WriteString("\n## Candidate result\n")
		writePreview(b, a.Table, rows, o)
	}

	if guided {
		b.WriteString("\n## Reference SQL (gold)\n")
		writeFenced(b, "sql", clip(task.GoldSQL, o.MaxSQL))
		b.WriteString("\n## Reference result (gold)\n")
		gold, err := codecheck.ReadCSV(bytes.NewReader(task.GoldResult), codecheck.MaxTableRows)
		if err != nil {
			fmt.Fprintf(b, "(unreadable: %v)\n", err)
		} else {
			writePreview(b, gold, o.MaxRows, o)
		}
	}
}

func writeFenced(b *strings.Builder, lang, s string) {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n", fence, lang, strings.TrimRight(s, "\n"), fence)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n-- [%d more characters not shown]", len(s)-cut)
}

func executionStatus(a *codecheck.Answer) string {
	switch {
	case a.SQLAbsent && a.Executed:
		return "ran (only the result was released)"
	case a.SQLAbsent:
		return "unknown: only a placeholder result was released"
	case strings.TrimSpace(a.SQL) == "":
		return "not run: no SQL"
	case !a.Executed:
		msg := strings.TrimSpace(a.Error)
		if msg == "" {
			msg = "no error message recorded"
		}
		return "failed: " + clip(msg, 2000)
	case a.Table == nil && a.ReadErr != nil:
		return "succeeded, but the result file cannot be read: " + a.ReadErr.Error()
	case !a.HasResult():
		return "succeeded, returned 0 rows"
	case a.Table == nil:
		return fmt.Sprintf("succeeded, returned %d row(s); the result itself is not available", a.RowCount)
	}
	return fmt.Sprintf("succeeded, returned %d row(s) x %d column(s)", a.Table.TotalRows, len(a.Table.Columns))
}

// writePreview writes the first rows of t as a pipe table, numbers
// formatted deterministically (FormatCell), with a line saying what is not
// shown.
func writePreview(b *strings.Builder, t *codecheck.Table, maxRows int, o PromptOptions) {
	cols := min(len(t.Columns), o.MaxColumns)
	rows := min(len(t.Rows), maxRows)
	cell := func(s string) string {
		// Clip first: a cell may be huge (a model's result is untrusted),
		// and only its first MaxCell characters are ever shown.
		s = clipRunes(s, o.MaxCell)
		return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "/")
	}
	b.WriteString("|")
	for _, c := range t.Columns[:cols] {
		b.WriteString(" " + cell(c) + " |")
	}
	b.WriteString("\n|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows[:rows] {
		b.WriteString("|")
		for i := range cols {
			b.WriteString(" " + cell(FormatCell(r[i])) + " |")
		}
		b.WriteString("\n")
	}
	var notes []string
	if t.TotalRows > rows {
		notes = append(notes, fmt.Sprintf("first %d of %d rows shown", rows, t.TotalRows))
	} else {
		notes = append(notes, fmt.Sprintf("all %d row(s) shown", t.TotalRows))
	}
	if len(t.Columns) > cols {
		notes = append(notes, fmt.Sprintf("first %d of %d columns shown", cols, len(t.Columns)))
	}
	notes = append(notes, "numbers to 6 significant digits", "NULL = no value")
	fmt.Fprintf(b, "(%s)\n", strings.Join(notes, "; "))
}

// clipRunes is textclip.Runes: it reads no further than the cut.
func clipRunes(s string, n int) string { return textclip.Runes(s, n) }

// FormatCell renders a cell deterministically: NULL, integers without a
// decimal point, other numbers with 6 significant digits, text as is.
func FormatCell(c codecheck.Cell) string {
	switch {
	case c.Null:
		return "NULL"
	case c.IsNum:
		f := c.Num
		if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
	return strings.TrimSpace(c.Raw)
}
