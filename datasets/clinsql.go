package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clinsql/clinsql/rubric"
)

// Difficulties in benchmark order.
var Difficulties = []string{"easy", "medium", "hard"}

// Scenarios are the six ClinSQL domains, sorted.
var Scenarios = []string{
	"Diagnostic_Procedures",
	"Disease_Diagnosis_and_Outcomes",
	"Laboratory_Results_Analysis",
	"Medication_Management",
	"Patient_Demographics_and_Admissions",
	"Vital_Signs_Monitoring",
}

// Key identifies a ClinSQL task. Ids repeat across domains and difficulties,
// so all four parts are needed.
type Key struct {
	Split      string `json:"split"`
	Domain     string `json:"domain"`
	Difficulty string `json:"difficulty"` // easy, medium or hard
	ID         string `json:"id"`
}

// DifficultyDir is the folder name of the difficulty: "easy_level_queries".
func (k Key) DifficultyDir() string { return k.Difficulty + "_level_queries" }

// String is the task's path below data/splits, the manifest's task_key:
// "validation/Diagnostic_Procedures/easy_level_queries/001".
func (k Key) String() string {
	return k.Split + "/" + k.Domain + "/" + k.DifficultyDir() + "/" + k.ID
}

// Less orders keys by their string form.
func (k Key) Less(o Key) bool { return k.String() < o.String() }

// ParseKey reads a key from a task path. Only the last four elements count,
// so absolute paths from another machine work
// ("/mnt/c/x/gpt-5-chat/validation/Diagnostic_Procedures/easy_level_queries/001").
func ParseKey(path string) (Key, error) {
	p := strings.Trim(filepath.ToSlash(path), "/")
	parts := strings.Split(p, "/")
	if len(parts) < 4 {
		return Key{}, fmt.Errorf("task path %q: want .../<split>/<Domain>/<difficulty>_level_queries/<id>", path)
	}
	parts = parts[len(parts)-4:]
	diff, ok := difficultyOf(parts[2])
	if !ok {
		return Key{}, fmt.Errorf("task path %q: %q is not easy_level_queries, medium_level_queries or hard_level_queries", path, parts[2])
	}
	if parts[0] == "" || parts[1] == "" || parts[3] == "" {
		return Key{}, fmt.Errorf("task path %q: empty element", path)
	}
	k := Key{Split: parts[0], Domain: parts[1], Difficulty: diff, ID: parts[3]}
	if err := k.Check(); err != nil {
		return Key{}, fmt.Errorf("task path %q: %w", path, err)
	}
	return k, nil
}

func difficultyOf(dir string) (string, bool) {
	for _, d := range Difficulties {
		if dir == d+"_level_queries" {
			return d, true
		}
	}
	return "", false
}

// Task is one ClinSQL task.
type Task struct {
	Key
	// Dir is the folder holding the task's five files; empty for tasks read
	// from a manifest.
	Dir      string
	Question string
	// GoldSQL and GoldResult (CSV) have CRLF line endings normalised to LF.
	GoldSQL       string
	GoldResult    []byte
	SQLRubric     *rubric.Tree
	ResultsRubric *rubric.Tree
	// Warnings are problems that do not stop the task from being scored.
	Warnings []error
}

// Task file names inside a task folder.
const (
	SQLRubricFile     = "sql_rubric_tree.json"
	ResultsRubricFile = "results_rubric_tree.json"
)

// QuestionFile, GoldSQLFile and GoldResultFile name a task's other files.
func QuestionFile(id string) string   { return "query_" + id + ".txt" }
func GoldSQLFile(id string) string    { return "sql_" + id + ".sql" }
func GoldResultFile(id string) string { return "result_" + id + ".csv" }

