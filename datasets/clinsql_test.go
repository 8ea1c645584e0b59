package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/rubric"
)

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Key
		err  bool
	}{
		{"validation/Diagnostic_Procedures/easy_level_queries/001", Key{"validation", "Diagnostic_Procedures", "easy", "001"}, false},
		{"/mnt/c/x/gpt-5-chat/validation/Vital_Signs_Monitoring/hard_level_queries/073/", Key{"validation", "Vital_Signs_Monitoring", "hard", "073"}, false},
		{"validation/Diagnostic_Procedures/easy/001", Key{}, true},
		{"Diagnostic_Procedures/easy_level_queries/001", Key{}, true},
	} {
		got, err := ParseKey(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseKey(%q) = %v, %v", tc.in, got, err)
		}
		if err == nil && !strings.HasSuffix(strings.TrimSuffix(tc.in, "/"), got.String()) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

func TestLoadFixtures(t *testing.T) {
	root := t.TempDir()
	splits, err := fixtures.WriteClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	// The same tasks whether root, data/splits or (for one split) the split
	// folder is given.
	for _, dir := range []string{root, splits} {
		tasks, err := LoadClinSQL(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != len(fixtures.Tasks()) {
			t.Fatalf("%s: %d tasks", dir, len(tasks))
		}
	}
	val, err := LoadClinSQL(filepath.Join(splits, "validation"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, task := range val {
		keys = append(keys, task.Key.String())
	}
	want := []string{
		"validation/Diagnostic_Procedures/easy_level_queries/001",
		"validation/Laboratory_Results_Analysis/medium_level_queries/001",
		"validation/Vital_Signs_Monitoring/hard_level_queries/002",
	}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys = %v", keys)
	}
	task := val[0]
	if strings.ContainsRune(task.GoldSQL, '\r') || strings.ContainsRune(string(task.GoldResult), '\r') {
		t.Error("CRLF not normalised")
	}
	if !strings.Contains(task.Question, "70‑year‑old") || task.Difficulty != "easy" {
		t.Errorf("task = %+v", task.Key)
	}
	if n := len(task.SQLRubric.Root.Leaves()); n != 5 {
		t.Errorf("SQL leaves = %d", n)
	}
}

// TestLoadCollectsEveryError breaks several tasks in different ways and
// checks that one pass reports all of them, naming files and nodes, while
// the intact task still loads.
func TestLoadCollectsEveryError(t *testing.T) {
	root := t.TempDir()
	splits, err := fixtures.WriteClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	val := filepath.Join(splits, "validation")
	dp := filepath.Join(val, "Diagnostic_Procedures", "easy_level_queries", "001")
	lab := filepath.Join(val, "Laboratory_Results_Analysis", "medium_level_queries", "001")
	vsm := filepath.Join(val, "Vital_Signs_Monitoring", "hard_level_queries", "002")
	must(t, os.Remove(filepath.Join(dp, "sql_001.sql")))
	must(t, os.WriteFile(filepath.Join(dp, "query_001.txt"), []byte("bad \xff byte"), 0o644))
	b, _ := os.ReadFile(filepath.Join(lab, "sql_rubric_tree.json"))
	must(t, os.WriteFile(filepath.Join(lab, "sql_rubric_tree.json"), []byte(strings.Replace(string(b), `"id": "gender-selection"`, `"id M": "gender-selection"`, 1)), 0o644))
	must(t, os.MkdirAll(filepath.Join(val, "Vital_Signs_Monitoring", "easy_queries"), 0o755))

	tasks, err := LoadClinSQL(val)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		filepath.Join(dp, "sql_001.sql") + ": missing task file",
		filepath.Join(dp, "query_001.txt") + ": not valid UTF-8",
		filepath.Join(lab, "sql_rubric_tree.json") + `: sub_tasks[0].sub_tasks[0]: missing "id" (found key "id M"`,
		filepath.Join(val, "Vital_Signs_Monitoring", "easy_queries") + ": unexpected folder",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if len(tasks) != 1 || tasks[0].Dir != vsm {
		t.Errorf("tasks = %v, want only the intact one", tasks)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// writeManifest writes tasks as manifest lines, the way the shared manifest
// is laid out.
func writeManifest(t *testing.T, tasks []*Task, path string) {
	var sb strings.Builder
	for _, task := range tasks {
		sqlTree, _ := task.SQLRubric.Marshal(rubric.JSON)
		resTree, _ := task.ResultsRubric.Marshal(rubric.JSON)
		line, err := json.Marshal(map[string]any{
			"split": task.Split, "domain": task.Domain, "difficulty": task.DifficultyDir(), "problem_id": task.ID,
			"task_key": task.Key.String(), "query": task.Question, "gold_sql": task.GoldSQL,
			"gold_result_csv": string(task.GoldResult), "sql_rubric": json.RawMessage(sqlTree), "results_rubric": json.RawMessage(resTree),
		})
		must(t, err)
		sb.Write(line)
		sb.WriteString("\n")
	}
	must(t, os.WriteFile(path, []byte(sb.String()), 0o644))
}

// sameTasks compares two loads field by field (rubrics by their encoding).
func sameTasks(t *testing.T, a, b []*Task) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d tasks", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Key != y.Key || x.Question != y.Question || x.GoldSQL != y.GoldSQL || string(x.GoldResult) != string(y.GoldResult) {
			t.Fatalf("%s differs:\n%q\n%q", x.Key, x.GoldSQL, y.GoldSQL)
		}
		for _, p := range [][2]*rubric.Tree{{x.SQLRubric, y.SQLRubric}, {x.ResultsRubric, y.ResultsRubric}} {
			ja, _ := p[0].Marshal(rubric.JSON)
			jb, _ := p[1].Marshal(rubric.JSON)
			if string(ja) != string(jb) {
				t.Fatalf("%s: rubric differs", x.Key)
			}
		}
	}
}

func TestManifestMatchesFolders(t *testing.T) {
	root := t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	dirTasks, err := LoadClinSQL(root)
	must(t, err)
	m := filepath.Join(root, "tasks.jsonl")
	writeManifest(t, dirTasks, m)
	manTasks, err := LoadClinSQL(m)
	must(t, err)
	sameTasks(t, dirTasks, manTasks)

	// A damaged line is reported with its line number and field.
	b, _ := os.ReadFile(m)
	lines := strings.SplitAfter(string(b), "\n")
	lines[1] = strings.Replace(lines[1], `"id":"gender-selection"`, `"id-d":"gender-selection"`, 1)
	lines[3] = strings.Replace(lines[3], `"problem_id":"002"`, `"problem_id":""`, 1)
	must(t, os.WriteFile(m, []byte(strings.Join(lines, "")), 0o644))
	tasks, err := LoadClinSQL(m)
	if err == nil || len(tasks) != len(dirTasks)-2 {
		t.Fatalf("got %d tasks, err %v", len(tasks), err)
	}
	for _, want := range []string{m + `:2: sql_rubric: sub_tasks[0].sub_tasks[0]: missing "id" (found key "id-d"`, m + `:4: missing "problem_id"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestValidationSplit loads the released validation split both ways and
// checks the counts of clinsql.md section 10.
func TestValidationSplit(t *testing.T) {
	data := shared.Path(t, "clinsql-data")
	tasks, err := LoadClinSQL(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 190 {
		t.Fatalf("%d tasks, want 190", len(tasks))
	}
	byDiff := map[string]int{}
	byDomain := map[string]int{}
	ids := map[string]map[Key]bool{}
	sqlLeaves, resLeaves := 0, 0
	for _, task := range tasks {
		byDiff[task.Difficulty]++
		byDomain[task.Domain]++
		if ids[task.ID] == nil {
			ids[task.ID] = map[Key]bool{}
		}
		ids[task.ID][task.Key] = true
		sqlLeaves += len(task.SQLRubric.Root.Leaves())
		resLeaves += len(task.ResultsRubric.Root.Leaves())
		if strings.ContainsRune(task.GoldSQL, '\r') {
			t.Errorf("%s: CR in gold SQL", task.Key)
		}
	}
	if byDiff["easy"] != 57 || byDiff["medium"] != 76 || byDiff["hard"] != 57 {
		t.Errorf("per difficulty %v", byDiff)
	}
	if len(byDomain) != 6 || byDomain["Vital_Signs_Monitoring"] != 33 || byDomain["Diagnostic_Procedures"] != 30 {
		t.Errorf("per domain %v", byDomain)
	}
	repeated := 0
	for _, keys := range ids {
		if len(keys) > 1 {
			repeated++
		}
	}
	if repeated != 57 {
		t.Errorf("%d ids in more than one folder, want 57", repeated)
	}
	if sqlLeaves != 2336 || resLeaves != 2103 {
		t.Errorf("leaves: SQL %d results %d, want 2336 and 2103", sqlLeaves, resLeaves)
	}
	manTasks, err := LoadClinSQL(filepath.Join(data, "manifest", "validation.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sameTasks(t, tasks, manTasks)
}

// TestMalformedRubricInTask puts each released malformed rubric into a task
// folder: four must be reported with their file and node, one accepted.
func TestMalformedRubricInTask(t *testing.T) {
	bad := shared.Path(t, "clinsql-data", "malformed")
	root := t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "data", "splits", "test", "Medication_Management", "easy_level_queries", "003", SQLRubricFile)
	for task, wantErr := range map[string]bool{
		"Laboratory_Results_Analysis/easy_level_queries/045": true,
		"Medication_Management/medium_level_queries/004":     true,
		"Vital_Signs_Monitoring/easy_level_queries/012":      true,
		"Vital_Signs_Monitoring/easy_level_queries/040":      true,
		"Vital_Signs_Monitoring/medium_level_queries/030":    false,
	} {
		b, err := os.ReadFile(filepath.Join(bad, task, SQLRubricFile))
		must(t, err)
		must(t, os.WriteFile(target, b, 0o644))
		tasks, err := LoadClinSQL(root)
		if wantErr {
			if err == nil || !strings.Contains(err.Error(), target+": sub_tasks[") || !strings.Contains(err.Error(), `missing "id"`) {
				t.Errorf("%s: error %v", task, err)
			}
			if len(tasks) != len(fixtures.Tasks())-1 {
				t.Errorf("%s: %d tasks loaded", task, len(tasks))
			}
		} else if err != nil {
			t.Errorf("%s: %v", task, err)
		}
	}
}
