package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"cloud.google.com/go/civil"

	"github.com/clinsql/clinsql/executor"
)

// Type is a GoogleSQL type as the expected-result literals spell it.
type Type struct {
	Name   string  // upper-case: INT64, DOUBLE, STRING, ARRAY, STRUCT, ...
	Elem   *Type   // ARRAY element
	Fields []*Type // STRUCT fields, in order
}

// Value is a parsed expected value: nil for NULL, the scalar text for
// scalars (strings and bytes unescaped), []Value for arrays and structs.
type Value any

// array is an expected ARRAY value.
type array struct {
	Ordered bool
	Elems   []Value
	Elem    *Type // the element type the value spells, for ARRAY<> columns
}

// Expected is a parsed expected result.
type Expected struct {
	Error   string // "" when a value is expected
	Columns []*Type
	Rows    []Value // each a []Value of the columns
	Ordered bool    // [known order: ...]: rows must come in this order
}

// ParseExpected reads the text after "--": "ERROR: ..." or
// ARRAY<STRUCT<...>>[rows].
func ParseExpected(text string) (*Expected, error) {
	// The reference implementation may append a note (on
	// non-determinism) after the value.
	if i := strings.Index(text, "\nNOTE:"); i >= 0 {
		text = text[:i]
	}
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "ERROR:") {
		return &Expected{Error: strings.TrimSpace(strings.TrimPrefix(text, "ERROR:"))}, nil
	}
	p := &parser{s: text}
	t, err := p.typ()
	if err != nil {
		return nil, err
	}
	if t.Name != "ARRAY" || t.Elem.Name != "STRUCT" {
		return nil, fmt.Errorf("expected result of type %s, want ARRAY<STRUCT<...>>", t.Name)
	}
	v, err := p.value(t)
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the result", clip(p.s[p.i:]))
	}
	a, ok := v.(array)
	if !ok {
		return nil, fmt.Errorf("result is NULL")
	}
	return &Expected{Columns: t.Elem.Fields, Rows: a.Elems, Ordered: a.Ordered}, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

type parser struct {
	s string
	i int
}

func (p *parser) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) peek(lit string) bool {
	p.skip()
	return strings.HasPrefix(p.s[p.i:], lit)
}

func (p *parser) eat(lit string) error {
	if !p.peek(lit) {
		return fmt.Errorf("want %q at %q", lit, clip(p.s[p.i:]))
	}
	p.i += len(lit)
	return nil
}

func (p *parser) word() string {
	p.skip()
	j := p.i
	for j < len(p.s) && (p.s[j] == '_' || p.s[j] == '.' || 'a' <= p.s[j]|0x20 && p.s[j]|0x20 <= 'z' || '0' <= p.s[j] && p.s[j] <= '9') {
		j++
	}
	w := p.s[p.i:j]
	p.i = j
	return w
}

// typ reads a type: ARRAY<T>, STRUCT<[name] T, ...>, a scalar name, or a
// parameterised name such as PROTO<x> or RANGE<DATE> (kept by name).
func (p *parser) typ() (*Type, error) {
	name := strings.ToUpper(p.word())
	if name == "" {
		return nil, fmt.Errorf("want a type at %q", clip(p.s[p.i:]))
	}
	t := &Type{Name: name}
	switch name {
	case "ARRAY":
		if err := p.eat("<"); err != nil {
			return nil, err
		}
		if p.peek(">") { // ARRAY<>: each value spells its own type
			p.i++
			return t, nil
		}
		e, err := p.typ()
		if err != nil {
			return nil, err
		}
		t.Elem = e
		return t, p.eat(">")
	case "STRUCT":
		if err := p.eat("<"); err != nil {
			return nil, err
		}
		for !p.peek(">") {
			// "name TYPE" or "TYPE": a word followed by a word is a name.
			save := p.i
			w := p.word()
			p.skip()
			if w != "" && p.i < len(p.s) && p.s[p.i] != '<' && p.s[p.i] != ',' && p.s[p.i] != '>' {
				save = p.i
			}
			p.i = save
			f, err := p.typ()
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, f)
			if !p.peek(",") {
				break
			}
			p.i++
		}
		return t, p.eat(">")
	}
	if p.peek("<") { // PROTO<...>, ENUM<...>, RANGE<...>
		depth := 0
		for ; p.i < len(p.s); p.i++ {
			switch p.s[p.i] {
			case '<':
				depth++
			case '>':
				depth--
			}
			if depth == 0 {
				p.i++
				break
			}
		}
	}
	return t, nil
}