// LoadClinSQL loads every task below root, which is one of: a folder holding
// data/splits, the data/splits folder, one split folder, or a manifest
// (.jsonl) file. Tasks come back sorted by key.
//
// Every problem found is reported, each naming its file (and, for rubrics,
// the node path); a task with a problem is not returned, and the error lists
// it, so callers never score a smaller set without knowing. The error, when
// not nil, unwraps to the list of problems.
//
// Smaller sets are given the same way: a domain folder
// (<split>/<Domain>), a difficulty folder (<split>/<Domain>/hard_level_queries),
// one task folder, or one line of a manifest (FILE.jsonl:N, N counting from 1).
func LoadClinSQL(root string) ([]*Task, error) {
	if file, n, ok := manifestLineRef(root); ok {
		return loadManifest(file, n)
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return loadManifest(root, 0)
	}
	if kind := PartKind(root); kind != "" {
		return loadPart(root, kind)
	}
	splits, err := splitDirs(root)
	if err != nil {
		return nil, err
	}
	var l loader
	for _, dir := range splits {
		l.split(dir)
	}
	if len(l.tasks) == 0 && len(l.errs) == 0 {
		return nil, fmt.Errorf("%s: no ClinSQL tasks found (want data/splits/<split>/<Domain>/<difficulty>_level_queries/<id>/)", root)
	}
	return l.finish()
}

// GoldByQuestion maps each task's question to its gold SQL (tasks
// without gold left out): what a stand-in model that knows the answers
// answers (llm/mock).
func GoldByQuestion(tasks []*Task) map[string]string {
	gold := map[string]string{}
	for _, t := range tasks {
		if t.GoldSQL != "" {
			gold[t.Question] = t.GoldSQL
		}
	}
	return gold
}

// PartKind says which part of a split dir is: "domain", "difficulty" or
// "task" (one task folder), or "" for a whole split, the splits folder or
// anything else.
func PartKind(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if _, ok := difficultyOf(filepath.Base(abs)); ok {
		return "difficulty"
	}
	if _, ok := difficultyOf(filepath.Base(filepath.Dir(abs))); ok {
		return "task"
	}
	entries, _ := os.ReadDir(abs)
	for _, e := range entries {
		if _, ok := difficultyOf(e.Name()); ok && e.IsDir() {
			return "domain"
		}
	}
	return ""
}

// loadPart loads the tasks of a domain, difficulty or task folder; the
// split and domain are the names of the folders above it.
func loadPart(dir, kind string) ([]*Task, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var l loader
	switch kind {
	case "task":
		key, err := ParseKey(abs)
		if err != nil {
			return nil, err
		}
		l.task(key, abs)
	case "difficulty":
		domain := filepath.Dir(abs)
		l.level(filepath.Base(filepath.Dir(domain)), filepath.Base(domain), abs)
	case "domain":
		l.domain(filepath.Base(filepath.Dir(abs)), abs)
	}
	if len(l.tasks) == 0 && len(l.errs) == 0 {
		return nil, fmt.Errorf("%s: no ClinSQL tasks found in this %s folder", dir, kind)
	}
	return l.finish()
}

// manifestLineRef reads "FILE.jsonl:N", one line of a manifest.
func manifestLineRef(ref string) (string, int, bool) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 || !strings.HasSuffix(ref[:i], ".jsonl") {
		return "", 0, false
	}
	n, err := strconv.Atoi(ref[i+1:])
	if err != nil || n < 1 {
		return "", 0, false
	}
	return ref[:i], n, true
}

