package pyval

import (
	"errors"
	"math"
	"testing"
	"unicode"

	"github.com/clinsql/clinsql/internal/pyfmt"
)

// The expected values in this file were produced by CPython 3.11.7: float(x)
// printed with repr(), ast.literal_eval(x) printed with repr(), and
// str.isspace() over every code point.

func TestParseFloat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		want string // repr(float(in))
	}{
		{"1", true, "1.0"},
		{"1.0", true, "1.0"},
		{" 1 ", true, "1.0"},
		{"\u0009-2.5\u000a", true, "-2.5"},
		{"\u20031\u2003", true, "1.0"},
		{"\u00851", true, "1.0"},
		{"1\u00a0", true, "1.0"},
		{"\u001c1", false, ""},
		{"1\u001c", false, ""},
		{"\u000b1\u000c", true, "1.0"},
		{"1_000", true, "1000.0"},
		{"1__0", false, ""},
		{"_1", false, ""},
		{"1_", false, ""},
		{"1e1_0", true, "10000000000.0"},
		{"1_e5", false, ""},
		{"1._5", false, ""},
		{"1_000.000_1", true, "1000.0001"},
		{"0x10", false, ""},
		{"0x1p-2", false, ""},
		{"inf", true, "inf"},
		{"-Infinity", true, "-inf"},
		{"+nan", true, "nan"},
		{"nAn", true, "nan"},
		{"-nan", true, "nan"},
		{"iNF", true, "inf"},
		{"infinit", false, ""},
		{"infinityy", false, ""},
		{"nan(1)", false, ""},
		{"1e", false, ""},
		{"1e+", false, ""},
		{"1e-05", true, "1e-05"},
		{".5", true, "0.5"},
		{"5.", true, "5.0"},
		{".", false, ""},
		{"-.5e-3", true, "-0.0005"},
		{"+-1", false, ""},
		{"--1", false, ""},
		{"", false, ""},
		{"   ", false, ""},
		{"\u0661\u0662\u0663", true, "123.0"},
		{"\uff11\uff12.\uff15", true, "12.5"},
		{"\u0660.\u0661", true, "0.1"},
		{"1\u00b2", false, ""},
		{"\u0661_\u0662", true, "12.0"},
		{"1.0f", false, ""},
		{"1,0", false, ""},
		{"1e400", true, "inf"},
		{"-1e400", true, "-inf"},
		{"1e-400", true, "0.0"},
		{"123456789.0", true, "123456789.0"},
		{"10014729", true, "10014729.0"},
		{"0.0005", true, "0.0005"},
		{"2.675", true, "2.675"},
		{"-0.0001", true, "-0.0001"},
		{"True", false, ""},
		{"None", false, ""},
		{"abc", false, ""},
		{"1 2", false, ""},
		{"1\u0000", false, ""},
		{"\U0001d7ce\U0001d7d9", true, "1.0"},
		{"\U0001d7d8", true, "0.0"},
		{"\U0001d7d8", true, "0.0"},
		{"12abc", false, ""},
		{"in_f", false, ""},
		{"E5", false, ""},
		{"1E5", true, "100000.0"},
		{"00012", true, "12.0"},
		{"0_0", true, "0.0"},
		{"1.5E+3", true, "1500.0"},
		{"inf ", true, "inf"},
		{" -inf", true, "-inf"},
	} {
		got, ok := ParseFloat(tc.in)
		if ok != tc.ok {
			t.Errorf("ParseFloat(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if ok && pyfmt.Float(got) != tc.want {
			t.Errorf("ParseFloat(%q) = %s, want %s", tc.in, pyfmt.Float(got), tc.want)
		}
	}
}

