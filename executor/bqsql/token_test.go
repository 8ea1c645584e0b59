package bqsql

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func kinds(toks []Token) string {
	var parts []string
	for _, t := range toks {
		if t.Kind == Space {
			continue
		}
		parts = append(parts, t.Kind.String()+":"+t.Text)
	}
	return strings.Join(parts, " ")
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"keywords and names", "SELECT a1, _b FROM t", "identifier:SELECT identifier:a1 punctuation:, identifier:_b identifier:FROM identifier:t"},
		{"backticked path", "`physionet-data.mimiciv_3_1_hosp.patients` p", "quoted identifier:`physionet-data.mimiciv_3_1_hosp.patients` identifier:p"},
		{"split path", "`physionet-data`.mimiciv_3_1_hosp.x", "quoted identifier:`physionet-data` punctuation:. identifier:mimiciv_3_1_hosp punctuation:. identifier:x"},
		{"escaped backtick", "`a\\`b`", "quoted identifier:`a\\`b`"},
		{"single and double quotes", `'a' "b"`, "string:'a' string:\"b\""},
		{"quote escapes", `'it\'s' "say \"hi\""`, `string:'it\'s' string:"say \"hi\""`},
		{"triple quotes", `'''a'b''c''' """x"y"""`, `string:'''a'b''c''' string:"""x"y"""`},
		{"triple quotes span lines", "'''a\nb'''", "string:'''a\nb'''"},
		{"raw strings", `r'\d+' R"\w" r'''x'''`, `string:r'\d+' string:R"\w" string:r'''x'''`},
		{"raw string keeps an escaped quote", `r'a\'b'`, `string:r'a\'b'`},
		{"bytes", `b'ab' B"\x00" rb'\n' BR"x"`, `bytes:b'ab' bytes:B"\x00" bytes:rb'\n' bytes:BR"x"`},
		{"an identifier called r", "r + b", "identifier:r punctuation:+ identifier:b"},
		{"numbers", "1 1.5 .5 1. 1e10 2.5E-3 0x1F", "number:1 number:1.5 number:.5 number:1. number:1e10 number:2.5E-3 number:0x1F"},
		{"comments", "a -- x\nb # y\nc /* z\n */ d", "identifier:a comment:-- x identifier:b comment:# y identifier:c comment:/* z\n */ identifier:d"},
		{"operators", "a<=b<>c!=d||e>=f<<g>>h=>i::j", "identifier:a punctuation:<= identifier:b punctuation:<> identifier:c punctuation:!= identifier:d punctuation:|| identifier:e punctuation:>= identifier:f punctuation:<< identifier:g punctuation:>> identifier:h punctuation:=> identifier:i punctuation::: identifier:j"},
		{"brackets", "f(x)[OFFSET(1)]", "identifier:f punctuation:( identifier:x punctuation:) punctuation:[ identifier:OFFSET punctuation:( number:1 punctuation:) punctuation:]"},
		{"parameters", "@p @@session ?", "parameter:@p parameter:@@session parameter:?"},
		{"minus minus is a comment", "1--2", "number:1 comment:--2"},
		{"dash in a name", "physionet-data", "identifier:physionet punctuation:- identifier:data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			toks, err := Tokenize(c.in)
			if err != nil {
				t.Fatalf("Tokenize(%q): %v", c.in, err)
			}
			if got := kinds(toks); got != c.want {
				t.Errorf("Tokenize(%q)\n got %s\nwant %s", c.in, got, c.want)
			}
		})
	}
}

func TestTokenizeErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"SELECT 'abc", "Unclosed string literal"},
		{"SELECT 'a\nb'", "Unclosed string literal"},
		{`SELECT """abc`, "Unclosed string literal"},
		{"SELECT `abc", "Unclosed identifier literal"},
		{"SELECT 1 /* x", "Unclosed comment"},
		{"SELECT 1 – 2", "Illegal input character"}, // an en dash
		{"SELECT 'a\\", "Unclosed string literal"},
	}
	for _, c := range cases {
		toks, err := Tokenize(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Tokenize(%q) error = %v, want %q", c.in, err, c.msg)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Tokenize(%q) error %v is not ErrInvalid", c.in, err)
		}
		if got := joinTokens(toks); got != c.in {
			t.Errorf("tokens of %q join to %q", c.in, got)
		}
	}
	_, err := Tokenize("SELECT\n  'abc")
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || e.Col != 3 {
		t.Errorf("position of unclosed literal = %+v, want line 2 col 3", err)
	}
}

