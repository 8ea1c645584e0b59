package ehrsql_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/internal/shared"
)

func TestLoadSplitMini(t *testing.T) {
	s, err := ehrsql.LoadSplit(filepath.Join("testdata", "mini"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mini" || s.Data.Version != "mini_v1" {
		t.Errorf("name %q version %q", s.Name, s.Data.Version)
	}
	if got := s.Data.IDs(); !reflect.DeepEqual(got, []string{"q01", "q02", "q03"}) {
		t.Errorf("ids %v", got)
	}
	if !reflect.DeepEqual(s.Labels.IDs, []string{"q01", "q02", "q03"}) || s.Labels.Values["q02"] != ehrsql.Null {
		t.Errorf("labels %+v", s.Labels)
	}
	if v, _ := s.Answers.Get("q03"); v != "[['icu'], ['medicine']]" {
		t.Errorf("answer q03 = %q", v)
	}
	if len(s.Annotated) != 3 || s.Annotated[1].ValDict != nil || s.Annotated[2].ValDict == nil ||
		string(s.Annotated[2].ValDict.ValPlaceholder["n"]) != "2" {
		t.Errorf("annotated %+v", s.Annotated)
	}
	gold := ehrsql.GoldByQuestion(nil, s)
	if len(gold) != 3 || gold[s.Data.Questions[1].Question] != ehrsql.Null || gold[s.Data.Questions[0].Question] != "SELECT COUNT(*) FROM patients" {
		t.Errorf("gold by question %v", gold)
	}
}

func TestLoadTables(t *testing.T) {
	schemas, err := ehrsql.LoadTables(filepath.Join("testdata", "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := schemas[0]
	if s.DBID != "mini" || len(s.ColumnNamesOriginal) != 4 || s.ColumnNamesOriginal[3] != (ehrsql.ColumnRef{Table: 1, Name: "ward"}) {
		t.Errorf("schema %+v", s)
	}
	if !reflect.DeepEqual(s.PrimaryKeys, []ehrsql.Key{{1}, {2, 3}}) || s.ForeignKeys[0] != [2]int{2, 1} {
		t.Errorf("keys %v %v", s.PrimaryKeys, s.ForeignKeys)
	}
}

// write puts files into a fresh copy of testdata/mini and returns its path.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "split")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"data.json", "label.json", "answer.json", "annotated.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "mini", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if content == "<absent>" {
			os.Remove(p)
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadSplitErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{"missing label id", map[string]string{"label.json": `{"q01": "SELECT 1", "q03": "SELECT 2"}`},
			[]string{"label.json", "1 missing ids", `"q02"`, "data.json"}},
		{"extra label id", map[string]string{"label.json": `{"q01": "SELECT 1", "q02": "null", "q03": "x", "q99": "x"}`},
			[]string{"label.json", "1 extra ids", `"q99"`}},
		{"label not a string", map[string]string{"label.json": `{"q01": 3, "q02": "null", "q03": "x"}`},
			[]string{"label.json", `"q01"`, "a number", "want a string"}},
		{"label JSON null", map[string]string{"label.json": `{"q01": null, "q02": "null", "q03": "x"}`},
			[]string{"label.json", `"q01"`, "JSON null"}},
		{"duplicate label id", map[string]string{"label.json": `{"q01": "a", "q01": "b", "q02": "null", "q03": "x"}`},
			[]string{"label.json", `"q01"`, "duplicate"}},
		{"label not an object", map[string]string{"label.json": `["SELECT 1"]`},
			[]string{"label.json", "top level", "a list"}},
		{"truncated label", map[string]string{"label.json": `{"q01": "SELECT 1", `},
			[]string{"label.json", "invalid JSON"}},
		{"trailing data", map[string]string{"label.json": `{"q01": "a", "q02": "null", "q03": "x"} {}`},
			[]string{"label.json", "trailing data"}},
		{"missing data file", map[string]string{"data.json": "<absent>"},
			[]string{"data.json", "no such file"}},
		{"data without id", map[string]string{"data.json": `{"version": "v", "data": [{"question": "x"}]}`},
			[]string{"data.json", "data[0].id", "missing"}},
		{"data question wrong type", map[string]string{"data.json": `{"version": "v", "data": [{"id": "q01", "question": 5}]}`},
			[]string{"data.json", "data[0]", "question", "number"}},
		{"duplicate data id", map[string]string{"data.json": `{"version": "v", "data": [{"id": "q01", "question": "a"}, {"id": "q01", "question": "b"}]}`},
			[]string{"data.json", "data[1].id", "duplicate", `"q01"`}},
		{"data list missing", map[string]string{"data.json": `{"version": "v"}`},
			[]string{"data.json", "data: missing"}},
		{"answer disagrees on answerability", map[string]string{"answer.json": `{"q01": "null", "q02": "null", "q03": "[]"}`},
			[]string{"answer.json", `"q01"`, "answerable"}},
		{"annotated query differs", map[string]string{"annotated.json": `[{"id": "q01", "question": "", "query": "SELECT 9", "template": "", "val_dict": {}}]`},
			[]string{"annotated.json", "[0].query", "label.json"}},
		{"annotated val_dict bad", map[string]string{"annotated.json": `[{"id": "q01", "question": "", "query": "SELECT COUNT(*) FROM patients", "template": "", "val_dict": 3}]`},
			[]string{"annotated.json", "[0].val_dict", "a number"}},
		{"annotated missing field", map[string]string{"annotated.json": `[{"id": "q01", "question": ""}]`},
			[]string{"annotated.json", "[0].query", "missing"}},
		{"annotated missing id", map[string]string{"annotated.json": `[{"id": "q01", "question": "", "query": "SELECT COUNT(*) FROM patients", "template": "", "val_dict": {}}]`},
			[]string{"annotated.json", "2 missing ids", `"q02"`, `"q03"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ehrsql.LoadSplit(write(t, tc.files))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadSplitWithoutOptionalFiles(t *testing.T) {
	s, err := ehrsql.LoadSplit(write(t, map[string]string{"answer.json": "<absent>", "annotated.json": "<absent>"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Answers != nil || s.Annotated != nil {
		t.Errorf("optional files: %v %v", s.Answers, s.Annotated)
	}
}

func TestLoadPredictions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pred.json")
	os.WriteFile(p, []byte(`{"q02": null, "q01": "SELECT 1", "q03": ""}`), 0o644)
	if _, err := ehrsql.LoadPredictions(p, ehrsql.PredictionOptions{}); err == nil || !strings.Contains(err.Error(), `"q02"`) {
		t.Errorf("strict JSON null: %v", err)
	}
	m, err := ehrsql.LoadPredictions(p, ehrsql.PredictionOptions{JSONNullAs: "null"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.IDs, []string{"q02", "q01", "q03"}) || m.Values["q02"] != "null" || m.Values["q03"] != "" {
		t.Errorf("predictions %+v", m)
	}
	err = ehrsql.CheckIDs("label.json", []string{"q01", "q02", "q03", "q04"}, p, append(m.IDs, "q05"))
	var ie *ehrsql.IDError
	if !errors.As(err, &ie) || !reflect.DeepEqual(ie.Missing, []string{"q04"}) || !reflect.DeepEqual(ie.Extra, []string{"q05"}) {
		t.Fatalf("CheckIDs: %v", err)
	}
	if !strings.Contains(err.Error(), "pred.json") || !strings.Contains(err.Error(), `"q04"`) || !strings.Contains(err.Error(), `"q05"`) {
		t.Errorf("CheckIDs message: %v", err)
	}
}

func TestCheckIDsListsAtMostTwenty(t *testing.T) {
	var ref []string
	for i := range 25 {
		ref = append(ref, string(rune('a'+i)))
	}
	err := ehrsql.CheckIDs("data.json", ref, "p.json", nil)
	if err == nil || !strings.Contains(err.Error(), "25 missing ids") || !strings.Contains(err.Error(), "(5 more)") {
		t.Errorf("%v", err)
	}
}

func TestLoadTablesErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{`{}`, "top level"},
		{`[{"db_id": "x"}]`, "[0].table_names: missing"},
		{`[{"db_id": "x", "table_names": [], "table_names_original": [], "column_names": [[0]], "column_names_original": [], "column_types": [], "primary_keys": [], "foreign_keys": []}]`, "[0].column_names[0]"},
		{`[{"db_id": "x", "table_names": ["t"], "table_names_original": ["t"], "column_names": [[0, "a"]], "column_names_original": [[0, "a"]], "column_types": ["text"], "primary_keys": [3], "foreign_keys": []}]`, "[0].primary_keys[0]: column index 3 out of range"},
		{`[{"db_id": "x", "table_names": ["t"], "table_names_original": ["t"], "column_names": [[5, "a"]], "column_names_original": [[5, "a"]], "column_types": ["text"], "primary_keys": [], "foreign_keys": []}]`, "column_names_original[0]: table index 5"},
	} {
		p := filepath.Join(dir, "tables.json")
		os.WriteFile(p, []byte(tc.content), 0o644)
		_, err := ehrsql.LoadTables(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "tables.json") {
			t.Errorf("%s: %v, want %q", tc.content, err, tc.want)
		}
	}
}

// TestSharedSplits loads the real v1.1.1 files.
func TestSharedSplits(t *testing.T) {
	root := shared.Path(t, "ehrsql-2024")
	for _, tc := range []struct {
		split        string
		n, null      int
		hasAnnotated bool
	}{
		{"train", 5124, 450, false},
		{"valid", 1163, 232, true},
	} {
		s, err := ehrsql.LoadSplit(filepath.Join(root, tc.split))
		if err != nil {
			t.Fatal(err)
		}
		null := 0
		for _, id := range s.Labels.IDs {
			if s.Labels.Values[id] == ehrsql.Null {
				null++
			}
		}
		if len(s.Data.Questions) != tc.n || null != tc.null || (s.Annotated != nil) != tc.hasAnnotated || s.Answers == nil {
			t.Errorf("%s: %d items, %d null, annotated %v", tc.split, len(s.Data.Questions), null, s.Annotated != nil)
		}
	}
	schemas, err := ehrsql.LoadTables(filepath.Join(root, "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(schemas) != 1 || schemas[0].DBID != "mimic_iv" || len(schemas[0].TableNames) != 17 {
		t.Errorf("tables.json: %d schemas", len(schemas))
	}
}

// TestLoadRefusesNonRegularFiles: a prediction "file" that is a directory
// (or a FIFO, a device) is refused by name rather than read.
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	_, err := ehrsql.LoadPredictions(dir, ehrsql.PredictionOptions{})
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("LoadPredictions(directory) = %v, want a refusal naming it", err)
	}
	// A FIFO with no writer is refused at once, not waited on.
	fifo := filepath.Join(dir, "pred.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := ehrsql.LoadPredictions(fifo, ehrsql.PredictionOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("LoadPredictions(FIFO) = %v, want a refusal", err)
	}
}

// TestSplitSHA256 changes with any byte of the split's files.
func TestSplitSHA256(t *testing.T) {
	s, err := ehrsql.LoadSplit(filepath.Join("testdata", "mini"))
	if err != nil {
		t.Fatal(err)
	}
	before := s.SHA256()
	s.Labels.SHA256 = "0" + s.Labels.SHA256[1:]
	if len(before) != 64 || s.SHA256() == before {
		t.Errorf("split fingerprint %q does not follow its label file", before)
	}
}
