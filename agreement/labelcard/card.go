package labelcard

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// Bounds limit what a card shows of untrusted answers.
type Bounds struct {
	SQLBytes, SQLLines int
	Rows, Columns      int
	CellChars          int
	ErrorChars         int
}

// DefaultBounds keep a card readable: a long query's first 300 lines, a
// result's first 40 rows (the gold results have at most 24).
var DefaultBounds = Bounds{SQLBytes: 24 << 10, SQLLines: 300, Rows: 40, Columns: 24, CellChars: 120, ErrorChars: 600}

// Entry is what one card is made of.
type Entry struct {
	Label  labelset.Label
	Task   *datasets.Task
	Output *runfolder.Output
}

// Render writes the card of one drawn leaf.
func Render(w io.Writer, e Entry, b Bounds) error {
	l, task := e.Label, e.Task
	tree := task.ResultsRubric
	if l.Tree == labelset.TreeSQL {
		tree = task.SQLRubric
	}
	leaf := tree.Root.Find(l.Leaf)
	if leaf == nil || !leaf.IsLeaf() {
		return fmt.Errorf("card %s: %s has no leaf %q in its %s rubric", l.Card, task.Key, l.Leaf, l.Tree)
	}
	a := codecheck.LoadAnswer(e.Output, task.Question)
	var c bytes.Buffer
	fmt.Fprintf(&c, "# Card %s\n\n", l.Card)
	fmt.Fprintf(&c, "Task `%s`, %s rubric, leaf `%s`.\n\n", task.Key, l.Tree, l.Leaf)
	c.WriteString("## Question\n\n")
	c.WriteString(quote(task.Question))
	c.WriteString("\n## The requirement to decide\n\n")
	c.WriteString(quote(leaf.Requirements))
	c.WriteString("\n### Where it sits (root first; a value band's column or group is named by its parent)\n\n")
	anc := leaf.Ancestors()
	for i, n := range anc {
		fmt.Fprintf(&c, "%s- `%s`%s: %s\n", strings.Repeat("  ", i), n.ID, flags(n), oneLine(n.Requirements))
	}
	fmt.Fprintf(&c, "%s- **`%s`**%s: %s **(this leaf)**\n", strings.Repeat("  ", len(anc)), leaf.ID, flags(leaf), oneLine(leaf.Requirements))
	c.WriteString("\n### Sibling leaves (the same parent)\n\n")
	sibs := 0
	if leaf.Parent != nil {
		for _, s := range leaf.Parent.Children {
			if s == leaf {
				continue
			}
			sibs++
			what := ""
			if !s.IsLeaf() {
				what = fmt.Sprintf(" (a group of %d leaves)", len(s.Leaves()))
			}
			fmt.Fprintf(&c, "- `%s`%s%s: %s\n", s.ID, flags(s), what, oneLine(s.Requirements))
		}
	}
	if sibs == 0 {
		c.WriteString("None.\n")
	}
	c.WriteString("\n## The model's answer\n\n")
	c.WriteString(execution(a, b) + "\n\n")
	c.WriteString("### SQL\n\n")
	switch {
	case a.SQLAbsent:
		c.WriteString("The SQL text was not released.\n")
	case strings.TrimSpace(a.SQL) == "":
		c.WriteString("No SQL was produced.\n")
	default:
		sql, note := clipSQL(a.SQL, b)
		if note != "" {
			c.WriteString(note + "\n\n")
		}
		c.WriteString(fence("sql", sql))
	}
	c.WriteString("\n### Result\n\n")
	switch {
	case a.Table != nil && a.HasResult():
		writeTable(&c, a.Table, b)
	case a.Placeholder:
		c.WriteString("No result: the run holds only the reference's placeholder file (one empty cell), written for a failed or empty query.\n")
	case a.ReadErr != nil:
		fmt.Fprintf(&c, "No result: the result file cannot be read (%s).\n", textclip.Runes(oneLine(a.ReadErr.Error()), b.ErrorChars))
	default:
		c.WriteString("No result.\n")
	}
	c.WriteString("\n## Gold result\n\n")
	gold, err := codecheck.ReadCSV(bytes.NewReader(task.GoldResult), b.Rows)
	if err != nil {
		return fmt.Errorf("card %s: %s: gold result: %w", l.Card, task.Key, err)
	}
	writeTable(&c, gold, b)
	fmt.Fprintf(&c, "\n## Your label\n\nIn this batch's labels.jsonl, on the line of card %s: \"label\" pass, fail or arguable; \"rationale\" one line in your own words naming what decided it (the column, the value, the band, the SQL clause).\n", l.Card)
	_, err = w.Write(c.Bytes())
	return err
}

