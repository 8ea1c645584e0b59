package rubric

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/shared"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // substrings of the error, in order
	}{
		{"not json", "{\n\"id\": x}", []string{`r.json: invalid JSON: line 2, column 7: invalid character 'x'`}},
		{"truncated", `{"id": `, []string{`r.json: invalid JSON: unexpected EOF`}},
		{"trailing data", `{"id":"a","requirements":"x"} {}`, []string{"data after the top-level value"}},
		{"root array", `[]`, []string{"r.json: a rubric node must be an object, found an array"}},
		{"missing id", `{"id":"r","requirements":"R","sub_tasks":[{"requirements":"x"},{"id":"b","requirements":"y","sub_tasks":[{"requirements":"z"}]}]}`,
			[]string{`r.json: sub_tasks[0]: missing "id"`, `r.json: sub_tasks[1].sub_tasks[0]: missing "id"`}},
		{"mangled id", `{"id":"r","requirements":"R","sub_tasks":[{"id M":"a","requirements":"x"}]}`,
			[]string{`r.json: sub_tasks[0]: missing "id" (found key "id M": a mangled "id"?)`}},
		{"duplicate id", `{"id":"r","requirements":"R","sub_tasks":[{"id":"a","requirements":"x"},{"id":"a","requirements":"y"}]}`,
			[]string{`sub_tasks[1].id: duplicate id "a" (first at sub_tasks[0])`}},
		{"fractional weight", `{"id":"r","requirements":"R","weight":1.5}`, []string{"r.json: weight: must be an integer, found 1.5"}},
		{"string weight", `{"id":"r","requirements":"R","weight":"2"}`, []string{"weight: must be an integer, found a string"}},
		{"negative weight", `{"id":"r","requirements":"R","weight":-1}`, []string{"weight: must not be negative"}},
		{"bad flag", `{"id":"r","requirements":"R","critical":"yes"}`, []string{"critical: must be true or false, found a string"}},
		{"bad sub_tasks", `{"id":"r","requirements":"R","sub_tasks":{}}`, []string{"sub_tasks: must be an array, found an object"}},
		{"missing requirements", `{"id":"r"}`, []string{`r.json: missing "requirements"`}},
		{"numeric id", `{"id":3,"requirements":"R"}`, []string{"id: must be a string, found a number"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), "r.json", JSON)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			msg := err.Error()
			for _, w := range tc.want {
				i := strings.Index(msg, w)
				if i < 0 {
					t.Fatalf("error %q lacks %q", msg, w)
				}
				msg = msg[i+len(w):]
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) != len(tc.want) {
				t.Errorf("want an ErrorList of %d, got %#v", len(tc.want), err)
			}
		})
	}
}

func TestParseDefaultsAndWarnings(t *testing.T) {
	in := "{\r\n \"id\": \"root\", \"requirements\": \"Root\", \"sequential\": null,\n" +
		`"sub_tasks": [{"id": "a", "requirements": "A", "weight": 3, "critical": true, "scoring": "1/0", "sequential_order": 1},` +
		`{"id": "b", "requirements": "B", "weight": 2.0, "scoring": {"type": "range", "min": 1, "max": 5}}]}`
	tr, err := Parse([]byte(in), "r.json", JSON)
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Root
	if r.Weight != 1 || r.Sequential || len(r.Children) != 2 {
		t.Fatalf("root = %+v", r)
	}
	a, b := r.Children[0], r.Children[1]
	if a.Weight != 3 || !a.Critical || a.Scoring != "1/0" || a.Path != "sub_tasks[0]" || a.Parent != r {
		t.Errorf("a = %+v", a)
	}
	if b.Weight != 2 || b.Critical {
		t.Errorf("b = %+v", b)
	}
	if len(tr.Warnings) != 1 || tr.Warnings[0].Error() != `r.json: sub_tasks[0]: unknown key "sequential_order" ignored` {
		t.Errorf("warnings = %v", tr.Warnings)
	}
}

