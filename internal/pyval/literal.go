package pyval

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Values returned by LiteralEval, one Go type per Python type:
//
//	None   nil
//	bool   bool
//	int    *big.Int
//	float  float64
//	str    string
//	bytes  Bytes
//	list   List
//	tuple  Tuple
type (
	Bytes []byte
	List  []any
	Tuple []any
)

// ErrNotLiteral is wrapped by LiteralEval's error when Python's
// ast.literal_eval would raise (SyntaxError or ValueError): the text is not a
// Python literal. Callers that mirror `try: literal_eval(x) except: pass`
// keep the text as it is.
var ErrNotLiteral = errors.New("not a Python literal")

// ErrUnsupported is wrapped by LiteralEval's error when the text is a literal
// Python would accept but this package does not model (dict, set, complex,
// \N{...} escapes). Callers must not guess what Python would do with it.
var ErrUnsupported = errors.New("Python literal not supported")

// LiteralEval parses s as Python's ast.literal_eval does, for the literal
// forms listed on the value types above: containers with trailing commas,
// parenthesised expressions, single, double and triple-quoted strings with
// r/u/b prefixes and escapes, implicit string concatenation, int in any base
// with underscores, floats, a single unary sign on numbers, None, True,
// False, comments and line continuations.
func LiteralEval(s string) (any, error) {
	// literal_eval strips leading spaces and tabs before parsing.
	p := &litParser{s: strings.TrimLeft(s, " \t")}
	v, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i < len(p.s) {
		return nil, p.fail("unexpected %q", p.rest())
	}
	return v, nil
}

type litParser struct {
	s     string
	i     int
	depth int
}

func (p *litParser) rest() string {
	r := p.s[p.i:]
	if len(r) > 20 {
		r = r[:20] + "..."
	}
	return r
}

func (p *litParser) fail(format string, a ...any) error {
	return fmt.Errorf("%w: offset %d: %s", ErrNotLiteral, p.i, fmt.Sprintf(format, a...))
}

func (p *litParser) unsupported(what string) error {
	return fmt.Errorf("%w: offset %d: %s", ErrUnsupported, p.i, what)
}

// skip passes whitespace, comments and backslash line continuations. Inside
// brackets Python joins lines implicitly; at the top level of an eval-mode
// expression a newline can only end it, and whatever follows is rejected by
// the caller, so treating newlines as whitespace accepts nothing extra.
func (p *litParser) skip() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != '\r' {
				p.i++
			}
		case c == '\\' && p.i+1 < len(p.s) && (p.s[p.i+1] == '\n' || p.s[p.i+1] == '\r'):
			p.i += 2
		default:
			return
		}
	}
}

func (p *litParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

const maxLiteralDepth = 200

func (p *litParser) expr() (any, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxLiteralDepth {
		return nil, p.fail("nesting too deep")
	}
	p.skip()
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end")
	}
	c := p.s[p.i]
	switch {
	case c == '[':
		p.i++
		items, _, err := p.items(']')
		return List(items), err
	case c == '(':
		p.i++
		items, tuple, err := p.items(')')
		if err != nil {
			return nil, err
		}
		if !tuple {
			return items[0], nil
		}
		return Tuple(items), nil
	case c == '{':
		return nil, p.unsupported("dict or set")
	case c == '+' || c == '-':
		// literal_eval allows one sign on a number constant, which may sit
		// in parentheses ("-(1)"), but not on another signed number ("--1").
		p.i++
		p.skip()
		parens := 0
		for p.peek() == '(' {
			p.i++
			parens++
			p.skip()
		}
		v, err := p.number()
		if err != nil {
			return nil, err
		}
		if err := p.complexTail(); err != nil {
			return nil, err
		}
		for ; parens > 0; parens-- {
			p.skip()
			if p.peek() != ')' {
				return nil, p.fail("expected ')'")
			}
			p.i++
		}
		if c == '-' {
			switch n := v.(type) {
			case *big.Int:
				return n.Neg(n), nil
			case float64:
				return -n, nil
			}
		}
		return v, nil
	case c == '.' || isDigit(c):
		v, err := p.number()
		if err != nil {
			return nil, err
		}
		return v, p.complexTail()
	case isNameStart(c):
		if q, ok := p.stringPrefix(); ok {
			p.i += len(q)
			return p.strings(strings.ToLower(q))
		}
		return p.name()
	case c == '\'' || c == '"':
		return p.strings("")
	}
	return nil, p.fail("unexpected %q", p.rest())
}

// items parses the elements of a list or tuple up to close. tuple reports
// whether a parenthesised form is a tuple (empty, or with a comma) rather
// than a grouped expression.
func (p *litParser) items(close byte) ([]any, bool, error) {
	items := []any{}
	comma, anyComma := false, false
	for {
		p.skip()
		if p.peek() == close {
			p.i++
			return items, len(items) == 0 || anyComma, nil
		}
		if len(items) > 0 && !comma {
			return nil, false, p.fail("expected ',' or %q", close)
		}
		v, err := p.expr()
		if err != nil {
			return nil, false, err
		}
		items = append(items, v)
		p.skip()
		comma = false
		if p.peek() == ',' {
			p.i++
			comma, anyComma = true, true
		}
	}
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= utf8.RuneSelf
}

