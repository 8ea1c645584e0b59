package bqsql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind classifies a token.
type Kind uint8

const (
	Space       Kind = iota // spaces, tabs, newlines
	Comment                 // -- …, # …, /* … */
	Ident                   // unquoted identifier or keyword
	QuotedIdent             // `backticked identifier`, possibly a dotted path
	String                  // string literal in any quoting, raw or not
	Bytes                   // bytes literal (b'…', rb"…", …)
	Number                  // integer, decimal, exponent or hex literal
	Punct                   // operator or punctuation
	Param                   // @name, @@name or ?
	Invalid                 // unterminated literal or comment, illegal character
)

func (k Kind) String() string {
	switch k {
	case Space:
		return "space"
	case Comment:
		return "comment"
	case Ident:
		return "identifier"
	case QuotedIdent:
		return "quoted identifier"
	case String:
		return "string"
	case Bytes:
		return "bytes"
	case Number:
		return "number"
	case Punct:
		return "punctuation"
	case Param:
		return "parameter"
	case Invalid:
		return "invalid"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Token is one lexical element. Text is the exact source text, so the Text of
// all tokens of an input, in order, concatenate to that input.
type Token struct {
	Kind Kind
	Text string
	Pos  int // byte offset of Text in the input
}

// Tokenize splits BigQuery Standard SQL into tokens. Text it cannot lex
// becomes an Invalid token (an unterminated literal or comment runs to the
// end of the input), and the first such problem is also returned as an
// *Error so callers can report it the way BigQuery would. Brackets nested
// deeper than maxNesting stop it: it returns the tokens so far and an
// unsupported *Error (see buildTree).
func Tokenize(src string) ([]Token, error) {
	var (
		// About one token per 3.5 bytes in model queries: sized once,
		// grown for the few denser ones.
		toks  = make([]Token, 0, len(src)/3+8)
		first error
		depth int
	)
	for i := 0; i < len(src); {
		n, kind, msg := lexOne(src, i)
		if n <= 0 { // defensive: always make progress
			n, kind, msg = 1, Invalid, "Illegal input character"
		}
		if kind == Punct {
			switch src[i] {
			case '(', '[':
				if depth++; depth > maxNesting {
					return toks, errNesting()
				}
			case ')', ']':
				depth = max(depth-1, 0)
			}
		}
		toks = append(toks, Token{Kind: kind, Text: src[i : i+n], Pos: i})
		if kind == Invalid && first == nil {
			first = errAt(src, i, KindInvalid, "Syntax error: %s", msg)
		}
		i += n
	}
	return toks, first
}

// lexOne returns the length and kind of the token starting at src[i], and for
// Invalid tokens a BigQuery-style description of the problem.
func lexOne(src string, i int) (int, Kind, string) {
	c := src[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		j := i + 1
		for j < len(src) && strings.IndexByte(" \t\n\r\f\v", src[j]) >= 0 {
			j++
		}
		return j - i, Space, ""
	case c == '#':
		return lineComment(src, i), Comment, ""
	case c == '-' && i+1 < len(src) && src[i+1] == '-':
		return lineComment(src, i), Comment, ""
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		end := strings.Index(src[i+2:], "*/")
		if end < 0 {
			return len(src) - i, Invalid, "Unclosed comment"
		}
		return end + 4, Comment, ""
	case c == '`':
		n, ok := quoted(src, i, 1, "`", false)
		if !ok {
			return n, Invalid, "Unclosed identifier literal"
		}
		return n, QuotedIdent, ""
	case c == '\'' || c == '"':
		return stringLit(src, i, 0, String)
	case isIdentStart(c):
		// String prefixes: r, b, rb, br in any case, directly followed by a quote.
		if n, ok := literalPrefix(src, i); ok {
			kind := String
			if strings.ContainsAny(src[i:i+n], "bB") {
				kind = Bytes
			}
			return stringLit(src, i, n, kind)
		}
		j := i + 1
		for j < len(src) && isIdentPart(src[j]) {
			j++
		}
		return j - i, Ident, ""
	case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
		return number(src, i), Number, ""
	case c == '@':
		j := i + 1
		if j < len(src) && src[j] == '@' {
			j++
		}
		k := j
		for k < len(src) && isIdentPart(src[k]) {
			k++
		}
		if k == j {
			return 1, Punct, ""
		}
		return k - i, Param, ""
	case c == '?':
		return 1, Param, ""
	}
	if strings.IndexByte("<>!|=:-*/", c) >= 0 { // how multiOps start
		for _, op := range multiOps {
			if strings.HasPrefix(src[i:], op) {
				return len(op), Punct, ""
			}
		}
	}
	if strings.IndexByte("()[]{},;.+-*/%<>=!|&^~:", c) >= 0 {
		return 1, Punct, ""
	}
	// Anything else outside a literal is illegal in BigQuery; consume one
	// whole UTF-8 sequence (or one byte when it is not valid UTF-8).
	_, n := utf8.DecodeRuneInString(src[i:])
	return n, Invalid, fmt.Sprintf("Illegal input character %q", src[i:i+n])
}

// multiOps are the multi-character operators, longest first. Some are not
// BigQuery (:: and ->) but are lexed whole so the translator can reject them.
var multiOps = []string{"<=>", "<<", ">>", "<=", ">=", "<>", "!=", "||", "=>", "::", "->", "**", "//"}

func lineComment(src string, i int) int {
	end := strings.IndexByte(src[i:], '\n')
	if end < 0 {
		return len(src) - i
	}
	return end // the newline stays whitespace
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// literalPrefix reports the length of a string-literal prefix (r, b, rb, br in
// any case) at src[i] when it is directly followed by a quote.
func literalPrefix(src string, i int) (int, bool) {
	for n := 1; n <= 2 && i+n < len(src); n++ {
		c := src[i+n-1] | 0x20 // ASCII lower case
		if (c != 'r' && c != 'b') || (n == 2 && c == src[i]|0x20) {
			return 0, false // not r, b, rb or br
		}
		if q := src[i+n]; q == '\'' || q == '"' {
			return n, true
		}
	}
	return 0, false
}

// stringLit lexes a quoted literal whose prefix (r, b, …) has length pre.
func stringLit(src string, i, pre int, kind Kind) (int, Kind, string) {
	q := src[i+pre]
	delim := string(q)
	if strings.HasPrefix(src[i+pre:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	n, ok := quoted(src, i, pre+len(delim), delim, len(delim) == 1)
	if !ok {
		return n, Invalid, "Unclosed string literal"
	}
	return n, kind, ""
}

// quoted scans from src[i+start] to the closing delim. A backslash always
// protects the next character, also in raw literals (BigQuery: a raw literal
// cannot end with an odd number of backslashes). Single-line literals may not
// contain a newline. It returns the token length and whether it was closed.
func quoted(src string, i, start int, delim string, singleLine bool) (int, bool) {
	j := i + start
	for j < len(src) {
		switch {
		case src[j] == '\\':
			if j+1 >= len(src) {
				return len(src) - i, false
			}
			if singleLine && src[j+1] == '\n' {
				return j + 1 - i, false
			}
			j += 2
		case strings.HasPrefix(src[j:], delim):
			return j + len(delim) - i, true
		case singleLine && src[j] == '\n':
			return j - i, false
		default:
			j++
		}
	}
	return len(src) - i, false
}

func number(src string, i int) int {
	j := i
	if src[j] == '0' && j+1 < len(src) && (src[j+1] == 'x' || src[j+1] == 'X') &&
		j+2 < len(src) && isHex(src[j+2]) {
		j += 2
		for j < len(src) && isHex(src[j]) {
			j++
		}
		return j - i
	}
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			j = k
		}
	}
	return j - i
}

// IsFloat reports whether a Number token is a floating-point literal in
// BigQuery (it has a decimal point or an exponent).
func (t Token) IsFloat() bool {
	if t.Kind != Number || strings.HasPrefix(t.Text, "0x") || strings.HasPrefix(t.Text, "0X") {
		return false
	}
	return strings.ContainsAny(t.Text, ".eE")
}

// Value decodes a String, Bytes or QuotedIdent token to the text it denotes:
// quotes removed, escape sequences processed unless the literal is raw.
func (t Token) Value() (string, error) {
	s := t.Text
	raw := false
	switch t.Kind {
	case QuotedIdent:
		return unescape(s[1:len(s)-1], false, false)
	case String, Bytes:
		for len(s) > 0 && s[0] != '\'' && s[0] != '"' {
			if s[0] == 'r' || s[0] == 'R' {
				raw = true
			}
			s = s[1:]
		}
	default:
		return t.Text, nil
	}
	q := 1
	if len(s) >= 6 && (strings.HasPrefix(s, "'''") || strings.HasPrefix(s, `"""`)) {
		q = 3
	}
	if len(s) < 2*q {
		return "", fmt.Errorf("malformed literal %s", t.Text)
	}
	return unescape(s[q:len(s)-q], raw, t.Kind == Bytes)
}

// unescape processes BigQuery escape sequences. A hex (\xhh) or octal
// (\ooo) escape is one byte in a BYTES literal but one Unicode character,
// U+0000 to U+00FF, in a STRING literal or quoted name, as BigQuery's
// lexical reference says: "\xE2\x82\xAC" is three characters, not the
// UTF-8 encoding of one.
func unescape(s string, raw, bytes bool) (string, error) {
	put := func(b *strings.Builder, v byte) {
		if bytes {
			b.WriteByte(v)
		} else {
			b.WriteRune(rune(v))
		}
	}
	if raw || !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("illegal escape sequence: \\ at end of literal")
		}
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '?', '"', '\'', '`':
			b.WriteByte(e)
		case 'x', 'X':
			if i+3 > len(s) {
				return "", fmt.Errorf("illegal escape sequence: \\%c", e)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("illegal escape sequence: \\%s", s[i:i+3])
			}
			put(&b, byte(v))
			i += 2
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if i+n+1 > len(s) {
				return "", fmt.Errorf("illegal escape sequence: \\%c", e)
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf("illegal escape sequence: \\%s", s[i:i+1+n])
			}
			b.WriteRune(rune(v))
			i += n
		default:
			if e >= '0' && e <= '7' {
				if i+3 > len(s) {
					return "", fmt.Errorf("illegal escape sequence: \\%c", e)
				}
				v, err := strconv.ParseUint(s[i:i+3], 8, 8)
				if err != nil {
					return "", fmt.Errorf("illegal escape sequence: \\%s", s[i:i+3])
				}
				put(&b, byte(v))
				i += 2
				continue
			}
			return "", fmt.Errorf("illegal escape sequence: \\%c", e)
		}
	}
	return b.String(), nil
}
