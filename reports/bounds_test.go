package reports

import (
	"strings"
	"testing"
)

// A model name becomes a folder under models/: names of dots must not
// reach the parent folder.
func TestSlugStaysInFolder(t *testing.T) {
	for in, want := range map[string]string{
		"gpt-5.1": "gpt-5.1", "..": "__", ".": "_", "": "_", "../x": ".._x", "a/b": "a_b", "...": "___",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// Text cells that a spreadsheet would run as formulas are neutralised;
// numbers, negative ones included, are not.
func TestCSVFormulaNeutralised(t *testing.T) {
	type row struct {
		Model string `csv:"model"`
		Diff  string `csv:"diff"`
	}
	var b strings.Builder
	rows := []row{{"=HYPERLINK(\"http://x\",\"y\")", "-0.0512"}, {"+cmd", "+1"}, {"-2+3", "1e-3"}, {"@SUM(A1)", "-"}, {"\tx", "ok"}, {"gpt-5", "-inf"}}
	if err := writeCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "model,diff\n" +
		"\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-0.0512\n" +
		"'+cmd,+1\n" +
		"'-2+3,1e-3\n" +
		"'@SUM(A1),'-\n" +
		"'\tx,ok\n" +
		"gpt-5,-inf\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
