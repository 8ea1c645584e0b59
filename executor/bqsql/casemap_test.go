package bqsql

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// upperSpecial is every character whose full uppercase (the Unicode
// Character Database's, as golang.org/x/text/cases computes it without a
// language) is not its one-character simple uppercase.
func TestCaseMappingTable(t *testing.T) {
	up := cases.Upper(language.Und)
	want := map[string]string{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		if u := up.String(string(r)); u != string(unicode.ToUpper(r)) {
			want[string(r)] = u
		}
	}
	got := map[string]string{}
	for _, p := range upperSpecial {
		got[p[0]] = p[1]
	}
	// The macros skip their special handling for ASCII-only strings.
	for _, s := range append(slices.Collect(maps.Keys(got)), "Σ", "İ") {
		if s[0] < utf8.RuneSelf {
			t.Errorf("special case %q is ASCII: bq_upper and bq_lower would skip it", s)
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("upperSpecial[%q] = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("upperSpecial has %d entries, want %d", len(got), len(want))
	}
}

// UPPER and LOWER agree with the full Unicode case mapping (x/text/cases
// without a language) on every special character, alone and inside words,
// and on Greek words whose capital sigma is or is not final.
func TestCaseMappingRules(t *testing.T) {
	db := openDuck(t)
	up, lo := cases.Upper(language.Und), cases.Lower(language.Und)
	inputs := []string{"ΟΔΟΣ", "ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ", "ΣΑΣ", "ΑΣΣ", "Σ", "Α Σ Β", "ΑΣ.", "ΑΣ, ΒΣ", "İstanbul", "ÀÉÎ", "abc XYZ", ""}
	for _, p := range upperSpecial {
		inputs = append(inputs, p[0], "x"+p[0]+"y", p[1])
	}
	lits := make([]string, len(inputs))
	for i, in := range inputs {
		lits[i] = duckString(in)
	}
	for _, c := range []struct {
		fn string
		m  cases.Caser
	}{{"UPPER", up}, {"LOWER", lo}} {
		q, err := Translate("SELECT " + c.fn + "(x) FROM UNNEST([" + strings.Join(lits, ", ") + "]) AS x WITH OFFSET AS o ORDER BY o")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := queryRows(context.Background(), db, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for i, in := range inputs {
			if want := c.m.String(in); rows[i][0] != want {
				t.Errorf("%s(%q) = %q, want %q", c.fn, in, rows[i][0], want)
			}
		}
	}
}

// LOWER and UPPER of a value BigQuery types as neither STRING nor BYTES is
// BigQuery's analysis error, worded as its own (string functions reference:
// LOWER(STRING), LOWER(BYTES)); of STRING and BYTES columns they translate.
func TestCaseMappingSignatures(t *testing.T) {
	tr := &Translator{Catalog: testCatalog}
	for _, c := range []struct{ bq, msg string }{
		{`SELECT LOWER(1)`, "No matching signature for function LOWER for argument types: INT64. Supported signatures: LOWER(STRING); LOWER(BYTES)"},
		{`SELECT UPPER(p.anchor_age) FROM physionet-data.mimiciv_3_1_hosp.patients p`, "No matching signature for function UPPER for argument types: INT64. Supported signatures: UPPER(STRING); UPPER(BYTES)"},
		{`SELECT LOWER(DATE '2020-01-01')`, "No matching signature for function LOWER for argument types: DATE. Supported signatures: LOWER(STRING); LOWER(BYTES)"},
	} {
		_, err := tr.Translate(c.bq)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Msg != c.msg {
			t.Errorf("Translate(%s): %v; want %q", c.bq, err, c.msg)
		}
	}
	for _, bq := range []string{`SELECT LOWER(p.gender) FROM physionet-data.mimiciv_3_1_hosp.patients p`, `SELECT UPPER(b'ab')`, `SELECT LOWER(NULL)`} {
		if _, err := tr.Translate(bq); err != nil {
			t.Errorf("Translate(%s): %v", bq, err)
		}
	}
}
