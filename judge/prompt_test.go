package judge

import (
	"testing"

	"github.com/clinsql/clinsql/judge/codecheck"
)

func TestFormatCell(t *testing.T) {
	for in, want := range map[string]string{"3": "3", "3.0": "3", "0.123456789": "0.123457", "1e20": "1e+20", "": "NULL", "NaN": "NULL", " Home ": "Home", "-0.5": "-0.5"} {
		if got := FormatCell(codecheck.ParseCell(in)); got != want {
			t.Errorf("FormatCell(%q) = %q, want %q", in, got, want)
		}
	}
}
