package ehrsql

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clinsql/clinsql/runfolder"
)

// Null is the label, answer and prediction text of an unanswerable item or
// an abstention.
const Null = "null"

// Question is one entry of data.json.
type Question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
}

// Data is data.json.
type Data struct {
	Version   string     `json:"version"`
	Questions []Question `json:"data"`
	// SHA256 is the hex SHA-256 of the bytes parsed.
	SHA256 string `json:"-"`
}

// IDs returns the question ids in file order.
func (d *Data) IDs() []string {
	ids := make([]string, len(d.Questions))
	for i, q := range d.Questions {
		ids[i] = q.ID
	}
	return ids
}

// Map is an id-keyed JSON object of strings (label.json, answer.json, a
// prediction file) with its ids in file order.
type Map struct {
	Path   string // file it was read from, for messages
	IDs    []string
	Values map[string]string
	// SHA256 is the hex SHA-256 of the bytes parsed: what a score made
	// from the file is traced to.
	SHA256 string
}

// Get returns the value for id.
func (m *Map) Get(id string) (string, bool) {
	v, ok := m.Values[id]
	return v, ok
}

// Annotated is one entry of annotated.json. For an unanswerable item Query
// is "null", Template is "-" and ValDict is nil (the file has "-").
type Annotated struct {
	ID       string
	Question string
	Query    string
	Template string
	ValDict  *ValDict
}

// ValDict holds the placeholder values an item was generated from. The
// values are kept as raw JSON: they are strings, numbers or objects.
type ValDict struct {
	ValPlaceholder  map[string]json.RawMessage `json:"val_placeholder"`
	OpPlaceholder   map[string]json.RawMessage `json:"op_placeholder"`
	TimePlaceholder map[string]json.RawMessage `json:"time_placeholder"`
}

// Schema is one database of tables.json (Spider layout).
type Schema struct {
	DBID                string      `json:"db_id"`
	TableNames          []string    `json:"table_names"`
	TableNamesOriginal  []string    `json:"table_names_original"`
	ColumnNames         []ColumnRef `json:"column_names"`
	ColumnNamesOriginal []ColumnRef `json:"column_names_original"`
	ColumnTypes         []string    `json:"column_types"`
	// PrimaryKeys lists column indexes; a composite key is a list.
	PrimaryKeys []Key    `json:"primary_keys"`
	ForeignKeys [][2]int `json:"foreign_keys"`
}

// ColumnRef is a [table index, column name] pair; table -1 is "*".
type ColumnRef struct {
	Table int
	Name  string
}

// UnmarshalJSON reads [table, "name"].
func (c *ColumnRef) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("want [table index, column name], got %s", clip(b))
	}
	if err := json.Unmarshal(pair[0], &c.Table); err != nil {
		return fmt.Errorf("table index: want an integer, got %s", clip(pair[0]))
	}
	if err := json.Unmarshal(pair[1], &c.Name); err != nil {
		return fmt.Errorf("column name: want a string, got %s", clip(pair[1]))
	}
	return nil
}

// Key is a primary key: one column index, or several for a composite key.
type Key []int

// UnmarshalJSON reads an index or a list of indexes.
func (k *Key) UnmarshalJSON(b []byte) error {
	var one int
	if err := json.Unmarshal(b, &one); err == nil {
		*k = Key{one}
		return nil
	}
	var many []int
	if err := json.Unmarshal(b, &many); err != nil || len(many) == 0 {
		return fmt.Errorf("want a column index or a list of them, got %s", clip(b))
	}
	*k = many
	return nil
}

// Split is one split folder: data.json and label.json, plus answer.json and
// annotated.json when present (train has no annotated.json).
type Split struct {
	Name      string
	Dir       string
	Data      *Data
	Labels    *Map
	Answers   *Map        // nil when answer.json is absent
	Annotated []Annotated // nil when annotated.json is absent
}