// value reads a value of type t.
func (p *parser) value(t *Type) (Value, error) {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], "NULL") && !isWordByte(p.s, p.i+4) {
		p.i += 4
		return nil, nil
	}
	switch t.Name {
	case "ARRAY":
		if !p.peek("[") { // ARRAY<T>[...] inside a struct carries its type
			own, err := p.typ()
			if err != nil {
				return nil, err
			}
			if t.Elem == nil {
				t = own
			}
			if p.peek("(NULL)") {
				p.i += len("(NULL)")
				return nil, nil
			}
		}
		if t.Elem == nil {
			return nil, fmt.Errorf("array of unknown element type at %q", clip(p.s[p.i:]))
		}
		if err := p.eat("["); err != nil {
			return nil, err
		}
		a := array{Elem: t.Elem}
		if p.peek("known order:") {
			p.i += len("known order:")
			a.Ordered = true
		} else if p.peek("unknown order:") {
			p.i += len("unknown order:")
		} else {
			// A plain [...] is an array of at most one element, whose
			// order is moot.
			a.Ordered = true
		}
		for !p.peek("]") {
			v, err := p.value(t.Elem)
			if err != nil {
				return nil, err
			}
			a.Elems = append(a.Elems, v)
			if !p.peek(",") {
				break
			}
			p.i++
		}
		return a, p.eat("]")
	case "STRUCT":
		if err := p.eat("{"); err != nil {
			return nil, err
		}
		var fields []Value
		for k := 0; !p.peek("}"); k++ {
			if k >= len(t.Fields) {
				return nil, fmt.Errorf("struct has more than %d fields at %q", len(t.Fields), clip(p.s[p.i:]))
			}
			v, err := p.value(t.Fields[k])
			if err != nil {
				return nil, err
			}
			fields = append(fields, v)
			if !p.peek(",") {
				break
			}
			p.i++
		}
		return fields, p.eat("}")
	case "STRING":
		return p.quoted()
	case "BYTES":
		if err := p.eat("b"); err != nil {
			return nil, err
		}
		s, err := p.quoted()
		return []byte(s), err
	}
	return p.scalar(), nil
}

func isWordByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// scalar reads unquoted text up to the next comma or closing bracket at
// depth 0 (JSON values nest and quote).
func (p *parser) scalar() string {
	p.skip()
	depth, j := 0, p.i
	for ; j < len(p.s); j++ {
		c := p.s[j]
		switch {
		case c == '"':
			for j++; j < len(p.s) && p.s[j] != '"'; j++ {
				if p.s[j] == '\\' {
					j++
				}
			}
		case c == '{' || c == '[':
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
		case (c == ',' || c == '}' || c == ']') && depth == 0:
			v := strings.TrimSpace(p.s[p.i:j])
			p.i = j
			return v
		}
	}
	v := strings.TrimSpace(p.s[p.i:])
	p.i = len(p.s)
	return v
}