// flags notes what of a node's settings a reader may weigh.
func flags(n *rubric.Node) string {
	var f []string
	if n.Critical {
		f = append(f, "critical")
	}
	if n.Sequential && !n.IsLeaf() {
		f = append(f, "sequential")
	}
	if len(f) == 0 {
		return ""
	}
	return " (" + strings.Join(f, ", ") + ")"
}

func execution(a *codecheck.Answer, b Bounds) string {
	switch {
	case a.SQLAbsent && a.HasResult():
		return "Only the result was released."
	case !a.Executed && a.Error != "":
		return "The query failed: " + textclip.Runes(oneLine(a.Error), b.ErrorChars)
	case !a.Executed && strings.TrimSpace(a.SQL) == "":
		return "No SQL was produced, so nothing ran."
	case !a.Executed:
		return "The query did not run successfully."
	case !a.HasResult():
		return "The query ran and returned no rows."
	case a.Table != nil:
		return fmt.Sprintf("The query ran and returned %d row(s) x %d column(s).", a.Table.TotalRows, len(a.Table.Columns))
	}
	return fmt.Sprintf("The query ran and returned %d row(s).", a.RowCount)
}

// clipSQL bounds the SQL to b's lines and bytes, saying what it cut.
func clipSQL(sql string, b Bounds) (string, string) {
	sql = strings.TrimSpace(strings.ReplaceAll(sql, "\r\n", "\n"))
	lines := strings.Split(sql, "\n")
	total := len(lines)
	cut := false
	if len(lines) > b.SQLLines {
		lines, cut = lines[:b.SQLLines], true
	}
	out := strings.Join(lines, "\n")
	if len(out) > b.SQLBytes {
		i := b.SQLBytes
		for i > 0 && !utf8.RuneStart(out[i]) {
			i--
		}
		out, cut = out[:i], true
	}
	if !cut {
		return out, ""
	}
	return out, fmt.Sprintf("Cut: the first %d of %d lines (at most %d bytes) are shown.", strings.Count(out, "\n")+1, total, b.SQLBytes)
}

// writeTable writes a result as CSV in a fence, bounded, saying what it
// cut.
func writeTable(c *bytes.Buffer, t *codecheck.Table, b Bounds) {
	rows, cols := min(len(t.Rows), b.Rows), min(len(t.Columns), b.Columns)
	var notes []string
	if rows < t.TotalRows {
		notes = append(notes, fmt.Sprintf("the first %d of %d rows", rows, t.TotalRows))
	}
	if cols < len(t.Columns) {
		notes = append(notes, fmt.Sprintf("the first %d of %d columns", cols, len(t.Columns)))
	}
	var s strings.Builder
	cw := csv.NewWriter(&s)
	rec := make([]string, cols)
	long := false
	clip := func(v string) string {
		if r := textclip.Runes(v, b.CellChars); r != v {
			long = true
			return r
		}
		return v
	}
	for i := range cols {
		rec[i] = clip(t.Columns[i])
	}
	cw.Write(rec)
	for _, r := range t.Rows[:rows] {
		for i := range cols {
			rec[i] = clip(r[i].Raw)
		}
		cw.Write(rec)
	}
	cw.Flush()
	if long {
		notes = append(notes, fmt.Sprintf("cells cut at %d characters (…)", b.CellChars))
	}
	fmt.Fprintf(c, "%d row(s) x %d column(s)", t.TotalRows, len(t.Columns))
	if len(notes) > 0 {
		fmt.Fprintf(c, "; cut: %s are shown", strings.Join(notes, ", "))
	}
	c.WriteString(".\n\n")
	c.WriteString(fence("csv", strings.TrimSuffix(s.String(), "\n")))
}

// fence wraps text in a code fence longer than any run of backticks in it.
func fence(lang, text string) string {
	n, run := 3, 0
	for _, r := range text {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + text + "\n" + f + "\n"
}

// quote writes text as a Markdown block quote.
func quote(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")), "\n") {
		b.WriteString("> " + l + "\n")
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