// GoldByQuestion maps each question of the splits (nil ones skipped) to
// its label, "null" for a question the database cannot answer: what a
// stand-in model that knows the answers answers (llm/mock), abstaining
// where it should.
func GoldByQuestion(splits ...*Split) map[string]string {
	gold := map[string]string{}
	for _, s := range splits {
		if s == nil {
			continue
		}
		for _, q := range s.Data.Questions {
			if sql := s.Labels.Values[q.ID]; sql != "" {
				gold[q.Question] = sql
			}
		}
	}
	return gold
}

// LoadSplit reads the split folder dir and checks that every file has
// exactly data.json's ids, and that annotated.json agrees with label.json.
func LoadSplit(dir string) (*Split, error) {
	s := &Split{Name: filepath.Base(dir), Dir: dir}
	var err error
	if s.Data, err = LoadData(filepath.Join(dir, "data.json")); err != nil {
		return nil, err
	}
	ids := s.Data.IDs()
	dataFile := filepath.Join(dir, "data.json")
	if s.Labels, err = LoadLabels(filepath.Join(dir, "label.json")); err != nil {
		return nil, err
	}
	if err := CheckIDs(dataFile, ids, s.Labels.Path, s.Labels.IDs); err != nil {
		return nil, err
	}
	answers := filepath.Join(dir, "answer.json")
	if exists(answers) {
		if s.Answers, err = LoadAnswers(answers); err != nil {
			return nil, err
		}
		if err := CheckIDs(dataFile, ids, answers, s.Answers.IDs); err != nil {
			return nil, err
		}
		for _, id := range ids {
			if (s.Labels.Values[id] == Null) != (s.Answers.Values[id] == Null) {
				return nil, fmt.Errorf("%s: %q: answer and label.json disagree on whether the item is answerable", answers, id)
			}
		}
	}
	annotated := filepath.Join(dir, "annotated.json")
	if exists(annotated) {
		if s.Annotated, err = LoadAnnotated(annotated); err != nil {
			return nil, err
		}
		annIDs := make([]string, len(s.Annotated))
		for i, a := range s.Annotated {
			annIDs[i] = a.ID
			if want := s.Labels.Values[a.ID]; want != "" && a.Query != want {
				return nil, fmt.Errorf("%s: [%d].query: differs from label.json for %q", annotated, i, a.ID)
			}
		}
		if err := CheckIDs(dataFile, ids, annotated, annIDs); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// LoadData reads data.json.
func LoadData(path string) (*Data, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Version *string           `json:"version"`
		Data    []json.RawMessage `json:"data"`
	}
	if err := strictUnmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if raw.Data == nil {
		return nil, fmt.Errorf("%s: data: missing, want a list of {id, question}", path)
	}
	d := &Data{Questions: make([]Question, len(raw.Data)), SHA256: sha256Hex(b)}
	if raw.Version != nil {
		d.Version = *raw.Version
	}
	seen := make(map[string]int, len(raw.Data))
	for i, r := range raw.Data {
		var q struct {
			ID       *string `json:"id"`
			Question *string `json:"question"`
		}
		if err := strictUnmarshal(r, &q); err != nil {
			return nil, fmt.Errorf("%s: data[%d]: %w", path, i, err)
		}
		if q.ID == nil || *q.ID == "" {
			return nil, fmt.Errorf("%s: data[%d].id: missing or empty", path, i)
		}
		if q.Question == nil {
			return nil, fmt.Errorf("%s: data[%d].question: missing", path, i)
		}
		if j, dup := seen[*q.ID]; dup {
			return nil, fmt.Errorf("%s: data[%d].id: duplicate id %q (also data[%d])", path, i, *q.ID, j)
		}
		seen[*q.ID] = i
		d.Questions[i] = Question{ID: *q.ID, Question: *q.Question}
	}
	return d, nil
}

// LoadLabels reads label.json: {id: SQL or "null"}.
func LoadLabels(path string) (*Map, error) {
	return loadMap(path, "")
}

// LoadAnswers reads answer.json: {id: Python-literal string or "null"}.
func LoadAnswers(path string) (*Map, error) {
	return loadMap(path, "")
}

// PredictionOptions configure LoadPredictions.
type PredictionOptions struct {
	// JSONNullAs, when not empty, is the text a JSON null stands for
	// (usually "null", an abstention). When empty, a JSON null is an error,
	// as it crashes the official scorer.
	JSONNullAs string
}

// LoadPredictions reads a prediction file: one JSON object {id: SQL}.
func LoadPredictions(path string, opt PredictionOptions) (*Map, error) {
	return loadMap(path, opt.JSONNullAs)
}

// loadMap reads an id-keyed object of strings in file order.
func loadMap(path, nullAs string) (*Map, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, syntaxErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: top level: want a JSON object {id: string}, got %v", path, describe(tok))
	}
	m := &Map{Path: path, Values: map[string]string{}, SHA256: sha256Hex(b)}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, syntaxErr(err))
		}
		id := tok.(string) // object keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, id, syntaxErr(err))
		}
		if _, dup := m.Values[id]; dup {
			return nil, fmt.Errorf("%s: %q: duplicate id", path, id)
		}
		if id == "" {
			return nil, fmt.Errorf("%s: empty id", path)
		}
		var v string
		switch {
		case string(raw) == "null" && nullAs != "":
			v = nullAs
		case len(raw) > 0 && raw[0] == '"':
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, fmt.Errorf("%s: %q: %w", path, id, err)
			}
		default:
			return nil, fmt.Errorf("%s: %q: value is %s, want a string (SQL or \"null\")", path, id, describeRaw(raw))
		}
		m.IDs = append(m.IDs, id)
		m.Values[id] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, syntaxErr(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: trailing data after the JSON object", path)
	}
	return m, nil
}