func TestYAMLSameSchema(t *testing.T) {
	j := `{"id":"r","requirements":"R","sub_tasks":[{"id":"a","requirements":"A","weight":2,"sequential":true,"sub_tasks":[{"id":"x","requirements":"X","critical":true}]}]}`
	y := "id: r\nrequirements: R\nsub_tasks:\n  - id: a\n    requirements: A\n    weight: 2\n    sequential: true\n    sub_tasks:\n      - {id: x, requirements: X, critical: true}\n"
	tj, err := Parse([]byte(j), "r.json", JSON)
	if err != nil {
		t.Fatal(err)
	}
	ty, err := Parse([]byte(y), "r.yaml", YAML)
	if err != nil {
		t.Fatal(err)
	}
	bj, _ := tj.Marshal(JSON)
	by, _ := ty.Marshal(JSON)
	if string(bj) != string(by) {
		t.Errorf("JSON and YAML differ:\n%s\n%s", bj, by)
	}
	// Round trip through YAML.
	out, err := tj.Marshal(YAML)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out, "back.yaml", YAML)
	if err != nil {
		t.Fatalf("re-parse: %v\n%s", err, out)
	}
	bb, _ := back.Marshal(JSON)
	if string(bb) != string(bj) {
		t.Errorf("YAML round trip changed the tree:\n%s\n%s", bj, bb)
	}
	if _, err := Parse([]byte("id: [\n"), "bad.yaml", YAML); err == nil || !strings.HasPrefix(err.Error(), "bad.yaml: invalid YAML") {
		t.Errorf("bad YAML: %v", err)
	}
}

// TestMalformedReleaseFiles checks the five damaged upstream files: four with
// a mangled "id" key must fail with a located error, the one with mixed line
// endings must load.
func TestMalformedReleaseFiles(t *testing.T) {
	dir := shared.Path(t, "clinsql-data", "malformed")
	for _, tc := range []struct{ task, want string }{
		{"Laboratory_Results_Analysis/easy_level_queries/045", `missing "id" (found key "id M"`},
		{"Medication_Management/medium_level_queries/004", `missing "id" (found key "id-d"`},
		{"Vital_Signs_Monitoring/easy_level_queries/012", `missing "id" (found key "id "`},
		{"Vital_Signs_Monitoring/easy_level_queries/040", `missing "id" (found key "id A"`},
		{"Vital_Signs_Monitoring/medium_level_queries/030", ""},
	} {
		path := filepath.Join(dir, tc.task, "sql_rubric_tree.json")
		tr, err := ReadFile(path)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.task, err)
			} else if len(tr.Root.Leaves()) == 0 {
				t.Errorf("%s: no leaves", tc.task)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: loaded, want an error", tc.task)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path+": sub_tasks[") {
			t.Errorf("%s: error %q, want the file, a node path and %q", tc.task, err, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/aggregate/*.json")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b, false)
	}
	f.Add([]byte(`{"id":"r","requirements":"R","sub_tasks":[{"id M":"a"}]}`), false)
	f.Add([]byte("id: r\nrequirements: x\nsub_tasks: [{id: a, requirements: b, weight: 0}]"), true)
	f.Fuzz(func(t *testing.T, data []byte, yaml bool) {
		format := JSON
		if yaml {
			format = YAML
		}
		tr, err := Parse(data, "fuzz", format)
		if err != nil {
			return
		}
		// A tree that parses can be scored, and scores stay in range.
		d := Decisions{}
		for i, l := range tr.Root.Leaves() {
			d[l.ID] = Verdict{Status: Status(i%5) % 5, Score: float64(i % 2)}
		}
		for _, m := range []Mode{Reference, Strict} {
			s := Evaluate(tr.Root, d, m)
			if s.Value < 0 || s.Value > 1 || s.Lo > s.Value || s.Hi < s.Value {
				t.Fatalf("%s: score %v [%v, %v] out of range", m, s.Value, s.Lo, s.Hi)
			}
		}
	})
}