func TestParseFloatBytes(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		ok   bool
		want string
	}{
		{[]byte{0x31}, true, "1.0"},
		{[]byte{0x20, 0x31, 0x5f, 0x30, 0x20}, true, "10.0"},
		{[]byte{0x1c, 0x31}, false, ""},
		{[]byte{0xd9, 0xa1}, false, ""},
		{[]byte{0x31, 0x65, 0x35}, true, "100000.0"},
		{[]byte{0x6e, 0x61, 0x6e}, true, "nan"},
		{[]byte{0x30, 0x78, 0x31}, false, ""},
	} {
		got, ok := ParseFloatBytes(tc.in)
		if ok != tc.ok || (ok && pyfmt.Float(got) != tc.want) {
			t.Errorf("ParseFloatBytes(%q) = %s, %v; want %s, %v", tc.in, pyfmt.Float(got), ok, tc.want, tc.ok)
		}
	}
}

func TestNegativeZeroAndNaNSign(t *testing.T) {
	if f, ok := ParseFloat("-0.0"); !ok || !math.Signbit(f) {
		t.Errorf("ParseFloat(-0.0) = %v, %v; want negative zero", f, ok)
	}
	if f, ok := ParseFloat("-nan"); !ok || !math.IsNaN(f) {
		t.Errorf("ParseFloat(-nan) = %v, %v; want NaN", f, ok)
	}
}

func TestIsSpace(t *testing.T) {
	// Every code point for which CPython 3.11 str.isspace() is true.
	want := map[rune]bool{}
	for _, r := range []rune{0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
		0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000} {
		want[r] = true
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if IsSpace(r) != want[r] {
			t.Errorf("IsSpace(%U) = %v", r, IsSpace(r))
		}
	}
	if got := Strip("\x1c\u3000 a b\t\u0085"); got != "a b" {
		t.Errorf("Strip = %q", got)
	}
}

func TestDecimalValue(t *testing.T) {
	// Spot checks across scripts, including the five adjacent runs of
	// mathematical digits (U+1D7CE..U+1D7FF).
	for r, want := range map[rune]int{'0': 0, '9': 9, 0x0669: 9, 0x06f4: 4, 0x0e53: 3, 0xff10: 0,
		0x1d7ce: 0, 0x1d7d7: 9, 0x1d7d8: 0, 0x1d7e3: 1, 0x1d7ff: 9, 0x104a5: 5} {
		if got, ok := decimalValue(r); !ok || got != want {
			t.Errorf("decimalValue(%U) = %d, %v; want %d", r, got, ok, want)
		}
	}
	for _, r := range []rune{'a', 0x00b2, 0x2155, 0x4e00} {
		if _, ok := decimalValue(r); ok {
			t.Errorf("decimalValue(%U) ok, want not a decimal digit", r)
		}
	}
}