// splitDirs finds the split folders that root stands for.
func splitDirs(root string) ([]string, error) {
	if st, err := os.Stat(filepath.Join(root, "data", "splits")); err == nil && st.IsDir() {
		root = filepath.Join(root, "data", "splits")
	}
	if isSplitDir(root) {
		return []string{root}, nil
	}
	var out []string
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if p := filepath.Join(root, e.Name()); e.IsDir() && isSplitDir(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// isSplitDir reports whether dir has a domain folder holding a
// <difficulty>_level_queries folder.
func isSplitDir(dir string) bool {
	domains, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, d := range domains {
		if !d.IsDir() {
			continue
		}
		levels, _ := os.ReadDir(filepath.Join(dir, d.Name()))
		for _, l := range levels {
			if _, ok := difficultyOf(l.Name()); ok && l.IsDir() {
				return true
			}
		}
	}
	return false
}

type loader struct {
	tasks []*Task
	errs  []error
	// unsafe: a manifest line's key could not be a folder name.
	unsafe bool
}

func (l *loader) errorf(format string, a ...any) {
	l.errs = append(l.errs, fmt.Errorf(format, a...))
}

func (l *loader) split(dir string) {
	split := filepath.Base(dir)
	domains, err := os.ReadDir(dir)
	if err != nil {
		l.errs = append(l.errs, err)
		return
	}
	for _, d := range domains {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		l.domain(split, filepath.Join(dir, d.Name()))
	}
}

func (l *loader) domain(split, ddir string) {
	levels, err := os.ReadDir(ddir)
	if err != nil {
		l.errs = append(l.errs, err)
		return
	}
	for _, lv := range levels {
		if !lv.IsDir() || strings.HasPrefix(lv.Name(), ".") {
			continue
		}
		if _, ok := difficultyOf(lv.Name()); !ok {
			l.errorf("%s: unexpected folder: want easy_level_queries, medium_level_queries or hard_level_queries", filepath.Join(ddir, lv.Name()))
			continue
		}
		l.level(split, filepath.Base(ddir), filepath.Join(ddir, lv.Name()))
	}
}

func (l *loader) level(split, domain, ldir string) {
	diff, _ := difficultyOf(filepath.Base(ldir))
	ids, err := os.ReadDir(ldir)
	if err != nil {
		l.errs = append(l.errs, err)
		return
	}
	for _, id := range ids {
		if !id.IsDir() || strings.HasPrefix(id.Name(), ".") {
			continue
		}
		key := Key{Split: split, Domain: domain, Difficulty: diff, ID: id.Name()}
		l.task(key, filepath.Join(ldir, id.Name()))
	}
}

// task reads one task folder, recording every problem.
func (l *loader) task(key Key, dir string) {
	t := &Task{Key: key, Dir: dir}
	before := len(l.errs)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				l.errorf("%s: missing task file", filepath.Join(dir, name))
			} else {
				l.errs = append(l.errs, err)
			}
			return nil
		}
		return b
	}
	if b := read(QuestionFile(key.ID)); b != nil {
		q, err := text(b, filepath.Join(dir, QuestionFile(key.ID)))
		if err != nil {
			l.errs = append(l.errs, err)
		} else if t.Question = strings.TrimSpace(q); t.Question == "" {
			l.errorf("%s: empty question", filepath.Join(dir, QuestionFile(key.ID)))
		}
	}
	if b := read(GoldSQLFile(key.ID)); b != nil {
		s, err := text(b, filepath.Join(dir, GoldSQLFile(key.ID)))
		if err != nil {
			l.errs = append(l.errs, err)
		}
		t.GoldSQL = s
	}
	if b := read(GoldResultFile(key.ID)); b != nil {
		t.GoldResult = normaliseNewlines(b)
	}
	t.SQLRubric = l.rubric(read(SQLRubricFile), filepath.Join(dir, SQLRubricFile))
	t.ResultsRubric = l.rubric(read(ResultsRubricFile), filepath.Join(dir, ResultsRubricFile))
	if len(l.errs) > before {
		return
	}
	t.Warnings = append(append([]error(nil), t.SQLRubric.Warnings...), t.ResultsRubric.Warnings...)
	l.tasks = append(l.tasks, t)
}

func (l *loader) rubric(b []byte, name string) *rubric.Tree {
	if b == nil {
		return nil
	}
	tr, err := rubric.Parse(b, name, rubric.JSON)
	if err != nil {
		var list rubric.ErrorList
		if errors.As(err, &list) {
			l.errs = append(l.errs, list...)
		} else {
			l.errs = append(l.errs, err)
		}
		return nil
	}
	return tr
}

// finish sorts the tasks, rejects duplicate keys and joins the errors.
func (l *loader) finish() ([]*Task, error) {
	sort.Slice(l.tasks, func(i, j int) bool { return l.tasks[i].Key.Less(l.tasks[j].Key) })
	seen := map[Key]bool{}
	out := l.tasks[:0]
	for _, t := range l.tasks {
		if seen[t.Key] {
			l.errorf("%s: duplicate task", t.Key)
			continue
		}
		seen[t.Key] = true
		out = append(out, t)
	}
	return out, errors.Join(l.errs...)
}

// text decodes a task's text file: UTF-8 (an optional BOM dropped), CRLF and
// lone CR normalised to LF.
func text(b []byte, name string) (string, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s: not valid UTF-8", name)
	}
	return string(normaliseNewlines(b)), nil
}

func normaliseNewlines(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}

