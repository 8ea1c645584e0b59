package labelset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clinsql/clinsql/datasets"
)

// Label is one leaf's adjudicated verdict. Field order is the order
// written.
type Label struct {
	datasets.Key
	// Model is the model whose answer was judged.
	Model string `json:"model"`
	// Tree is "sql" or "results"; Leaf the node id in that tree.
	Tree string `json:"tree"`
	Leaf string `json:"leaf"`
	// Label is pass, fail or arguable ("" in a template).
	Label string `json:"label"`
	// Rationale is one line in the labeller's words ("" in a template).
	Rationale string `json:"rationale"`
	// Chosen says how the leaf was drawn: disagreement, agreement or
	// llm-only.
	Chosen string `json:"chosen,omitempty"`
	// Seed and Stratum identify the draw; Population is the stratum's
	// size and Drawn how many of it were drawn.
	Seed       uint64 `json:"seed,omitempty"`
	Stratum    string `json:"stratum,omitempty"`
	Population int    `json:"population,omitempty"`
	Drawn      int    `json:"drawn,omitempty"`
	// Card is the card the leaf was labelled from ("" when none).
	Card string `json:"card,omitempty"`
}

// Labels.
const (
	Pass     = "pass"
	Fail     = "fail"
	Arguable = "arguable"
)

// How a leaf was chosen.
const (
	// Disagreement: the code checks and the recorded judge decided the
	// leaf differently, on an answer with a result.
	Disagreement = "disagreement"
	// Agreement: they decided it alike, on an answer with a result.
	Agreement = "agreement"
	// LLMOnly: code does not decide the leaf; only an LLM judge does.
	LLMOnly = "llm-only"
)

// Trees.
const (
	TreeSQL     = "sql"
	TreeResults = "results"
)

// LeafKey identifies a labelled leaf: one line per LeafKey.
type LeafKey struct {
	Task  datasets.Key
	Model string
	Tree  string
	Leaf  string
}

func (k LeafKey) String() string {
	return k.Model + " " + k.Task.String() + " " + k.Tree + "/" + k.Leaf
}

// LeafKey returns the leaf the label is about.
func (l *Label) LeafKey() LeafKey {
	return LeafKey{Task: l.Key, Model: l.Model, Tree: l.Tree, Leaf: l.Leaf}
}

// Bounds of a label set: it is read from files others write.
const (
	// MaxLineBytes bounds one line.
	MaxLineBytes = 8 << 10
	// MaxLabels bounds the lines of one file.
	MaxLabels = 200_000
	// MaxRationale bounds a rationale, in characters: one line.
	MaxRationale = 400
	// MinRationale is the shortest rationale that can name what decided
	// a leaf.
	MinRationale = 12
)

var (
	idRe      = regexp.MustCompile(`^[0-9]{3}$`)
	nodeIDRe  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\- ]{0,199}$`)
	modelRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$`)
	cardRe    = regexp.MustCompile(`^c[0-9]{4,6}$`)
	stratumRe = regexp.MustCompile(`^[a-z][a-z_\-]*(?:/[A-Za-z0-9_.\-]+){1,4}$`)
)

// FieldError is a problem with one field of one line.
type FieldError struct {
	File  string
	Line  int
	Field string // "" for the line as a whole
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: field %q: %s", e.File, e.Line, e.Field, e.Msg)
}

// Blind reports a label without its draw (chosen, seed, stratum,
// population, drawn): a labeller's template, which does not say how the
// leaf was chosen.
func (l *Label) Blind() bool {
	return l.Chosen == "" && l.Seed == 0 && l.Stratum == "" && l.Population == 0 && l.Drawn == 0
}

// Check reports the first problem of a label as the field and a message;
// template allows an empty label and rationale, and a blind label.
func (l *Label) Check(template bool) (field, msg string) {
	if field, msg := l.checkLeaf(); msg != "" {
		return field, msg
	}
	if !template || !l.Blind() {
		if field, msg := l.checkDraw(); msg != "" {
			return field, msg
		}
	}
	if template && l.Label == "" && l.Rationale == "" {
		return "", ""
	}
	return l.checkLabel()
}

func (l *Label) checkLeaf() (field, msg string) {
	switch {
	case l.Split != "validation" && l.Split != "test":
		return "split", fmt.Sprintf("%q is not validation or test", l.Split)
	case !slices.Contains(datasets.Scenarios, l.Domain):
		return "domain", fmt.Sprintf("%q is not a ClinSQL domain", l.Domain)
	case !slices.Contains(datasets.Difficulties, l.Difficulty):
		return "difficulty", fmt.Sprintf("%q is not easy, medium or hard", l.Difficulty)
	case !idRe.MatchString(l.ID):
		return "id", fmt.Sprintf("%q is not a 3-digit task id", l.ID)
	case !modelRe.MatchString(l.Model):
		return "model", fmt.Sprintf("%q is not a model name (letters, digits, '.', '_', '-')", l.Model)
	case l.Tree != TreeSQL && l.Tree != TreeResults:
		return "tree", fmt.Sprintf("%q is not sql or results", l.Tree)
	case !nodeIDRe.MatchString(l.Leaf):
		return "leaf", fmt.Sprintf("%q is not a rubric node id", l.Leaf)
	case l.Card != "" && !cardRe.MatchString(l.Card):
		return "card", fmt.Sprintf("%q is not a card id (c0001)", l.Card)
	}
	return "", ""
}