func TestLiteralEval(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		want string // repr(ast.literal_eval(in))
	}{
		{"[['iv'], ['iv drip']]", true, "[['iv'], ['iv drip']]"},
		{"[['1']]", true, "[['1']]"},
		{"[]", true, "[]"},
		{"null", false, ""}, // ValueError
		{"[[\"friedl\u00e4nder's pneumonia\"]]", true, "[[\"friedl\u00e4nder's pneumonia\"]]"},
		{"[('a', 1), ('b', 2.5)]", true, "[('a', 1), ('b', 2.5)]"},
		{"[[None, True, False]]", true, "[[None, True, False]]"},
		{"(1,)", true, "(1,)"},
		{"()", true, "()"},
		{"(1)", true, "1"},
		{"[1,]", true, "[1]"},
		{"  [1]", true, "[1]"},
		{"\u0009[1]", true, "[1]"},
		{"[1] # comment", true, "[1]"},
		{"[1,\u000a 2]", true, "[1, 2]"},
		{"'a' 'b'", true, "'ab'"},
		{"'a' b'b'", false, ""}, // SyntaxError
		{"b'\\x00\\xff'", true, "b'\\x00\\xff'"},
		{"'\\x41\\u00e9\\U0001F600\\101\\n\\t\\\\\\''", true, "\"A\u00e9\U0001f600A\\n\\t\\\\'\""},
		{"r'\\n'", true, "'\\\\n'"},
		{"rb'\\x'", true, "b'\\\\x'"},
		{"'''tri'ple'''", true, "\"tri'ple\""},
		{"\"\"\"x\"y\"\"\"", true, "'x\"y'"},
		{"'\\d'", true, "'\\\\d'"},
		{"-1", true, "-1"},
		{"+1.5", true, "1.5"},
		{"--1", false, ""}, // ValueError
		{"-(1)", true, "-1"},
		{"- 1", true, "-1"},
		{"-True", false, ""}, // ValueError
		{"1_000", true, "1000"},
		{"0x1F", true, "31"},
		{"0o17", true, "15"},
		{"0b101", true, "5"},
		{"0_0", true, "0"},
		{"00", true, "0"},
		{"01", false, ""}, // SyntaxError
		{"1.", true, "1.0"},
		{".5", true, "0.5"},
		{"1e5", true, "100000.0"},
		{"1E-5", true, "1e-05"},
		{"1.e2", true, "100.0"},
		{"f'x'", false, ""},          // ValueError
		{"abc", false, ""},           // ValueError
		{"[1 2]", false, ""},         // SyntaxError
		{"[1,,2]", false, ""},        // SyntaxError
		{"'unterminated", false, ""}, // SyntaxError
		{"'a\u000ab'", false, ""},    // SyntaxError
		{"1abc", false, ""},          // SyntaxError
		{"12345678901234567890123", true, "12345678901234567890123"},
		{"[[1e400]]", true, "[[inf]]"},
		{"[['a'], ['b']]", true, "[['a'], ['b']]"},
		{"' '", true, "' '"},
		{"u'x'", true, "'x'"},
		{"B'y'", true, "b'y'"},
		{"Rb'\\\\'", true, "b'\\\\\\\\'"},
		{"[[[]]]", true, "[[[]]]"},
		{"[1] [2]", false, ""}, // ValueError
		{"\\\u000a[1]", true, "[1]"},
		{"[\\\u000a1]", true, "[1]"},
		{"'\\x07\\x7f\\x85\\xa0\\u2028\\u00ad'", true, "'\\x07\\x7f\\x85\\xa0\\u2028\\xad'"},
		{"['a\"b', \"c'd\", 'e\\'f\"g']", true, "['a\"b', \"c'd\", 'e\\'f\"g']"},
		{"b'a\\'b\"'", true, "b'a\\'b\"'"},
		{"[b'\\x80', b'x\"']", true, "[b'\\x80', b'x\"']"},
		{"(('a',),)", true, "(('a',),)"},
		{"[0.1, -0.0, 1e16, 1e-5, 123456789.0]", true, "[0.1, -0.0, 1e+16, 1e-05, 123456789.0]"},
	} {
		v, err := LiteralEval(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("LiteralEval(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrNotLiteral) {
				t.Errorf("LiteralEval(%q) err = %v, want ErrNotLiteral", tc.in, err)
			}
			continue
		}
		if got := Repr(v); got != tc.want {
			t.Errorf("Repr(LiteralEval(%q)) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestLiteralEvalUnsupported(t *testing.T) {
	// Python accepts these, but the engine does not model them, so it must
	// say so rather than call them "not a literal".
	for _, in := range []string{"1j", "[1+2j]", "{1: 2}", "{1}", "'\\N{BULLET}'", "'\\ud800'"} {
		if _, err := LiteralEval(in); !errors.Is(err, ErrUnsupported) {
			t.Errorf("LiteralEval(%q) err = %v, want ErrUnsupported", in, err)
		}
	}
}

func TestReprBytes(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{[]byte("a'b\"c\\\x00\x7f\xff\n\t\r"), `b'a\'b"c\\\x00\x7f\xff\n\t\r'`},
		{[]byte("a'b"), `b"a'b"`},
		{[]byte(`a"b`), `b'a"b'`},
		{nil, `b''`},
	} {
		if got := Repr(tc.in); got != tc.want {
			t.Errorf("Repr(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
