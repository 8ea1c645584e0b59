package rubric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Node is one rubric node. Leaves have no children.
type Node struct {
	ID           string `json:"id" yaml:"id"`
	Requirements string `json:"requirements" yaml:"requirements"`
	// Weight among siblings. The reference loader applies int(weight) with a
	// default of 1; Parse rejects non-integer weights instead of truncating.
	Weight     int  `json:"weight" yaml:"weight"`
	Sequential bool `json:"sequential" yaml:"sequential"`
	Critical   bool `json:"critical" yaml:"critical"`
	// Scoring is the author's scoring hint ("1/0", "1.0-30.0", an object ...),
	// kept verbatim for display. No scorer uses it.
	Scoring  any     `json:"scoring,omitempty" yaml:"scoring,omitempty"`
	Children []*Node `json:"sub_tasks" yaml:"sub_tasks"`

	// Path locates the node in its file: "" for the root, else
	// "sub_tasks[0].sub_tasks[2]".
	Path string `json:"-" yaml:"-"`
	// Parent is nil for the root.
	Parent *Node `json:"-" yaml:"-"`
}

// IsLeaf reports whether n has no children.
func (n *Node) IsLeaf() bool { return len(n.Children) == 0 }

// Walk calls fn for n and its descendants in pre-order (file order).
func (n *Node) Walk(fn func(*Node)) {
	fn(n)
	for _, c := range n.Children {
		c.Walk(fn)
	}
}

// Leaves returns the leaves under n in file order.
func (n *Node) Leaves() []*Node {
	var out []*Node
	n.Walk(func(m *Node) {
		if m.IsLeaf() {
			out = append(out, m)
		}
	})
	return out
}

// Find returns the node with the given id, or nil.
func (n *Node) Find(id string) *Node {
	var found *Node
	n.Walk(func(m *Node) {
		if found == nil && m.ID == id {
			found = m
		}
	})
	return found
}

// Ancestors returns n's ancestors from the root down to n's parent.
func (n *Node) Ancestors() []*Node {
	var out []*Node
	for p := n.Parent; p != nil; p = p.Parent {
		out = append(out, p)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Depth is the number of edges from the root.
func (n *Node) Depth() int { return len(n.Ancestors()) }

// Tree is a parsed rubric file.
type Tree struct {
	Root *Node
	File string
	// Warnings are problems that do not stop scoring (stray keys, null
	// values), each a *Error.
	Warnings []error
}

// Error is a problem at one place of a rubric file.
type Error struct {
	File string // as given to Parse
	Path string // JSON path of the node or field; "" for the document
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in one or more files.
type ErrorList []error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors:", len(l))
	for _, e := range l {
		b.WriteString("\n\t")
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is and errors.As see every error in the list.
func (l ErrorList) Unwrap() []error { return l }

// Err returns nil for an empty list, else the list.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Format selects the encoding of a rubric file.
type Format int

const (
	JSON Format = iota
	YAML
)

// FormatOf picks the format from a file name: .yaml and .yml are YAML,
// everything else JSON.
func FormatOf(name string) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return YAML
	}
	return JSON
}

// ReadFile parses the rubric file at path, choosing the format by extension.
func ReadFile(path string) (*Tree, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path, FormatOf(path))
}

// Parse decodes and validates a rubric. file names the source in errors. On
// failure the error is an ErrorList holding every problem found, each an
// *Error.
func Parse(data []byte, file string, f Format) (*Tree, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var doc any
	switch f {
	case YAML:
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, ErrorList{&Error{File: file, Msg: "invalid YAML: " + err.Error()}}
		}
	default:
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return nil, ErrorList{&Error{File: file, Msg: "invalid JSON: " + jsonErrorText(data, err)}}
		}
		if dec.More() {
			return nil, ErrorList{&Error{File: file, Msg: "invalid JSON: data after the top-level value"}}
		}
	}
	p := &parser{file: file, seen: map[string]string{}}
	root := p.node(doc, "", nil)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return &Tree{Root: root, File: file, Warnings: p.warns}, nil
}

// jsonErrorText adds the line and column to a syntax error.
func jsonErrorText(data []byte, err error) string {
	var se *json.SyntaxError
	if e, ok := err.(*json.SyntaxError); ok {
		se = e
	}
	if se == nil {
		return err.Error()
	}
	line, col := 1, 1
	// Offset counts the bytes read, the offending one included.
	for _, c := range data[:max(0, min(int(se.Offset)-1, len(data)))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

var knownKeys = map[string]bool{
	"id": true, "requirements": true, "weight": true, "sequential": true,
	"critical": true, "scoring": true, "sub_tasks": true,
}

type parser struct {
	file  string
	errs  ErrorList
	warns []error
	seen  map[string]string // id -> path of its first node
}

func (p *parser) errf(path, format string, a ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Path: path, Msg: fmt.Sprintf(format, a...)})
}