// manifestLine is one line of a ClinSQL manifest (JSONL).
type manifestLine struct {
	Split          string          `json:"split"`
	Domain         string          `json:"domain"`
	Difficulty     string          `json:"difficulty"` // folder name, easy_level_queries
	ProblemID      string          `json:"problem_id"`
	TaskKey        string          `json:"task_key"`
	Query          string          `json:"query"`
	GoldSQL        string          `json:"gold_sql"`
	GoldResultCSV  string          `json:"gold_result_csv"`
	GoldResultPath string          `json:"gold_result_path"`
	SQLRubric      json.RawMessage `json:"sql_rubric"`
	ResultsRubric  json.RawMessage `json:"results_rubric"`
}

// loadManifest loads a manifest's tasks, or only line only (counting from
// 1) when it is not 0.
func loadManifest(path string, only int) ([]*Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var l loader
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || only > 0 && n != only {
			continue
		}
		l.manifestLine(line, fmt.Sprintf("%s:%d", path, n))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(l.tasks) == 0 && len(l.errs) == 0 {
		if only > 0 {
			return nil, fmt.Errorf("%s: no task on line %d", path, only)
		}
		return nil, fmt.Errorf("%s: no tasks", path)
	}
	if l.unsafe {
		// Not one task: callers go on with the tasks that loaded, and
		// a manifest with a path escape is hostile or broken as a whole.
		_, err := l.finish()
		return nil, fmt.Errorf("%s: refused, task keys that cannot be folder names: %w", path, err)
	}
	return l.finish()
}

func (l *loader) manifestLine(line []byte, where string) {
	var m manifestLine
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&m); err != nil {
		l.errorf("%s: invalid JSON: %v", where, err)
		return
	}
	before := len(l.errs)
	for _, f := range []struct{ name, val string }{
		{"split", m.Split}, {"domain", m.Domain}, {"difficulty", m.Difficulty},
		{"problem_id", m.ProblemID}, {"query", m.Query}, {"gold_sql", m.GoldSQL},
	} {
		if strings.TrimSpace(f.val) == "" {
			l.errorf("%s: missing %q", where, f.name)
		}
	}
	// The key's parts become output folders (generate, exec --gold): one
	// that is not a plain folder name refuses the whole manifest.
	for _, f := range []struct{ name, val string }{{"split", m.Split}, {"domain", m.Domain}, {"problem_id", m.ProblemID}} {
		if f.val == "" {
			continue
		}
		if err := CheckPathComponent(f.val); err != nil {
			l.errorf("%s: %s: %v", where, f.name, err)
			l.unsafe = true
		}
	}
	diff, ok := difficultyOf(m.Difficulty)
	if !ok && m.Difficulty != "" {
		if diff, ok = m.Difficulty, contains(Difficulties, m.Difficulty); !ok {
			l.errorf("%s: difficulty: %q is not easy_level_queries, medium_level_queries or hard_level_queries", where, m.Difficulty)
		}
	}
	key := Key{Split: m.Split, Domain: m.Domain, Difficulty: diff, ID: m.ProblemID}
	if m.TaskKey != "" && m.TaskKey != key.String() {
		l.errorf("%s: task_key %q disagrees with split, domain, difficulty and problem_id (%s)", where, m.TaskKey, key)
	}
	t := &Task{Key: key, Question: strings.TrimSpace(m.Query), GoldSQL: string(normaliseNewlines([]byte(m.GoldSQL))),
		GoldResult: normaliseNewlines([]byte(m.GoldResultCSV))}
	for _, r := range []struct {
		field string
		raw   json.RawMessage
		dst   **rubric.Tree
	}{{"sql_rubric", m.SQLRubric, &t.SQLRubric}, {"results_rubric", m.ResultsRubric, &t.ResultsRubric}} {
		if len(r.raw) == 0 || string(r.raw) == "null" {
			l.errorf("%s: missing %q", where, r.field)
			continue
		}
		*r.dst = l.rubric(r.raw, where+": "+r.field)
	}
	if len(l.errs) > before {
		return
	}
	t.Warnings = append(append([]error(nil), t.SQLRubric.Warnings...), t.ResultsRubric.Warnings...)
	l.tasks = append(l.tasks, t)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SplitDirs finds the split folders that root stands for: root itself, the
// split folders below it, or those below root/data/splits.
func SplitDirs(root string) ([]string, error) { return splitDirs(root) }