// LoadAnnotated reads annotated.json.
func LoadAnnotated(path string) ([]Annotated, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var raws []json.RawMessage
	if err := strictUnmarshal(b, &raws); err != nil {
		return nil, fmt.Errorf("%s: top level: want a list of items: %w", path, err)
	}
	out := make([]Annotated, len(raws))
	seen := map[string]int{}
	for i, r := range raws {
		var a struct {
			ID       *string         `json:"id"`
			Question *string         `json:"question"`
			Query    *string         `json:"query"`
			Template *string         `json:"template"`
			ValDict  json.RawMessage `json:"val_dict"`
		}
		if err := strictUnmarshal(r, &a); err != nil {
			return nil, fmt.Errorf("%s: [%d]: %w", path, i, err)
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"id", a.ID}, {"question", a.Question}, {"query", a.Query}, {"template", a.Template}} {
			if f.v == nil {
				return nil, fmt.Errorf("%s: [%d].%s: missing", path, i, f.name)
			}
		}
		if j, dup := seen[*a.ID]; dup {
			return nil, fmt.Errorf("%s: [%d].id: duplicate id %q (also [%d])", path, i, *a.ID, j)
		}
		seen[*a.ID] = i
		item := Annotated{ID: *a.ID, Question: *a.Question, Query: *a.Query, Template: *a.Template}
		switch {
		case len(a.ValDict) == 0:
			return nil, fmt.Errorf("%s: [%d].val_dict: missing", path, i)
		case string(a.ValDict) == `"-"`:
		case a.ValDict[0] == '{':
			var vd ValDict
			if err := strictUnmarshal(a.ValDict, &vd); err != nil {
				return nil, fmt.Errorf("%s: [%d].val_dict: %w", path, i, err)
			}
			item.ValDict = &vd
		default:
			return nil, fmt.Errorf("%s: [%d].val_dict: want an object or \"-\", got %s", path, i, describeRaw(a.ValDict))
		}
		if (item.Query == Null) != (item.ValDict == nil) {
			return nil, fmt.Errorf("%s: [%d].val_dict: an unanswerable item (query \"null\") has \"-\", an answerable one an object", path, i)
		}
		out[i] = item
	}
	return out, nil
}

