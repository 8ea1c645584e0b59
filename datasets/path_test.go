package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
)

func TestCheckPathComponent(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"Diagnostic_Procedures", true}, {"001", true}, {"gpt-5.1", true}, {"..x", true},
		{"", false}, {".", false}, {"..", false}, {"../x", false}, {"a/b", false}, {`a\b`, false},
		{"/etc", false}, {"a\x00b", false}, {"a\nb", false}, {"a\x7fb", false},
	} {
		if err := CheckPathComponent(c.in); (err == nil) != c.ok {
			t.Errorf("CheckPathComponent(%q) = %v, want ok %v", c.in, err, c.ok)
		}
	}
}

// A manifest line whose key would escape the output folder refuses the
// whole manifest, naming the line and the field: no task is returned, so
// nothing is written for any of them.
func TestManifestPathEscape(t *testing.T) {
	root := t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	tasks, err := LoadClinSQL(root)
	must(t, err)
	m := filepath.Join(root, "tasks.jsonl")
	writeManifest(t, tasks, m)
	b, _ := os.ReadFile(m)
	clean := strings.SplitAfter(string(b), "\n")
	for _, c := range []struct{ field, from, to string }{
		{"domain", `"domain":"`, `"domain":"../../../x`},
		{"split", `"split":"`, `"split":"/tmp/`},
		{"problem_id", `"problem_id":"`, `"problem_id":"..\\`},
		{"problem_id", `"problem_id":"`, `"problem_id":"\n`},
	} {
		lines := append([]string(nil), clean...)
		lines[2] = strings.Replace(lines[2], c.from, c.to, 1)
		lines[2] = strings.Replace(lines[2], `"task_key":"`, `"task_key_x":"`, 1)
		must(t, os.WriteFile(m, []byte(strings.Join(lines, "")), 0o644))
		got, err := LoadClinSQL(m)
		if err == nil || len(got) != 0 {
			t.Fatalf("%s: %d tasks, err %v; want the manifest refused", c.to, len(got), err)
		}
		if want := m + ":3: " + c.field + ": "; !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestParseKeyRefusesEscapes(t *testing.T) {
	for _, p := range []string{
		"x/../Diagnostic_Procedures/easy_level_queries/001",
		"validation/../easy_level_queries/001",
		"validation/Diagnostic_Procedures/easy_level_queries/..",
		"validation/Diag\x01/easy_level_queries/001",
	} {
		if k, err := ParseKey(p); err == nil {
			t.Errorf("ParseKey(%q) = %v, want an error", p, k)
		}
	}
	if _, err := ParseKey("/mnt/c/x/gpt-5-chat/validation/Diagnostic_Procedures/easy_level_queries/001"); err != nil {
		t.Error(err)
	}
}
