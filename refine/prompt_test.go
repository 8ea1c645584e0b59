package refine

import (
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/clinsql/clinsql/internal/golden"
	"github.com/clinsql/clinsql/refine/refinefmt"

	"github.com/clinsql/clinsql/executor/mimic"
)

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

func TestSchemaText(t *testing.T) {
	s := SchemaText(mimic.V31)
	golden(t, "schema.golden", s)
	// Every table and column of the engine's schema is shown.
	for _, tb := range mimic.V31.Tables {
		if !strings.Contains(s, "`"+tb.BigQueryName()+"`") {
			t.Errorf("table %s missing", tb.BigQueryName())
		}
		for _, c := range tb.Columns {
			if !strings.Contains(s, c.Name+" "+string(c.Type)) {
				t.Errorf("column %s.%s missing", tb.Name, c.Name)
			}
		}
	}
	// A schema change changes the text (it is generated, not kept by hand).
	other := &mimic.Schema{Tables: append([]*mimic.Table{}, mimic.V31.Tables...)}
	extra := *other.Tables[0]
	extra.Columns = append(append([]mimic.Column{}, extra.Columns...), mimic.Column{Name: "new_column", Type: mimic.String})
	other.Tables[0] = &extra
	if SchemaText(other) == s || !strings.Contains(SchemaText(other), "new_column STRING") {
		t.Error("schema text does not follow the schema")
	}
}

func TestPrompts(t *testing.T) {
	tasks := fixtureTasks(t)
	var task = tasks[0]
	for _, tk := range tasks {
		if tk.Key.String() == "validation/Diagnostic_Procedures/easy_level_queries/001" {
			task = tk
		}
	}
	last := Shown{SQL: badSQL, Outcome: outcomeError, Error: "Binder Error: Referenced column \"gendr\" not found"}
	hist := []Shown{{Outcome: outcomeNoSQL, Error: "no SQL query found in the reply"}}
	for _, mode := range refinefmt.Modes {
		p := NewPrompter(mode, mimic.V31)
		// The schema is the same in every prompt: goldens hold the rest.
		cut := func(s string) string {
			return strings.Replace(s, SchemaText(mimic.V31), "<schema: see schema.golden>\n", 1)
		}
		gen := p.Generate(task)
		golden(t, "prompts/"+string(mode)+".generate.golden", cut(gen))
		golden(t, "prompts/"+string(mode)+".fix.golden", cut(p.Fix(task, last, nil)))
		golden(t, "prompts/"+string(mode)+".fix-history.golden", cut(p.Fix(task, last, hist)))
		golden(t, "prompts/"+string(mode)+".fix-empty.golden", cut(p.Fix(task, Shown{SQL: emptySQL, Outcome: outcomeEmpty}, nil)))
		if !strings.Contains(gen, `"`+task.Question+`"`) && !strings.Contains(gen, task.Question) {
			t.Errorf("%s: question missing", mode)
		}
	}
	// Schema-hinted prompts carry the rubric's filters and columns, the
	// others do not.
	filters, columns := Hints(task)
	if len(filters) != 2 || !strings.Contains(filters[0], "p.gender = 'F'") || len(columns) != 1 || !strings.Contains(columns[0], "p75_procedures") {
		t.Errorf("hints: %q %q", filters, columns)
	}
	if strings.Contains(NewPrompter(refinefmt.ModeCoT, mimic.V31).Generate(task), "p.gender = 'F'") {
		t.Error("cot prompt leaks rubric hints")
	}
}

func TestClip(t *testing.T) {
	s := strings.Repeat("é", 3000)
	c := clip(s, maxErrorChars)
	if !strings.HasSuffix(c, "more bytes]") || len(c) > maxErrorChars+40 {
		t.Errorf("clip: %d bytes", len(c))
	}
	if c2 := strings.Split(c, "\n")[0]; !strings.HasPrefix(s, c2) {
		t.Error("clip split a character")
	}
	if fenced("SELECT '```'") != "````sql\nSELECT '```'\n````\n" {
		t.Errorf("fenced: %q", fenced("SELECT '```'"))
	}
}
