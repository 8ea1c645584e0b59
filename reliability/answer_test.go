package reliability

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/pyval"
)

// Expected values are CPython 3.11's process_item: str(round(float(x), 3))
// when float(x) succeeds, str(x) otherwise, for the Python value that the
// sqlite3 module returns for each Go value (int64 int, float64 float, string
// str, []byte bytes, nil None).
func TestNormalizeCell(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{int64(1), "1.0"},
		{int64(0), "0.0"},
		{int64(-7), "-7.0"},
		{int64(10014729), "10014729.0"},
		{int64(9223372036854775807), "9.223372036854776e+18"},
		{int64(12345678901234567), "1.2345678901234568e+16"},
		{1.0, "1.0"},
		{123456789.0, "123456789.0"},
		{1e-05, "0.0"},
		{0.0005, "0.001"},
		{0.0625, "0.062"},
		{2.675, "2.675"},
		{-0.0001, "-0.0"},
		{1e16, "1e+16"},
		{1234567.0, "1234567.0"},
		{20.625000000000004, "20.625"},
		{3.5505335661621964, "3.551"},
		{math.Inf(1), "inf"},
		{math.NaN(), "nan"},
		{1e300, "1e+300"},
		{-2.5e-4, "-0.0"},
		{"1", "1.0"},
		{" 1 ", "1.0"},
		{"1.0", "1.0"},
		{"1e-05", "0.0"},
		{"abc", "abc"},
		{"NaN", "nan"},
		{"-inf", "-inf"},
		{"1_000", "1000.0"},
		{"0x10", "0x10"},
		{"10014729", "10014729.0"},
		{"", ""},
		{"  ", "  "},
		{"2100-01-01 00:00:00", "2100-01-01 00:00:00"},
		{"icd9|4019", "icd9|4019"},
		{"Ab C", "Ab C"},
		{"\u0661", "1.0"},
		{nil, "None"},
		{true, "1.0"},
		{false, "0.0"},
		{[]byte("1"), "1.0"},
		{[]byte("ab"), "b'ab'"},
		{[]byte{0, 0xff}, "b'\\x00\\xff'"},
		{[]byte{}, "b''"},
	} {
		if got := NormalizeCell(tc.in); got != tc.want {
			t.Errorf("NormalizeCell(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Expected values are CPython 3.11's process_answer (literal_eval first) on
// each string.
func TestNormalizeText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[['1']]", "[['1.0']]"},
		{"[['iv'], ['iv drip']]", "[['iv'], ['iv drip']]"},
		{"[]", "[]"},
		{"null", "null"},
		{"'null'", "null"},
		{"[[1, 'a', None, True, 2.5]]", "[['1.0', 'a', 'None', '1.0', '2.5']]"},
		{"[('b',), ('a',)]", "[['a'], ['b']]"},
		{"['ab']", "[['a', 'b']]"},
		{"[b'12']", "[['49.0', '50.0']]"},
		{"abc", "abc"},
		{"'x'", "x"},
		{"[[[1]]]", "[['[1]']]"},
		{"[['10014729']]", "[['10014729.0']]"},
		{"[['1e-05'], ['0.0005'], ['1'], ['1.0'], [' 1 ']]", "[['0.0'], ['0.001'], ['1.0'], ['1.0'], ['1.0']]"},
		{"[['b', 'a'], ['a'], ['a', 'b'], ['B']]", "[['B'], ['a'], ['a', 'b'], ['b', 'a']]"},
		{"[[\"friedl\u00e4nder's pneumonia\"], ['Zeta'], ['alpha'], ['\u00e4rger']]", "[['Zeta'], ['alpha'], [\"friedl\u00e4nder's pneumonia\"], ['\u00e4rger']]"},
		{"([1],)", "[['1.0']]"},
		{"[[12345678901234567890123456789]]", "[['1.2345678901234568e+28']]"},
		{"[[10**400]]", "[[10**400]]"},
		{"[['x'], ['x'], ['x']]", "[['x'], ['x'], ['x']]"},
		{"[[b'ab']]", "[[\"b'ab'\"]]"},
		{"[['a\\\\nb']]", "[['a\\\\nb']]"},
		{"[[\"it's\"]]", "[[\"it's\"]]"},
	} {
		a, err := NormalizeText(tc.in)
		if err != nil {
			t.Errorf("NormalizeText(%q): %v", tc.in, err)
			continue
		}
		if got := a.Python(); got != tc.want {
			t.Errorf("NormalizeText(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// Python raises TypeError on these: not a sequence of rows.
	for _, in := range []string{"[1]", "5", "[None]", "None"} {
		if _, err := NormalizeText(in); !errors.Is(err, ErrAnswerShape) {
			t.Errorf("NormalizeText(%q) err = %v, want ErrAnswerShape", in, err)
		}
	}
	if _, err := NormalizeText("[{1: 2}]"); !errors.Is(err, pyval.ErrUnsupported) {
		t.Errorf("dict: %v", err)
	}
}

func TestNormalizeCutsAfterSorting(t *testing.T) {
	// 150 rows 0..149 as integers: as strings '0.0', '1.0', '10.0',
	// '100.0', ... sorted, the first 100 end with '53.0' (CPython).
	res := &executor.Result{}
	for i := range 150 {
		res.Rows = append(res.Rows, []any{int64(149 - i)})
	}
	a := Normalize(res)
	if a.Kind != KindRows || len(a.Rows) != 100 || a.TotalRows != 150 ||
		a.Rows[0][0] != "0.0" || a.Rows[3][0] != "100.0" || a.Rows[99][0] != "53.0" {
		t.Errorf("cut: kind %s, %d rows of %d, first %v, last %v", a.Kind, len(a.Rows), a.TotalRows, a.Rows[0], a.Rows[len(a.Rows)-1])
	}
	// The same through NormalizeText.
	var b strings.Builder
	b.WriteString("[")
	for i := range 150 {
		fmt.Fprintf(&b, "['%d'], ", i)
	}
	b.WriteString("]")
	t2, err := NormalizeText(b.String())
	if err != nil || !t2.Equal(a) {
		t.Errorf("NormalizeText: %v, equal %v", err, t2.Equal(a))
	}
}

func TestNormalizeTruncatedIsError(t *testing.T) {
	a := Normalize(&executor.Result{Rows: [][]any{{int64(1)}}, Truncated: true, TotalRows: 5})
	if a.Kind != KindError || a.Class != executor.ClassRowLimit {
		t.Errorf("%+v", a)
	}
	a = Normalize(&executor.Result{Rows: [][]any{{int64(1)}}, Truncated: true, ByteCapped: true, TotalRows: 5})
	if a.Kind != KindError || a.Class != executor.ClassBytesLimit || !strings.Contains(a.Error, "byte cap") {
		t.Errorf("byte capped: %+v", a)
	}
}

func TestAnswerEqual(t *testing.T) {
	rows := func(r ...string) Answer {
		a := Answer{Kind: KindRows}
		for _, c := range r {
			a.Rows = append(a.Rows, []string{c})
		}
		return a
	}
	for _, tc := range []struct {
		a, b Answer
		want bool
	}{
		{rows("1.0"), rows("1.0"), true},
		{rows("1.0"), rows("1.0", "1.0"), false},
		{rows(), rows(), true},
		{rows(), Answer{Kind: KindText, Text: "[]"}, true},
		{rows("a"), Answer{Kind: KindText, Text: "[['a']]"}, true},
		{rows("a"), Answer{Kind: KindText, Text: "[['a'] ]"}, false},
		{Answer{Kind: KindText, Text: "x"}, Answer{Kind: KindText, Text: "x"}, true},
		{Answer{Kind: KindError}, Answer{Kind: KindError}, false},
		{Answer{Kind: KindAbstain}, Answer{Kind: KindAbstain}, true},
		{Answer{Kind: KindAbstain}, rows(), false},
		{Answer{Kind: KindAbstain}, Answer{Kind: KindText, Text: "null"}, false},
		{Answer{Kind: KindRows, Rows: [][]string{{"a", "b"}}}, Answer{Kind: KindRows, Rows: [][]string{{"b", "a"}}}, false},
	} {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("%+v == %+v: %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := tc.b.Equal(tc.a); got != tc.want {
			t.Errorf("%+v == %+v (swapped): %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestAbstention(t *testing.T) {
	for _, tc := range []struct {
		a       Abstention
		sql     string
		abstain bool
	}{
		{Abstention{}, "null", true},
		{Abstention{}, "  null\n", true},
		{Abstention{}, "\tnull\t", true}, // Python's strip() takes tabs too
		{Abstention{}, "NULL", false},
		{Abstention{}, "Null", false},
		{Abstention{}, "null;", false},
		{Abstention{}, "'null'", false},
		{Abstention{}, "", false},
		{Abstention{}, "None", false},
		{Abstention{}, "SELECT null", false},
		{Abstention{Lenient: true}, "NULL", true},
		{Abstention{Lenient: true}, " Null ; ", true},
		{Abstention{Lenient: true}, "'null'", true},
		{Abstention{Lenient: true}, "`NULL`;", true},
		{Abstention{Lenient: true}, "", true},
		{Abstention{Lenient: true}, "None", false},
		{Abstention{Lenient: true}, "SELECT NULL", false},
		{Abstention{Marker: "ABSTAIN"}, "ABSTAIN", true},
		{Abstention{Marker: "ABSTAIN"}, "null", false},
		{Abstention{Marker: "ABSTAIN", Lenient: true}, "abstain;", true},
	} {
		if got := tc.a.Matches(tc.sql); got != tc.abstain {
			t.Errorf("%+v.Matches(%q) = %v, want %v", tc.a, tc.sql, got, tc.abstain)
		}
	}
}