// quoted reads a "..." or '...' literal with C escapes (\x41, \n, \', \\).
func (p *parser) quoted() (string, error) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\'') {
		return "", fmt.Errorf("want a quoted string at %q", clip(p.s[p.i:]))
	}
	q := p.s[p.i]
	var b []byte
	for j := p.i + 1; j < len(p.s); {
		c := p.s[j]
		if c == q {
			p.i = j + 1
			return string(b), nil
		}
		if c != '\\' || j+1 >= len(p.s) {
			b = append(b, c)
			j++
			continue
		}
		esc := p.s[j:]
		switch p.s[j+1] {
		case '\'', '"', '?', '`':
			b = append(b, p.s[j+1])
			j += 2
			continue
		case 'X': // \X41 is \x41
			esc = `\x` + p.s[j+2:]
		}
		v, multi, tail, err := strconv.UnquoteChar(esc, '"')
		if err != nil {
			return "", fmt.Errorf("bad escape at %q", clip(p.s[j:]))
		}
		if v < utf8.RuneSelf || !multi {
			b = append(b, byte(v))
		} else {
			b = utf8.AppendRune(b, v)
		}
		j = len(p.s) - len(tail)
	}
	return "", fmt.Errorf("unterminated string")
}

// FloatTolerance is the relative difference under which two FLOAT64 values
// are equal: the engines' libm and summation orders differ in the last bits.
const FloatTolerance = 1e-9

// Compare checks the engine's result against the expected one and returns
// "" when they agree, or what differs.
func (e *Expected) Compare(res *executor.Result) string {
	if len(res.Columns) != len(e.Columns) {
		return fmt.Sprintf("%d columns, want %d", len(res.Columns), len(e.Columns))
	}
	for i, c := range res.Columns {
		if want := bqName(e.Columns[i]); !sameType(string(c.Type), want) {
			return fmt.Sprintf("column %d is %s, want %s", i+1, c.Type, want)
		}
	}
	if res.Truncated {
		return "result truncated"
	}
	got := make([]any, len(res.Rows))
	for i, r := range res.Rows {
		row := make([]any, len(r))
		copy(row, r)
		got[i] = row
	}
	rowType := &Type{Name: "STRUCT", Fields: e.Columns}
	return equalArray(&Type{Name: "ARRAY", Elem: rowType}, array{Ordered: e.Ordered, Elems: e.Rows}, got)
}

// bqName is BigQuery's name for a compliance type, as the engine reports
// result types (BIGNUMERIC is NUMERIC in the embedded engine, by design).
func bqName(t *Type) string {
	switch t.Name {
	case "DOUBLE":
		return "FLOAT64"
	case "BIGNUMERIC":
		return "NUMERIC"
	case "ARRAY":
		if t.Elem == nil {
			return "ARRAY"
		}
		return "ARRAY<" + bqName(t.Elem) + ">"
	case "STRUCT":
		return "STRUCT"
	}
	return t.Name
}

// sameType compares the head of the engine's type name with want's
// (struct field names are not part of the expected literals).
func sameType(got, want string) bool {
	for strings.HasPrefix(want, "ARRAY<") {
		if !strings.HasPrefix(got, "ARRAY<") {
			return false
		}
		want, got = want[6:len(want)-1], got[6:len(got)-1]
	}
	if want == "STRUCT" || want == "ARRAY" {
		return strings.HasPrefix(got, want)
	}
	return got == want
}

func equalArray(t *Type, want array, got []any) string {
	elem := t.Elem
	if want.Elem != nil {
		elem = want.Elem
	}
	if len(got) != len(want.Elems) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want.Elems))
	}
	if want.Ordered {
		for i := range got {
			if d := equal(elem, want.Elems[i], got[i]); d != "" {
				return fmt.Sprintf("[%d]: %s", i, d)
			}
		}
		return ""
	}
	// Unordered: each expected element matches a distinct got element.
	used := make([]bool, len(got))
	for i, w := range want.Elems {
		found := false
		for j, g := range got {
			if !used[j] && equal(elem, w, g) == "" {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return fmt.Sprintf("expected element %d (%s) missing", i, show(w))
		}
	}
	return ""
}

func show(v Value) string {
	b, _ := json.Marshal(v)
	return clip(string(b))
}