func (l *Label) checkDraw() (field, msg string) {
	switch {
	case l.Chosen != Disagreement && l.Chosen != Agreement && l.Chosen != LLMOnly:
		return "chosen", fmt.Sprintf("%q is not disagreement, agreement or llm-only", l.Chosen)
	case !stratumRe.MatchString(l.Stratum) || !strings.HasPrefix(l.Stratum, l.Chosen+"/"):
		return "stratum", fmt.Sprintf("%q is not <chosen>/<part>[/<part>...] under %q", l.Stratum, l.Chosen)
	case l.Drawn < 1 || l.Population < l.Drawn:
		return "drawn", fmt.Sprintf("%d drawn of a population of %d: want 1 <= drawn <= population", l.Drawn, l.Population)
	}
	return "", ""
}

func (l *Label) checkLabel() (field, msg string) {
	switch {
	case l.Label != Pass && l.Label != Fail && l.Label != Arguable:
		return "label", fmt.Sprintf("%q is not pass, fail or arguable", l.Label)
	case strings.ContainsAny(l.Rationale, "\r\n"):
		return "rationale", "must be one line"
	case utf8.RuneCountInString(strings.TrimSpace(l.Rationale)) < MinRationale:
		return "rationale", fmt.Sprintf("%q is too short to name what decided the leaf (at least %d characters)", l.Rationale, MinRationale)
	case utf8.RuneCountInString(l.Rationale) > MaxRationale:
		return "rationale", fmt.Sprintf("longer than %d characters: one line naming what decided it", MaxRationale)
	case !utf8.ValidString(l.Rationale):
		return "rationale", "is not valid UTF-8"
	}
	return "", ""
}

// ReadOptions configures Read.
type ReadOptions struct {
	// Template accepts labels whose label and rationale are both empty
	// (a blank template, or one partly filled) and blind labels (see
	// Label.Blind).
	Template bool
}

// Read reads a label set. name is the file's name for errors. Every
// problem is reported (joined), each naming the file, line and field; no
// labels are returned then.
func Read(r io.Reader, name string, opts ReadOptions) ([]Label, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), MaxLineBytes)
	var out []Label
	var errs []error
	seen := map[LeafKey]int{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			errs = append(errs, &FieldError{name, line, "", "empty line"})
			continue
		}
		if len(out) >= MaxLabels {
			return nil, &FieldError{name, line, "", fmt.Sprintf("more than %d labels", MaxLabels)}
		}
		var l Label
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			f, msg := describe(err)
			errs = append(errs, &FieldError{name, line, f, msg})
			continue
		}
		if dec.More() {
			errs = append(errs, &FieldError{name, line, "", "more than one JSON value on the line"})
			continue
		}
		if f, msg := l.Check(opts.Template); msg != "" {
			errs = append(errs, &FieldError{name, line, f, msg})
			continue
		}
		k := l.LeafKey()
		if first, ok := seen[k]; ok {
			errs = append(errs, &FieldError{name, line, "", fmt.Sprintf("%s is labelled twice (first on line %d)", k, first)})
			continue
		}
		seen[k] = line
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line longer than %d bytes", MaxLineBytes)
		}
		errs = append(errs, &FieldError{name, line + 1, "", err.Error()})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// describe names the field of a decoding error ("" when none) and says
// what is wrong.
func describe(err error) (field, msg string) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field, fmt.Sprintf("want %s, found JSON %s", te.Type, te.Value)
	}
	const unknown = `json: unknown field "`
	if s := err.Error(); strings.HasPrefix(s, unknown) {
		return strings.TrimSuffix(strings.TrimPrefix(s, unknown), `"`), "unknown field"
	}
	return "", datasets.DescribeJSONError(err)
}

// Write writes labels, one line each, in the order given. A label that
// does not pass Check (with template as given) or repeats a leaf is an
// error naming its index, and nothing is written.
func Write(w io.Writer, labels []Label, template bool) error {
	seen := map[LeafKey]int{}
	var buf bytes.Buffer
	for i := range labels {
		l := &labels[i]
		if f, msg := l.Check(template); msg != "" {
			return fmt.Errorf("label %d (%s): field %q: %s", i+1, l.LeafKey(), f, msg)
		}
		if j, ok := seen[l.LeafKey()]; ok {
			return fmt.Errorf("label %d: %s repeats label %d", i+1, l.LeafKey(), j+1)
		}
		seen[l.LeafKey()] = i
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		if len(b) >= MaxLineBytes {
			return fmt.Errorf("label %d (%s): longer than %d bytes", i+1, l.LeafKey(), MaxLineBytes)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ReadFile reads a label set from a file (see Read).
func ReadFile(path string) ([]Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, ReadOptions{})
}