func TestTokenValue(t *testing.T) {
	cases := []struct{ in, want string }{
		{`'a\nb'`, "a\nb"},
		{`"q\"q"`, `q"q`},
		{`'\x41\101\u00e9\U0001F600'`, "AAé😀"},
		{`r'\d\n'`, `\d\n`},
		{`'''a'b'''`, "a'b"},
		{`b'\xff'`, "\xff"},
		// In a STRING a hex or octal escape is a character (U+00E2, ...),
		// in BYTES a byte: BigQuery counts "\xE2\x82\xAC" as three
		// characters.
		{`'\xE2\x82\xAC'`, "\u00e2\u0082\u00ac"},
		{`'\342'`, "\u00e2"},
		{`b'\xE2\x82\xAC'`, "€"},
		{`b'\342\202\254'`, "€"},
		{"`a\\`b`", "a`b"},
		{`'\\'`, `\`},
	}
	for _, c := range cases {
		toks, err := Tokenize(c.in)
		if err != nil || len(toks) != 1 {
			t.Fatalf("Tokenize(%q) = %v, %v", c.in, toks, err)
		}
		got, err := toks[0].Value()
		if err != nil || got != c.want {
			t.Errorf("Value(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`'\q'`, `'\x4'`, `'\u12'`, `'\400'`} {
		toks, _ := Tokenize(bad)
		if _, err := toks[0].Value(); err == nil {
			t.Errorf("Value(%s) accepted an illegal escape", bad)
		}
	}
}

func joinTokens(toks []Token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.Text)
	}
	return b.String()
}

// FuzzTokenize checks that tokenizing never panics, loses or reorders
// input, and that every token starts where the previous one ended.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"SELECT `physionet-data.mimiciv_3_1_hosp.patients`", `r'\'' "a\"" '''x'''`, "a--b\n#c\n/* d */",
		"b'\\xff' rb\"\\\\\"", "0x1F 1.5e-3 .5", "x::int @p @@q ?", "'unterminated", "`unterminated", "/*",
		"\xff\xfe", "–", "'''", `"""a""`, "r'", "\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks, _ := Tokenize(s)
		pos := 0
		for _, tok := range toks {
			if tok.Pos != pos || tok.Text == "" {
				t.Fatalf("token %+v at %d, want position %d and non-empty text", tok, tok.Pos, pos)
			}
			pos += len(tok.Text)
			if tok.Kind == String || tok.Kind == Bytes || tok.Kind == QuotedIdent {
				tok.Value() // must not panic
			}
		}
		if got := joinTokens(toks); got != s {
			t.Fatalf("tokens of %q join to %q", s, got)
		}
	})
}

// FuzzTranslate checks that translation never panics (Translate turns a
// panic into an "internal translator error", which must not happen) and
// always returns either SQL or a classified *Error.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{
		"SELECT APPROX_QUANTILES(x, 100)[OFFSET(50)] FROM `physionet-data.mimiciv_3_1_hosp.patients`",
		"SELECT DATETIME_DIFF(a, b, HOUR) / 24 FROM t WHERE x IN UNNEST([1, 2])",
		"SELECT * EXCEPT (a) FROM UNNEST([STRUCT(1 AS a)]) AS t WITH OFFSET",
		"SELECT CAST(x AS ARRAY<STRUCT<a INT64>>), EXTRACT(WEEK(MONDAY) FROM d)",
		"WITH x AS (SELECT 1) SELECT IF(a, b, c) FROM x QUALIFY ROW_NUMBER() OVER () = 1",
		"SELECT a / -b * c / (d) FROM t", "SELECT [1][", "SELECT f(,)", "SELECT CAST(", "SELECT STRUCT<", "SELECT 1 /",
		"SELECT INTERVAL", "SELECT x LIKE ANY", "SELECT FORMAT_DATE('%", "SELECT DATE_ADD(d, INTERVAL)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) && len(s) > 200 {
			return
		}
		out, err := Translate(s)
		if err == nil {
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("Translate(%q) returned %T %v, want *Error", s, err, err)
		}
		if strings.Contains(e.Msg, "internal translator error") {
			t.Fatalf("Translate(%q) panicked: %v", s, err)
		}
		if out != "" {
			t.Fatalf("Translate(%q) returned both SQL and an error", s)
		}
	})
}
