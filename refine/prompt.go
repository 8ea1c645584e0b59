package refine

import (
	"fmt"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/refine/refinefmt"
)

// PromptVersion changes whenever the wording of the prompts changes. It is
// recorded in every run folder, so that a resumed run never mixes answers to
// two wordings.
const PromptVersion = "1"

// maxErrorChars bounds the engine message quoted in a fix request: an error
// that echoes a whole query or a stack trace is cut, keeping its head.
const maxErrorChars = 2000

// Prompter writes the prompts of one prompt mode. Every prompt is a single
// user message (no system message: some served models reject one).
type Prompter struct {
	Mode     refinefmt.PromptMode
	schema   string
	datasets []string
}

// NewPrompter returns the prompts of mode over schema s (mimic.V31 for
// ClinSQL); the schema reference is generated from s by [SchemaText].
func NewPrompter(mode refinefmt.PromptMode, s *mimic.Schema) *Prompter {
	if mode == "" {
		mode = refinefmt.ModeCoT
	}
	return &Prompter{Mode: mode, schema: SchemaText(s), datasets: DatasetNames(s)}
}

// Outcome kinds of an attempt, as a fix request describes them.
const (
	outcomeError  = "error"
	outcomeEmpty  = "empty"
	outcomeNoSQL  = "no_sql"
	outcomeRowsOK = "ok"
)

// Shown is an earlier attempt as a fix request shows it.
type Shown struct {
	SQL     string // "" when the reply held no query
	Outcome string // error, empty, no_sql, ok
	Error   string // the engine's message or the extraction problem
}

// Generate is the first request for a task.
func (p *Prompter) Generate(t *datasets.Task) string {
	var b strings.Builder
	p.intro(&b)
	b.WriteString("Write one query that answers the question below.\n\n")
	p.rules(&b)
	p.schemaSection(&b)
	p.hints(&b, t)
	fmt.Fprintf(&b, "Question: %q\n\n", t.Question)
	p.answerFormat(&b, false)
	return b.String()
}

// Fix is a refinement request: the question, the last attempt and its
// outcome, and with history the attempts before it, oldest first.
func (p *Prompter) Fix(t *datasets.Task, last Shown, history []Shown) string {
	var b strings.Builder
	p.intro(&b)
	switch last.Outcome {
	case outcomeEmpty:
		b.WriteString("The query below was written to answer the question that follows. It ran without error but " +
			"returned no rows. A question about a patient cohort should not have an empty answer: find the filter, " +
			"join or code list that removes every row and correct it with the smallest change that still answers " +
			"the question.\n\n")
	case outcomeNoSQL:
		b.WriteString("Your previous answer to the question below contained no SQL query in a ```sql code block. " +
			"Write the query.\n\n")
	default:
		b.WriteString("The query below was written to answer the question that follows and failed when it was " +
			"executed. Fix it with the smallest change that removes the error and still answers the question.\n\n")
	}
	p.rules(&b)
	p.schemaSection(&b)
	p.hints(&b, t)
	fmt.Fprintf(&b, "Question: %q\n\n", t.Question)
	if len(history) > 0 {
		b.WriteString("Earlier attempts, oldest first:\n\n")
		for i, h := range history {
			fmt.Fprintf(&b, "Attempt %d:\n", i+1)
			showAttempt(&b, h)
		}
		b.WriteString("Latest attempt:\n")
	}
	showAttempt(&b, last)
	p.answerFormat(&b, true)
	return b.String()
}

func showAttempt(b *strings.Builder, s Shown) {
	if s.SQL != "" {
		b.WriteString(fenced(s.SQL))
	}
	switch s.Outcome {
	case outcomeEmpty:
		b.WriteString("Result: no rows.\n\n")
	case outcomeNoSQL:
		b.WriteString("The answer contained no SQL query.\n\n")
	case outcomeRowsOK:
		b.WriteString("Result: ran and returned rows.\n\n")
	default:
		fmt.Fprintf(b, "Error:\n%s\n\n", clip(s.Error, maxErrorChars))
	}
}

func (p *Prompter) intro(b *strings.Builder) {
	b.WriteString("You are a clinical data analyst who writes BigQuery Standard SQL over MIMIC-IV v3.1, a " +
		"de-identified database of hospital and intensive care unit patients.\n\n")
}

