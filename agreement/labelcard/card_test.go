package labelcard

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/runfolder"
)

func fixtureTask(t *testing.T) *datasets.Task {
	t.Helper()
	splits, err := fixtures.WriteClinSQL(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := datasets.LoadClinSQL(splits)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		if tk.Domain == "Diagnostic_Procedures" && tk.ID == "001" {
			return tk
		}
	}
	t.Fatal("no fixture task Diagnostic_Procedures 001")
	return nil
}

// answer writes a model's answer: its SQL, whether it ran, its error and
// result CSV ("" for none).
func answer(t *testing.T, task *datasets.Task, sql string, ran bool, errText, csv string) *runfolder.Output {
	t.Helper()
	o := &runfolder.Output{Key: task.Key, Dir: t.TempDir(), Summary: runfolder.ExecutionSummary{FinalSQL: sql, ExecutionSuccess: ran}}
	if errText != "" {
		o.Summary.FinalError = &errText
	}
	if csv != "" {
		o.ResultCSV = filepath.Join(o.Dir, "result_"+task.ID+".csv")
		if err := os.WriteFile(o.ResultCSV, []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
		o.Summary.RowCount = int64(strings.Count(csv, "\n") - 1)
	}
	return o
}

func label(task *datasets.Task, tree, leaf string) labelset.Label {
	return labelset.Label{Key: task.Key, Model: "model-under-test", Tree: tree, Leaf: leaf, Card: "c0007"}
}

func render(t *testing.T, e Entry, b Bounds) string {
	t.Helper()
	var out bytes.Buffer
	if err := Render(&out, e, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestRenderBlind: a card shows the question, the leaf, its parents and
// siblings, the SQL, the result and the gold result, and neither the
// code checks' verdict nor the model's name.
func TestRenderBlind(t *testing.T) {
	task := fixtureTask(t)
	o := answer(t, task, "SELECT 7 AS p75_procedures;", true, "", "p75_procedures\n7\n")
	l := label(task, labelset.TreeResults, "acceptable-range")
	card := render(t, Entry{Label: l, Task: task, Output: o}, DefaultBounds)
	leaf := task.ResultsRubric.Root.Find("acceptable-range")
	for _, want := range []string{
		"# Card c0007", task.Key.String(), "> " + task.Question, "> " + leaf.Requirements,
		"- **`acceptable-range`**: " + leaf.Requirements + " **(this leaf)**",
		"`" + leaf.Parent.ID + "`", leaf.Parent.Requirements, // the parent names the column
		"- `clinically-plausible`: Clinically Plausible (0-30)", // the sibling
		"```sql\nSELECT 7 AS p75_procedures;\n```",
		"The query ran and returned 1 row(s) x 1 column(s).",
		"```csv\np75_procedures\n7\n```",
		"## Gold result\n\n1 row(s) x 1 column(s).\n\n```csv\np75_procedures\n3\n```",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	d := codecheck.Check(leaf, codecheck.LoadAnswer(o, task.Question))
	if !d.Decided || strings.Contains(card, d.Explanation) {
		t.Errorf("the code check's explanation %q is on the card (or it decided nothing)", d.Explanation)
	}
	for _, never := range []string{"model-under-test", "disagreement", "agreement", "recorded", "Explanation"} {
		if strings.Contains(card, never) {
			t.Errorf("the card says %q", never)
		}
	}
}

func TestRenderFailedAndSQLLeaf(t *testing.T) {
	task := fixtureTask(t)
	o := answer(t, task, "SELECT nope FROM t;", false, "400 Unrecognized name: nope", "result\n\"\"\n")
	card := render(t, Entry{Label: label(task, labelset.TreeSQL, "gender-selection"), Task: task, Output: o}, DefaultBounds)
	for _, want := range []string{
		"sql rubric, leaf `gender-selection`",
		"- **`gender-selection`** (critical): ",
		"- `age-range-selection` (critical): ",
		"The query failed: 400 Unrecognized name: nope",
		"No result: the run holds only the reference's placeholder file",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	o = answer(t, task, "", false, "Failed to generate SQL", "")
	card = render(t, Entry{Label: label(task, labelset.TreeSQL, "gender-selection"), Task: task, Output: o}, DefaultBounds)
	if !strings.Contains(card, "No SQL was produced.") {
		t.Errorf("card:\n%s", card)
	}
	if err := Render(&bytes.Buffer{}, Entry{Label: label(task, labelset.TreeSQL, "patient-cohort-construction"), Task: task, Output: o}, DefaultBounds); err == nil {
		t.Error("a card for an inner node")
	}
}

// TestRenderBounds: a long query, a long result and long cells are cut,
// and the card says so; a fence outlasts the backticks inside it.
func TestRenderBounds(t *testing.T) {
	task := fixtureTask(t)
	var sql strings.Builder
	sql.WriteString("SELECT 1 AS `x````y`\n")
	for i := range 499 {
		fmt.Fprintf(&sql, "-- line %d\n", i+2)
	}
	var csv strings.Builder
	csv.WriteString("label,p75_procedures\n")
	for i := range 100 {
		fmt.Fprintf(&csv, "%s,%d\n", strings.Repeat("é", 200), i)
	}
	o := answer(t, task, sql.String(), true, "", csv.String())
	card := render(t, Entry{Label: label(task, labelset.TreeResults, "csv-file-exists"), Task: task, Output: o}, DefaultBounds)
	for _, want := range []string{
		"Cut: the first 300 of 500 lines",
		"`````sql\nSELECT 1 AS `x````y`",
		"100 row(s) x 2 column(s); cut: the first 40 of 100 rows, cells cut at 120 characters (…) are shown.",
		strings.Repeat("é", 120) + "…,39\n",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q", want)
		}
	}
	if strings.Contains(card, "-- line 301") || strings.Contains(card, ",40\n") || strings.Contains(card, strings.Repeat("é", 121)) {
		t.Error("the card shows what it says it cut")
	}
	small := DefaultBounds
	small.SQLBytes = 25
	card = render(t, Entry{Label: label(task, labelset.TreeResults, "csv-file-exists"), Task: task, Output: o}, small)
	if !strings.Contains(card, "(at most 25 bytes)") {
		t.Errorf("no byte cut said:\n%s", card[:400])
	}
}