func (p *parser) warnf(path, format string, a ...any) {
	p.warns = append(p.warns, &Error{File: p.file, Path: path, Msg: fmt.Sprintf(format, a...)})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// MaxDepth is the deepest a rubric tree may go (the root is level 1). The
// released ClinSQL rubrics go 6 levels deep; a deeper tree is refused rather
// than judged, since the judge's prompt quotes every ancestor of a leaf (a
// 4,900-level tree made a 24 MB prompt).
const MaxDepth = 32

func (p *parser) node(v any, path string, parent *Node) *Node {
	obj, ok := v.(map[string]any)
	if !ok {
		p.errf(path, "a rubric node must be an object, found %s", kindOf(v))
		return nil
	}
	if depth := 1 + parentDepth(parent); depth > MaxDepth {
		p.errf(path, "the tree is deeper than %d levels", MaxDepth)
		return nil
	}
	n := &Node{Weight: 1, Path: path, Parent: parent}

	var stray []string
	for k := range obj {
		if !knownKeys[k] {
			stray = append(stray, k)
		}
	}
	sort.Strings(stray)

	switch id, present := obj["id"]; {
	case !present:
		msg := `missing "id"`
		for _, k := range stray {
			if near(k, "id") {
				msg += fmt.Sprintf(" (found key %q: a mangled \"id\"?)", k)
				break
			}
		}
		p.errf(path, "%s", msg)
	default:
		s, ok := id.(string)
		switch {
		case !ok:
			p.errf(join(path, "id"), "must be a string, found %s", kindOf(id))
		case strings.TrimSpace(s) == "":
			p.errf(join(path, "id"), "must not be empty")
		default:
			n.ID = s
			if first, dup := p.seen[s]; dup {
				p.errf(join(path, "id"), "duplicate id %q (first at %s)", s, orRoot(first))
			} else {
				p.seen[s] = path
			}
		}
	}

	switch r, present := obj["requirements"]; {
	case !present:
		p.errf(path, `missing "requirements"`)
	default:
		s, ok := r.(string)
		if !ok {
			p.errf(join(path, "requirements"), "must be a string, found %s", kindOf(r))
		} else {
			n.Requirements = s
			if strings.TrimSpace(s) == "" {
				p.warnf(join(path, "requirements"), "empty")
			}
		}
	}

	if w, present := obj["weight"]; present {
		switch f, ok := number(w); {
		case w == nil:
			p.warnf(join(path, "weight"), "null, taken as 1")
		case !ok:
			p.errf(join(path, "weight"), "must be an integer, found %s", kindOf(w))
		case f != math.Trunc(f) || math.Abs(f) > 1e9:
			p.errf(join(path, "weight"), "must be an integer, found %v", f)
		case f < 0:
			p.errf(join(path, "weight"), "must not be negative, found %v", f)
		default:
			n.Weight = int(f)
		}
	}
	n.Sequential = p.flag(obj, path, "sequential")
	n.Critical = p.flag(obj, path, "critical")
	if s, present := obj["scoring"]; present {
		n.Scoring = normalise(s)
	}

	if st, present := obj["sub_tasks"]; present && st != nil {
		list, ok := st.([]any)
		if !ok {
			p.errf(join(path, "sub_tasks"), "must be an array, found %s", kindOf(st))
		}
		for i, c := range list {
			if child := p.node(c, fmt.Sprintf("%s[%d]", join(path, "sub_tasks"), i), n); child != nil {
				n.Children = append(n.Children, child)
			}
		}
	}

	if len(n.Children) > 0 && allZeroWeights(n.Children) {
		// The weighted mean of zero weights is taken as 1: whatever the
		// verdicts below, the node passes.
		p.warnf(join(path, "sub_tasks"), "every child has weight 0: the node scores 1 whatever their verdicts")
	}

	for _, k := range stray {
		if !near(k, "id") || obj["id"] != nil {
			p.warnf(path, "unknown key %q ignored", k)
		}
	}
	return n
}

// flag reads an optional boolean. JSON null means false, as bool(None) does
// in the reference loader.
func (p *parser) flag(obj map[string]any, path, key string) bool {
	v, present := obj[key]
	if !present || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		p.errf(join(path, key), "must be true or false, found %s", kindOf(v))
	}
	return b
}

func orRoot(path string) string {
	if path == "" {
		return "the root"
	}
	return path
}

// near reports whether key looks like a damaged spelling of want: the
// released files hold "id M", "id-d", "id " and "id A".
func near(key, want string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	return k == want || strings.HasPrefix(k, want+" ") || strings.HasPrefix(k, want+"-") ||
		strings.HasPrefix(k, want+"_") && len(k) <= len(want)+2
}

// number accepts json.Number and the numeric types yaml.v3 produces.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// normalise turns json.Number into float64 or int64 so that Scoring values
// look the same whichever format they came from.
func normalise(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case int:
		return int64(x)
	case map[string]any:
		for k, e := range x {
			x[k] = normalise(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalise(e)
		}
	}
	return v
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, int, int64, uint64, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// Marshal encodes the tree in the given format with the rubric schema. JSON
// output uses two-space indentation and LF line endings.
func (t *Tree) Marshal(f Format) ([]byte, error) {
	if f == YAML {
		return yaml.Marshal(t.Root)
	}
	return json.MarshalIndent(t.Root, "", "  ")
}

func parentDepth(n *Node) int {
	d := 0
	for ; n != nil; n = n.Parent {
		d++
	}
	return d
}

func allZeroWeights(children []*Node) bool {
	for _, c := range children {
		if c.Weight != 0 {
			return false
		}
	}
	return true
}