func (p *Prompter) rules(b *strings.Builder) {
	b.WriteString("Rules:\n")
	b.WriteString("- Write exactly one read-only query: a SELECT statement, optionally introduced by WITH. No DDL, " +
		"DML, scripting or second statement.\n")
	fmt.Fprintf(b, "- Name every table in full, in backticks, e.g. `%s.patients`. The datasets are: %s.\n",
		firstOr(p.datasets, mimic.Project+"."+mimic.DatasetHosp), backticked(p.datasets))
	b.WriteString("- Use only the tables and columns of the schema below.\n")
	b.WriteString("- Return the values the question asks for, with descriptive column names.\n\n")
}

func (p *Prompter) schemaSection(b *strings.Builder) {
	b.WriteString("Schema (BigQuery column types):\n")
	b.WriteString(p.schema)
	b.WriteString("\n")
}

func (p *Prompter) hints(b *strings.Builder, t *datasets.Task) {
	if p.Mode != refinefmt.ModeSchemaHinted {
		return
	}
	filters, columns := Hints(t)
	if len(filters) > 0 {
		b.WriteString("Criteria a clinical reviewer validated for this question (the query should implement them):\n")
		for _, f := range filters {
			fmt.Fprintf(b, "- %s\n", oneLine(f))
		}
		b.WriteString("\n")
	}
	if len(columns) > 0 {
		b.WriteString("Expected output columns (the names are examples):\n")
		for _, c := range columns {
			fmt.Fprintf(b, "- %s\n", oneLine(c))
		}
		b.WriteString("\n")
	}
}

func (p *Prompter) answerFormat(b *strings.Builder, fix bool) {
	if p.Mode == refinefmt.ModeDirect {
		if fix {
			b.WriteString("Reply with the whole corrected query only, in a single ```sql code block, without explanation.\n")
		} else {
			b.WriteString("Reply with the query only, in a single ```sql code block, without explanation.\n")
		}
		return
	}
	b.WriteString("Answer in two parts.\n")
	if fix {
		b.WriteString("Reasoning: explain what caused the problem and how you fix it.\n")
		b.WriteString("SQL: the whole corrected query in a single ```sql code block, with no code block after it.\n")
		return
	}
	b.WriteString("Reasoning: think step by step about the tables, joins, filters, grouping and edge cases " +
		"(missing values, duplicates, age and time windows) the question needs.\n")
	b.WriteString("SQL: the final query in a single ```sql code block, with no code block after it.\n")
}

// filterCategory reports whether a top-level SQL rubric category holds the
// task's cohort and concept criteria (patient-cohort-construction,
// medical-concept-implementation and the ad-hoc *-identification,
// *-filtering, *-criteria categories) rather than join or analytics checks.
func filterCategory(id string) bool {
	for _, k := range []string{"cohort", "concept", "identification", "filtering", "criteria"} {
		if strings.Contains(id, k) {
			return true
		}
	}
	return false
}

// Hints returns what schema-hinted prompts add for a task: the requirement
// texts of the SQL rubric's cohort and concept leaves (the clinically
// validated filters) and of the results rubric's column checks under its
// output-format category (the expected output columns), in file order.
func Hints(t *datasets.Task) (filters, columns []string) {
	if t.SQLRubric != nil && t.SQLRubric.Root != nil {
		for _, cat := range t.SQLRubric.Root.Children {
			if filterCategory(cat.ID) {
				for _, l := range cat.Leaves() {
					filters = append(filters, l.Requirements)
				}
			}
		}
	}
	if t.ResultsRubric != nil && t.ResultsRubric.Root != nil {
		for _, cat := range t.ResultsRubric.Root.Children {
			if !strings.Contains(cat.ID, "format") {
				continue
			}
			for _, l := range cat.Leaves() {
				if strings.Contains(l.ID, "column") {
					columns = append(columns, l.Requirements)
				}
			}
		}
	}
	return filters, columns
}

// fenced writes s in a ```sql block, with a longer fence if s holds one.
func fenced(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "sql\n" + strings.TrimRight(s, "\n") + "\n" + f + "\n"
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[... %d more bytes]", len(s)-cut)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}

func backticked(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}
