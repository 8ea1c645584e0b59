package reliability

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/pyfmt"
	"github.com/clinsql/clinsql/internal/pyval"
)

// MaxAnswerRows is the official cut: answers are compared on their first
// 100 rows after sorting.
const MaxAnswerRows = 100

// Kind says what an Answer is.
type Kind string

const (
	// KindAbstain: the official result string "null" (not executed).
	KindAbstain Kind = "abstain"
	// KindError: "error_real" or "error_pred"; it never equals anything.
	KindError Kind = "error"
	// KindRows: a result, normalised.
	KindRows Kind = "rows"
	// KindText: an answer string that is not a list literal (scoring_v2
	// answers), compared as text.
	KindText Kind = "text"
)

// Answer is a normalised result, the engine's form of the string the
// official scorer compares.
type Answer struct {
	Kind Kind `json:"kind"`
	// Rows are the normalised cells (process_item: str(round(float(x), 3))
	// when float(x) succeeds, str(x) otherwise), sorted as Python sorts lists
	// of strings and cut to the first MaxAnswerRows. Duplicates stay.
	Rows [][]string `json:"rows,omitempty"`
	// TotalRows is the number of rows before the cut.
	TotalRows int    `json:"total_rows,omitempty"`
	Text      string `json:"text,omitempty"`
	// Error and Class describe a KindError answer.
	Error string         `json:"error,omitempty"`
	Class executor.Class `json:"error_class,omitempty"`
}

// MarshalJSON writes rows and total_rows for every KindRows answer, even
// an empty one, and leaves them out for the other kinds.
func (a Answer) MarshalJSON() ([]byte, error) {
	type plain Answer
	if a.Kind != KindRows {
		return json.Marshal(plain(a))
	}
	rows := a.Rows
	if rows == nil {
		rows = [][]string{}
	}
	return json.Marshal(struct {
		Kind      Kind       `json:"kind"`
		Rows      [][]string `json:"rows"`
		TotalRows int        `json:"total_rows"`
	}{a.Kind, rows, a.TotalRows})
}

// Equal is the official string equality of two normalised answers. Python's
// repr of a list of strings is injective, so rows compare as slices; a text
// answer compares with the Python rendering of rows. Errors never compare
// equal; abstentions equal each other.
func (a Answer) Equal(b Answer) bool {
	switch {
	case a.Kind == KindError || b.Kind == KindError:
		return false
	case a.Kind == KindRows && b.Kind == KindRows:
		return slices.EqualFunc(a.Rows, b.Rows, slices.Equal[[]string])
	case a.Kind == KindAbstain || b.Kind == KindAbstain:
		return a.Kind == b.Kind
	}
	return a.render() == b.render()
}

// Python returns the rendering of the answer as the official scorer holds
// it: "null", "error", the text, or str() of the row list.
func (a Answer) Python() string {
	switch a.Kind {
	case KindAbstain:
		return "null"
	case KindError:
		return "error"
	}
	return a.render()
}

func (a Answer) render() string {
	if a.Kind == KindText {
		return a.Text
	}
	rows := make(pyval.List, len(a.Rows))
	for i, r := range a.Rows {
		row := make(pyval.List, len(r))
		for j, c := range r {
			row[j] = c
		}
		rows[i] = row
	}
	return pyval.Repr(rows)
}

// Normalize is process_answer on an executed result: every cell goes
// through NormalizeCell, the rows are sorted and the first MaxAnswerRows
// kept. A truncated result cannot be sorted faithfully and is an error.
func Normalize(res *executor.Result) Answer {
	if res.Truncated && res.ByteCapped {
		return Answer{Kind: KindError, Class: executor.ClassBytesLimit,
			Error: fmt.Sprintf("result has %d rows, over the engine's result byte cap after %d; the official scorer sorts them all", res.TotalRows, len(res.Rows))}
	}
	if res.Truncated {
		return Answer{Kind: KindError, Class: executor.ClassRowLimit,
			Error: fmt.Sprintf("result has %d rows, more than the engine's row cap of %d; the official scorer sorts them all", res.TotalRows, len(res.Rows))}
	}
	rows := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = make([]string, len(r))
		for j, v := range r {
			rows[i][j] = NormalizeCell(v)
		}
	}
	return sortAndCut(rows)
}

func sortAndCut(rows [][]string) Answer {
	// Python compares str by code point, which is UTF-8 byte order, and
	// lists element by element with a shorter prefix first: slices.Compare.
	slices.SortStableFunc(rows, slices.Compare[[]string])
	total := len(rows)
	if len(rows) > MaxAnswerRows {
		rows = rows[:MaxAnswerRows]
	}
	return Answer{Kind: KindRows, Rows: rows, TotalRows: total}
}