// equal compares one expected value of type t with the engine's value.
func equal(t *Type, want Value, got any) string {
	if want == nil || got == nil {
		if want == nil && got == nil {
			return ""
		}
		return fmt.Sprintf("got %v, want %s", got, show(want))
	}
	mismatch := func() string { return fmt.Sprintf("got %v, want %s", got, show(want)) }
	switch t.Name {
	case "ARRAY":
		a, ok := want.(array)
		g, ok2 := got.([]any)
		if !ok || !ok2 {
			return mismatch()
		}
		return equalArray(t, a, g)
	case "STRUCT":
		w, ok := want.([]Value)
		var g []any
		switch x := got.(type) {
		case []any:
			g = x
		case executor.Struct:
			for _, f := range x {
				g = append(g, f.Value)
			}
		}
		if !ok || len(g) != len(w) {
			return mismatch()
		}
		for i := range w {
			if d := equal(t.Fields[i], w[i], g[i]); d != "" {
				return fmt.Sprintf(".%d: %s", i, d)
			}
		}
		return ""
	case "STRING":
		if g, ok := got.(string); ok && g == want.(string) {
			return ""
		}
	case "BYTES":
		if g, ok := got.([]byte); ok && bytes.Equal(g, want.([]byte)) {
			return ""
		}
	}
	text, _ := want.(string)
	switch t.Name {
	case "INT64", "INT32", "UINT32", "UINT64":
		w, ok := new(big.Int).SetString(text, 10)
		if g, isInt := got.(int64); ok && isInt && w.IsInt64() && w.Int64() == g {
			return ""
		}
	case "DOUBLE", "FLOAT":
		if g, ok := got.(float64); ok && floatEqual(text, g) {
			return ""
		}
	case "NUMERIC", "BIGNUMERIC":
		w, ok := new(big.Rat).SetString(text)
		if g, isRat := got.(*big.Rat); ok && isRat && w.Cmp(g) == 0 {
			return ""
		}
	case "BOOL":
		if g, ok := got.(bool); ok && strconv.FormatBool(g) == text {
			return ""
		}
	case "DATE":
		if g, ok := got.(civil.Date); ok && g.String() == text {
			return ""
		}
	case "DATETIME":
		w, err := civil.ParseDateTime(strings.Replace(text, " ", "T", 1))
		if g, ok := got.(civil.DateTime); ok && err == nil && w == g {
			return ""
		}
	case "TIME":
		w, err := civil.ParseTime(text)
		if g, ok := got.(civil.Time); ok && err == nil && w == g {
			return ""
		}
	case "TIMESTAMP":
		w, err := time.Parse("2006-01-02 15:04:05.999999999-07", text)
		if g, ok := got.(time.Time); ok && err == nil && w.Equal(g) {
			return ""
		}
	case "INTERVAL":
		if g, ok := got.(string); ok && trimFraction(g) == trimFraction(text) {
			return ""
		}
	case "JSON":
		if g, ok := got.(string); ok && jsonEqual(g, text) {
			return ""
		}
	}
	return mismatch()
}

// trimFraction drops trailing zeros of an interval's fractional seconds:
// "0:0:0.200" and "0:0:0.2" are the same interval.
func trimFraction(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s[i:], " :") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func floatEqual(text string, g float64) bool {
	var w float64
	switch strings.ToLower(text) {
	case "nan":
		return math.IsNaN(g)
	case "inf", "+inf":
		w = math.Inf(1)
	case "-inf":
		w = math.Inf(-1)
	default:
		var err error
		if w, err = strconv.ParseFloat(text, 64); err != nil {
			return false
		}
	}
	if w == g {
		return true
	}
	if math.IsInf(w, 0) || math.IsInf(g, 0) || math.IsNaN(g) {
		return false
	}
	return math.Abs(w-g) <= FloatTolerance*math.Max(math.Abs(w), math.Abs(g))
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