// LoadTables reads tables.json and checks that every index points inside
// its list.
func LoadTables(path string) ([]Schema, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var raws []map[string]json.RawMessage
	if err := strictUnmarshal(b, &raws); err != nil {
		return nil, fmt.Errorf("%s: top level: want a list of database schemas: %w", path, err)
	}
	schemas := make([]Schema, len(raws))
	for i, raw := range raws {
		s := &schemas[i]
		at := func(field string) string { return fmt.Sprintf("%s: [%d].%s", path, i, field) }
		field := func(name string, v any) error {
			r, ok := raw[name]
			if !ok {
				return fmt.Errorf("%s: missing", at(name))
			}
			if err := strictUnmarshal(r, v); err != nil {
				return fmt.Errorf("%s: %w", at(name), err)
			}
			return nil
		}
		var cols, colsOrig, pks []json.RawMessage
		for _, f := range []struct {
			name string
			v    any
		}{
			{"db_id", &s.DBID}, {"table_names", &s.TableNames}, {"table_names_original", &s.TableNamesOriginal},
			{"column_names", &cols}, {"column_names_original", &colsOrig}, {"column_types", &s.ColumnTypes},
			{"primary_keys", &pks}, {"foreign_keys", &s.ForeignKeys},
		} {
			if err := field(f.name, f.v); err != nil {
				return nil, err
			}
		}
		for _, l := range []struct {
			name string
			raw  []json.RawMessage
			dst  *[]ColumnRef
		}{{"column_names", cols, &s.ColumnNames}, {"column_names_original", colsOrig, &s.ColumnNamesOriginal}} {
			*l.dst = make([]ColumnRef, len(l.raw))
			for j, r := range l.raw {
				if err := (*l.dst)[j].UnmarshalJSON(r); err != nil {
					return nil, fmt.Errorf("%s: %w", at(fmt.Sprintf("%s[%d]", l.name, j)), err)
				}
			}
		}
		s.PrimaryKeys = make([]Key, len(pks))
		for j, r := range pks {
			if err := s.PrimaryKeys[j].UnmarshalJSON(r); err != nil {
				return nil, fmt.Errorf("%s: %w", at(fmt.Sprintf("primary_keys[%d]", j)), err)
			}
		}
		if s.DBID == "" {
			return nil, fmt.Errorf("%s: empty", at("db_id"))
		}
		if len(s.TableNamesOriginal) != len(s.TableNames) {
			return nil, fmt.Errorf("%s: %d names, table_names has %d", at("table_names_original"), len(s.TableNamesOriginal), len(s.TableNames))
		}
		n := len(s.ColumnNamesOriginal)
		if len(s.ColumnNames) != n || len(s.ColumnTypes) != n {
			return nil, fmt.Errorf("%s: column_names has %d entries, column_names_original %d, column_types %d", at("column_names"), len(s.ColumnNames), n, len(s.ColumnTypes))
		}
		for j, c := range s.ColumnNamesOriginal {
			if c.Table < -1 || c.Table >= len(s.TableNames) {
				return nil, fmt.Errorf("%s: table index %d out of range", at(fmt.Sprintf("column_names_original[%d]", j)), c.Table)
			}
		}
		for j, k := range s.PrimaryKeys {
			for _, c := range k {
				if c < 0 || c >= n {
					return nil, fmt.Errorf("%s: column index %d out of range", at(fmt.Sprintf("primary_keys[%d]", j)), c)
				}
			}
		}
		for j, fk := range s.ForeignKeys {
			for _, c := range fk {
				if c < 0 || c >= n {
					return nil, fmt.Errorf("%s: column index %d out of range", at(fmt.Sprintf("foreign_keys[%d]", j)), c)
				}
			}
		}
	}
	return schemas, nil
}