func isNameChar(c byte) bool { return isNameStart(c) || isDigit(c) }

func (p *litParser) name() (any, error) {
	j := p.i
	for j < len(p.s) && isNameChar(p.s[j]) {
		j++
	}
	switch p.s[p.i:j] {
	case "None":
		p.i = j
		return nil, nil
	case "True":
		p.i = j
		return true, nil
	case "False":
		p.i = j
		return false, nil
	}
	return nil, p.fail("name %q is not a literal", p.s[p.i:j])
}

// stringPrefix returns the string prefix (r, u, b, br, rb in any case) that
// starts a string literal at the cursor.
func (p *litParser) stringPrefix() (string, bool) {
	for n := 2; n >= 1; n-- {
		if p.i+n >= len(p.s) {
			continue
		}
		q := p.s[p.i+n]
		if q != '\'' && q != '"' {
			continue
		}
		switch strings.ToLower(p.s[p.i : p.i+n]) {
		case "r", "u", "b", "br", "rb":
			return p.s[p.i : p.i+n], true
		case "f", "fr", "rf":
			// f-strings are JoinedStr nodes, which literal_eval rejects.
			return "", false
		}
	}
	return "", false
}

// strings parses one or more adjacent string literals (implicit
// concatenation); the cursor is after the first literal's (lowercased)
// prefix.
func (p *litParser) strings(prefix string) (any, error) {
	var sb strings.Builder
	kind := -1 // 0 str, 1 bytes
	for {
		isBytes := strings.Contains(prefix, "b")
		k := 0
		if isBytes {
			k = 1
		}
		if kind >= 0 && kind != k {
			return nil, p.fail("cannot mix bytes and nonbytes literals")
		}
		kind = k
		if err := p.stringBody(&sb, strings.Contains(prefix, "r"), isBytes); err != nil {
			return nil, err
		}
		p.skip()
		c := p.peek()
		switch {
		case c == '\'' || c == '"':
			prefix = ""
		case isNameStart(c):
			q, ok := p.stringPrefix()
			if !ok {
				return p.finishString(sb.String(), kind)
			}
			p.i += len(q)
			prefix = strings.ToLower(q)
		default:
			return p.finishString(sb.String(), kind)
		}
	}
}

func (p *litParser) finishString(s string, kind int) (any, error) {
	if kind == 1 {
		return Bytes(s), nil
	}
	return s, nil
}

// stringBody parses the quoted part of one literal and appends its value
// (UTF-8 for str, raw bytes for bytes) to sb.
func (p *litParser) stringBody(sb *strings.Builder, raw, isBytes bool) error {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	if triple {
		p.i += 3
	} else {
		p.i++
	}
	for {
		if p.i >= len(p.s) {
			return p.fail("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == q && (!triple || strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))):
			if triple {
				p.i += 3
			} else {
				p.i++
			}
			return nil
		case !triple && (c == '\n' || c == '\r'):
			return p.fail("unterminated string")
		case isBytes && c >= utf8.RuneSelf:
			return p.fail("bytes can only contain ASCII literal characters")
		case c == '\\':
			if raw {
				// A raw literal keeps the backslash and the next character,
				// which the backslash still prevents from ending the literal.
				sb.WriteByte('\\')
				p.i++
				if p.i < len(p.s) {
					if isBytes && p.s[p.i] >= utf8.RuneSelf {
						return p.fail("bytes can only contain ASCII literal characters")
					}
					_, n := utf8.DecodeRuneInString(p.s[p.i:])
					sb.WriteString(p.s[p.i : p.i+n])
					p.i += n
				}
				continue
			}
			if err := p.escape(sb, isBytes); err != nil {
				return err
			}
		case c == '\r':
			// Python's tokenizer translates \r\n and \r in source to \n.
			sb.WriteByte('\n')
			p.i++
			if p.peek() == '\n' {
				p.i++
			}
		default:
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			sb.WriteString(p.s[p.i : p.i+n])
			p.i += n
		}
	}
}

func (p *litParser) escape(sb *strings.Builder, isBytes bool) error {
	p.i++ // the backslash
	if p.i >= len(p.s) {
		return p.fail("unterminated string")
	}
	c := p.s[p.i]
	p.i++
	simple := map[byte]byte{'\\': '\\', '\'': '\'', '"': '"', 'a': 7, 'b': 8, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11}
	if b, ok := simple[c]; ok {
		sb.WriteByte(b)
		return nil
	}
	switch {
	case c == '\n':
		return nil
	case c == '\r':
		if p.peek() == '\n' {
			p.i++
		}
		return nil
	case c >= '0' && c <= '7':
		v := int(c - '0')
		for k := 0; k < 2 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
			v = v*8 + int(p.s[p.i]-'0')
			p.i++
		}
		if isBytes {
			sb.WriteByte(byte(v)) // Python keeps the low byte of \400 and above
			return nil
		}
		sb.WriteRune(rune(v))
		return nil
	case c == 'x':
		v, err := p.hexDigits(2)
		if err != nil {
			return err
		}
		if isBytes {
			sb.WriteByte(byte(v))
		} else {
			sb.WriteRune(rune(v))
		}
		return nil
	case !isBytes && (c == 'u' || c == 'U'):
		n := 4
		if c == 'U' {
			n = 8
		}
		v, err := p.hexDigits(n)
		if err != nil {
			return err
		}
		if v > utf8.MaxRune {
			return p.fail("illegal Unicode character")
		}
		if v >= 0xd800 && v <= 0xdfff {
			return p.unsupported("lone surrogate escape")
		}
		sb.WriteRune(rune(v))
		return nil
	case !isBytes && c == 'N':
		return p.unsupported(`\N{...} escape`)
	}
	// Unknown escapes keep the backslash (with a DeprecationWarning).
	sb.WriteByte('\\')
	p.i--
	return nil
}

