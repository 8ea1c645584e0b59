package ehrsqlbench_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/ehrsqlbench"
)

// TestPredictionJSON: prediction.json is one JSON object in the split's id
// order, SQL written as is (no \u003c for <), and reads back through the
// scorer's loader to exactly the values written.
func TestPredictionJSON(t *testing.T) {
	ids := []string{"b2", "a1", "c3"}
	pred := map[string]string{
		"a1": "SELECT COUNT(*) FROM patients WHERE dob < '2100-01-01' AND gender = \"f\" -- é\n\tAND 1 > 0",
		"b2": ehrsql.Null,
		"c3": `SELECT '\' || char(10)`,
	}
	b, err := ehrsqlbench.PredictionJSON(ids, pred)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n" +
		`  "b2": "null",` + "\n" +
		`  "a1": "SELECT COUNT(*) FROM patients WHERE dob < '2100-01-01' AND gender = \"f\" -- é\n\tAND 1 > 0",` + "\n" +
		`  "c3": "SELECT '\\' || char(10)"` + "\n}\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	path := filepath.Join(t.TempDir(), "prediction.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ehrsql.LoadPredictions(path, ehrsql.PredictionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if m.IDs[i] != id || m.Values[id] != pred[id] {
			t.Errorf("%s: read back %q at %d, want %q", id, m.Values[id], i, pred[id])
		}
	}
	if _, err := ehrsqlbench.PredictionJSON([]string{"zz"}, pred); err == nil {
		t.Error("a missing prediction was not refused")
	}
	if err := ehrsqlbench.CheckID("../x"); err == nil {
		t.Error("an id that is a path was accepted")
	}
}

// TestRecordsAreReadDefensively: a record that is a symlink is refused by
// name rather than followed, an absent one is simply not there.
func TestRecordsAreReadDefensively(t *testing.T) {
	l := ehrsqlbench.Layout{Root: t.TempDir()}
	if _, ok, err := l.ReadRecord("m", "valid", "q1"); ok || err != nil {
		t.Fatalf("absent record: ok=%v err=%v", ok, err)
	}
	dir := filepath.Join(l.Root, "m", "valid", "items")
	os.MkdirAll(dir, 0o755)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "q1.json")); err != nil {
		t.Skip(err)
	}
	if _, _, err := l.ReadRecord("m", "valid", "q1"); err == nil || !strings.Contains(err.Error(), "q1.json") {
		t.Errorf("symlinked record: %v", err)
	}
}