// CheckIDs reports the ids that file lacks and those it has in excess,
// compared with the reference ids of refFile. Both lists are in the order of
// their own file.
func CheckIDs(refFile string, ref []string, file string, ids []string) error {
	have := make(map[string]bool, len(ids))
	for _, id := range ids {
		have[id] = true
	}
	want := make(map[string]bool, len(ref))
	var missing, extra []string
	for _, id := range ref {
		want[id] = true
		if !have[id] {
			missing = append(missing, id)
		}
	}
	for _, id := range ids {
		if !want[id] {
			extra = append(extra, id)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return nil
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d missing ids (in %s, not here): %s", len(missing), refFile, list(missing)))
	}
	if len(extra) > 0 {
		parts = append(parts, fmt.Sprintf("%d extra ids (not in %s): %s", len(extra), refFile, list(extra)))
	}
	return &IDError{File: file, Missing: missing, Extra: extra, msg: file + ": ids do not match: " + strings.Join(parts, "; ")}
}

// IDError is CheckIDs' error; it keeps the full lists.
type IDError struct {
	File           string
	Missing, Extra []string
	msg            string
}

func (e *IDError) Error() string { return e.msg }

// list shows up to 20 ids.
func list(ids []string) string {
	const show = 20
	q := make([]string, 0, min(len(ids), show))
	for _, id := range ids[:min(len(ids), show)] {
		q = append(q, fmt.Sprintf("%q", id))
	}
	s := strings.Join(q, ", ")
	if len(ids) > show {
		s += fmt.Sprintf(", ... (%d more)", len(ids)-show)
	}
	return s
}

// strictUnmarshal rejects trailing data and reports type errors with the
// JSON field they occurred in. Unknown fields are allowed, so that a later
// release may add some.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "top level"
			}
			return fmt.Errorf("%s: value is %s, want %s", field, te.Value, te.Type)
		}
		return syntaxErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func syntaxErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("invalid JSON: unexpected end of file")
	}
	return err
}

func describe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "a list"
		}
		return string(t)
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

func describeRaw(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 'n':
		return "JSON null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	}
	return "a number"
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// MaxFileBytes bounds every file read here. EHRSQL 2024's largest
// (train/annotated.json) is about 12 MB; a prediction file from elsewhere
// is untrusted and must not exhaust memory.
const MaxFileBytes = 256 << 20

// readFile reads a regular file of at most MaxFileBytes, as run folders
// are read (runfolder.ReadFile: no symlinks, FIFOs or devices, never
// blocking on one).
func readFile(path string) ([]byte, error) { return runfolder.ReadFile(path, MaxFileBytes) }

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// SHA256 fingerprints the split's questions, labels and answers (the hex
// SHA-256 over their files' digests): a score over the split is traced
// to it.
func (s *Split) SHA256() string {
	h := sha256.New()
	for _, part := range []struct{ name, sum string }{{"data.json", s.Data.SHA256}, {"label.json", s.Labels.SHA256}, {"answer.json", answersSHA(s.Answers)}} {
		fmt.Fprintf(h, "%s:%s\n", part.name, part.sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func answersSHA(m *Map) string {
	if m == nil {
		return "absent"
	}
	return m.SHA256
}

// SplitDir is the folder of the split called name under dataDir. The
// shared task calls its validation split "valid"; ClinSQL calls its
// "validation": either name finds either folder. A split that is not
// there is an error listing the splits that are (and, for a folder
// without any, how to get the data).
func SplitDir(dataDir, name string) (string, error) {
	names := []string{name}
	switch name {
	case "validation":
		names = append(names, "valid")
	case "valid":
		names = append(names, "validation")
	}
	for _, n := range names {
		if exists(filepath.Join(dataDir, n, "data.json")) {
			return filepath.Join(dataDir, n), nil
		}
	}
	var have []string
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return "", fmt.Errorf("EHRSQL data folder %s: %w (download the data with: clinsql datasets fetch ehrsql --out %s)", dataDir, unwrapPath(err), dataDir)
	}
	for _, e := range entries {
		if e.IsDir() && exists(filepath.Join(dataDir, e.Name(), "data.json")) {
			have = append(have, e.Name())
		}
	}
	if len(have) == 0 {
		return "", fmt.Errorf("%s holds no EHRSQL split (no NAME/data.json): give the folder clinsql datasets fetch ehrsql wrote", dataDir)
	}
	return "", fmt.Errorf("no split %q in %s (have: %s)", name, dataDir, strings.Join(have, ", "))
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