func (p *litParser) hexDigits(n int) (int, error) {
	if p.i+n > len(p.s) {
		return 0, p.fail("truncated escape")
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
	if err != nil || strings.ContainsAny(p.s[p.i:p.i+n], "+-_") {
		return 0, p.fail("truncated escape")
	}
	p.i += n
	return int(v), nil
}

// number parses an int or float token (no sign).
func (p *litParser) number() (any, error) {
	j := p.i
	s := p.s
	if j >= len(s) || !(isDigit(s[j]) || s[j] == '.') {
		return nil, p.fail("expected a number")
	}
	// Integers with a base prefix.
	if s[j] == '0' && j+1 < len(s) && strings.ContainsRune("xXoObB", rune(s[j+1])) {
		base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[s[j+1]|0x20]
		k := j + 2
		for k < len(s) && (isHex(s[k]) || s[k] == '_') {
			k++
		}
		tok := s[j+2 : k]
		if strings.HasPrefix(tok, "_") {
			tok = tok[1:] // 0x_1f is valid
		}
		if !underscoresOK(tok) || tok == "" {
			return nil, p.fail("invalid number")
		}
		v, ok := new(big.Int).SetString(strings.ReplaceAll(tok, "_", ""), base)
		if !ok {
			return nil, p.fail("invalid number")
		}
		p.i = k
		return v, p.noNameAfter()
	}
	k := j
	digits := func() {
		for k < len(s) && (isDigit(s[k]) || s[k] == '_') {
			k++
		}
	}
	digits()
	isFloat := false
	if k < len(s) && s[k] == '.' {
		isFloat = true
		k++
		digits()
	}
	if k < len(s) && (s[k] == 'e' || s[k] == 'E') {
		m := k + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			isFloat = true
			k = m
			digits()
		}
	}
	tok := s[j:k]
	if tok == "." {
		return nil, p.fail("invalid number")
	}
	for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == 'e' || r == 'E' || r == '+' || r == '-' }) {
		if !underscoresOK(part) {
			return nil, p.fail("invalid number")
		}
	}
	p.i = k
	if k < len(s) && (s[k] == 'j' || s[k] == 'J') {
		return nil, p.unsupported("complex number")
	}
	clean := strings.ReplaceAll(tok, "_", "")
	if isFloat {
		f, err := strconv.ParseFloat(clean, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				return nil, p.fail("invalid number")
			}
		}
		return f, p.noNameAfter()
	}
	// Decimal integers: no leading zeros except for zero itself.
	if len(clean) > 1 && clean[0] == '0' && strings.Trim(clean, "0") != "" {
		return nil, p.fail("leading zeros in decimal integer literals are not permitted")
	}
	v, _ := new(big.Int).SetString(clean, 10)
	return v, p.noNameAfter()
}

// complexTail reports ErrUnsupported for "real ± imaginary" after a number,
// which literal_eval accepts as a complex constant. Any other operator is
// left for the caller to reject as not a literal.
func (p *litParser) complexTail() error {
	save := p.i
	defer func() { p.i = save }()
	p.skip()
	if c := p.peek(); c != '+' && c != '-' {
		return nil
	}
	p.i++
	p.skip()
	if _, err := p.number(); errors.Is(err, ErrUnsupported) {
		return err
	}
	return nil
}

// noNameAfter rejects a number glued to a name ("1abc").
func (p *litParser) noNameAfter() error {
	if p.i < len(p.s) && isNameChar(p.s[p.i]) {
		return p.fail("invalid number")
	}
	return nil
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// underscoresOK: single underscores between digits only.
func underscoresOK(s string) bool {
	return !strings.HasPrefix(s, "_") && !strings.HasSuffix(s, "_") && !strings.Contains(s, "__")
}