// NormalizeCell is the official process_item: str(round(float(x), 3)) when
// Python's float(x) succeeds, str(x) otherwise. It takes the values the
// sqlite executor returns (int64, float64, string, []byte, nil) and those
// pyval.LiteralEval returns.
func NormalizeCell(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "1.0"
		}
		return "0.0"
	case int64:
		return floatCell(float64(v))
	case float64:
		return floatCell(v)
	case *big.Int:
		f, acc := new(big.Float).SetInt(v).Float64()
		if math.IsInf(f, 0) && acc != big.Exact {
			return v.String() // float(int) raises OverflowError
		}
		return floatCell(f)
	case string:
		if f, ok := pyval.ParseFloat(v); ok {
			return floatCell(f)
		}
		return v
	case []byte:
		if f, ok := pyval.ParseFloatBytes(v); ok {
			return floatCell(f)
		}
		return pyval.Repr(v)
	case pyval.Bytes:
		return NormalizeCell([]byte(v))
	case pyval.List, pyval.Tuple:
		return pyval.Repr(v)
	}
	return fmt.Sprint(v)
}

func floatCell(f float64) string {
	return pyfmt.Float(pyfmt.Round(f, 3))
}

// ErrAnswerShape is wrapped when an answer literal is not a sequence of rows:
// Python's process_answer raises TypeError on it.
var ErrAnswerShape = errors.New("answer is not a sequence of rows")

// NormalizeText is process_answer on an answer string (answer.json, or a
// scoring_v2 prediction): ast.literal_eval first; a text that is not a
// literal, or a literal str, stays text ("null" is an abstention); a list or
// tuple of rows is normalised like an executed result. Literals Python would
// accept but this engine does not model are an error wrapping
// pyval.ErrUnsupported, and shapes Python would crash on wrap ErrAnswerShape.
func NormalizeText(s string) (Answer, error) {
	v, err := pyval.LiteralEval(s)
	switch {
	case errors.Is(err, pyval.ErrNotLiteral):
		v = s
	case err != nil:
		return Answer{}, err
	}
	var seq []any
	switch v := v.(type) {
	case string:
		if v == "null" {
			return Answer{Kind: KindAbstain}, nil
		}
		return Answer{Kind: KindText, Text: v}, nil
	case pyval.List:
		seq = v
	case pyval.Tuple:
		seq = v
	default:
		return Answer{}, fmt.Errorf("%w: %s", ErrAnswerShape, pyval.Repr(v))
	}
	rows := make([][]string, len(seq))
	for i, r := range seq {
		cells, err := iterate(r)
		if err != nil {
			return Answer{}, fmt.Errorf("%w: row %d: %v", ErrAnswerShape, i, err)
		}
		rows[i] = make([]string, len(cells))
		for j, c := range cells {
			rows[i][j] = NormalizeCell(c)
		}
	}
	return sortAndCut(rows), nil
}

// iterate is Python's iteration over a row: items of a list or tuple,
// characters of a str, integers of a bytes.
func iterate(v any) ([]any, error) {
	switch v := v.(type) {
	case pyval.List:
		return v, nil
	case pyval.Tuple:
		return v, nil
	case string:
		var out []any
		for _, r := range v {
			out = append(out, string(r))
		}
		return out, nil
	case pyval.Bytes:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = big.NewInt(int64(c))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is not iterable", pyval.Repr(v))
}

// Abstention decides whether a prediction abstains.
type Abstention struct {
	// Marker is the abstention text; empty means "null", the official one.
	Marker string
	// Lenient also accepts the marker in any letter case, with trailing
	// semicolons and surrounding quotes or backticks, and an empty
	// prediction. The official scorer accepts exactly the marker (after
	// post-processing): a documented deviation, off by default.
	Lenient bool
}

// Matches reports whether sql abstains: after the whitespace step of the
// official post-processing (newlines to spaces, spaces collapsed, stripped)
// it equals the marker.
func (a Abstention) Matches(sql string) bool {
	marker := a.Marker
	if marker == "" {
		marker = "null"
	}
	s := normalizeSpace(sql)
	if s == marker {
		return true
	}
	if !a.Lenient {
		return false
	}
	s = strings.TrimRight(s, "; \t\r\n")
	if len(s) >= 2 && strings.ContainsRune("'\"`", rune(s[0])) && s[len(s)-1] == s[0] {
		s = pyval.Strip(s[1 : len(s)-1])
	}
	return s == "" || strings.EqualFold(s, marker)
}
