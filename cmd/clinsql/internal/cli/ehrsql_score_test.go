package cli

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor/sqlite/sqlitetest"
	"github.com/clinsql/clinsql/internal/shared"
)

// ehrsqlDataDir lays out a tiny EHRSQL-style folder of our own: split
// "mini" with four items and a database built from an invented script.
func ehrsqlDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mini/data.json", `{"version": "mini", "data": [
		{"id": "a1", "question": "How many patients?"},
		{"id": "a2", "question": "Which genders?"},
		{"id": "u1", "question": "What is the weather?"},
		{"id": "a3", "question": "Oldest birth date?"}]}`)
	write("mini/label.json", `{"a1": "SELECT COUNT(*) FROM patients", "a2": "SELECT DISTINCT gender FROM patients",
		"u1": "null", "a3": "SELECT MIN(dob) FROM patients"}`)
	db := sqlitetest.Build(t, `
		CREATE TABLE patients (row_id INT PRIMARY KEY, gender VARCHAR(5), dob TIMESTAMP(0));
		INSERT INTO patients VALUES (0, 'f', '2050-01-01 00:00:00'), (1, 'm', '2040-05-05 00:00:00');`)
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	write("mimic_iv/mimic_iv.sqlite", string(b))
	return dir
}

func TestEHRSQLScorePredictionFile(t *testing.T) {
	dir := ehrsqlDataDir(t)
	pred := filepath.Join(t.TempDir(), "pred.json")
	// a1 correct ('2' is 2.0), a2 wrong (duplicate row), u1 answered an
	// unanswerable item, a3 abstained: +1, −c, −c, 0 over 4 items.
	os.WriteFile(pred, []byte(`{"a1": "SELECT '2'", "a2": "SELECT gender FROM patients UNION ALL SELECT 'f'", "u1": "SELECT 1", "a3": "null"}`), 0o644)
	out := filepath.Join(t.TempDir(), "scores.json")
	code, stdout, stderr := runCLI(t, "", "ehrsql", "score", "--tasks", dir, "--split", "mini", "--run", pred, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Not on a terminal: one progress summary line, no control characters.
	if !strings.Contains(stderr, "ehrsql score 4/4 (100%)") || strings.ContainsAny(stderr, "\r\x1b") {
		t.Errorf("progress summary: %q", stderr)
	}
	// RS(0) = 1/4 = 25.00, RS(5) = (1 − 10)/4 = −225.00, RS(10) = −475.00,
	// RS(4) = (1 − 8)/4 = −175.00.
	for _, want := range []string{"RS(0)             25.00", "RS(5)           -225.00", "RS(10)          -475.00", "RS(N=4)         -175.00",
		"correct                       1  +1", "wrong                         1  -c", "answered unanswerable         1  -c", "abstained answerable          1  0"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var got struct {
		RS0, RS5, RS10, RSN float64
		Correct             int
		Items               []struct{ ID, Outcome string }
		Split               string `json:"split_sha256"`
		Pred                string `json:"predictions_sha256"`
		DB                  string `json:"database_sha256"`
		Producer            struct{ Version string }
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.RS0 != 25 || got.RS5 != -225 || got.RS10 != -475 || got.RSN != -175 || got.Correct != 1 || len(got.Items) != 4 ||
		got.Items[1].ID != "a2" || got.Items[1].Outcome != "wrong" {
		t.Errorf("json: %+v", got)
	}
	// The scores are traced to the exact bytes of the predictions, the
	// split and the database, and to the build.
	predBytes, _ := os.ReadFile(pred)
	dbBytes, _ := os.ReadFile(filepath.Join(dir, "mimic_iv", "mimic_iv.sqlite"))
	if got.Pred != fmt.Sprintf("%x", sha256.Sum256(predBytes)) || got.DB != fmt.Sprintf("%x", sha256.Sum256(dbBytes)) ||
		len(got.Split) != 64 || got.Producer.Version == "" {
		t.Errorf("provenance: predictions %q, database %q, split %q, producer %+v", got.Pred, got.DB, got.Split, got.Producer)
	}
}

func TestEHRSQLScoreBaselines(t *testing.T) {
	dir := ehrsqlDataDir(t)
	code, stdout, stderr := runCLI(t, "", "ehrsql", "score", "--tasks", dir, "--split", "mini", "--baseline", "gold")
	if code != 0 || !strings.Contains(stdout, "RS(10)           100.00") {
		t.Errorf("gold: exit %d\n%s%s", code, stdout, stderr)
	}
	// Abstain-all: 1 unanswerable of 4 = 25.00 for every c.
	code, stdout, stderr = runCLI(t, "", "ehrsql", "score", "--tasks", dir, "--split", "mini", "--baseline", "abstain-all")
	if code != 0 || !strings.Contains(stdout, "RS(0)             25.00") || !strings.Contains(stdout, "RS(10)            25.00") {
		t.Errorf("abstain-all: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestEHRSQLScoreLenient(t *testing.T) {
	dir := ehrsqlDataDir(t)
	pred := filepath.Join(t.TempDir(), "pred.json")
	os.WriteFile(pred, []byte(`{"a1": null, "a2": "NULL", "u1": "Null;", "a3": ""}`), 0o644)
	code, _, stderr := runCLI(t, "", "ehrsql", "score", "--tasks", dir, "--split", "mini", "--run", pred)
	if code != 1 || !strings.Contains(stderr, "pred.json") || !strings.Contains(stderr, `"a1"`) {
		t.Errorf("strict JSON null: exit %d, %s", code, stderr)
	}
	// Lenient: everything abstains: 1 of 4 unanswerable.
	code, stdout, stderr := runCLI(t, "", "ehrsql", "score", "--tasks", dir, "--split", "mini", "--run", pred, "--lenient")
	if code != 0 || !strings.Contains(stdout, "RS(10)            25.00") || !strings.Contains(stdout, "lenient abstention: a deviation") {
		t.Errorf("lenient: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestEHRSQLScoreErrors(t *testing.T) {
	dir := ehrsqlDataDir(t)
	missing := filepath.Join(t.TempDir(), "missing.json")
	os.WriteFile(missing, []byte(`{"a1": "SELECT 1", "a2": "null", "zz": "null"}`), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--split", "mini", "--baseline", "gold"}, 2, []string{"--tasks (the EHRSQL data folder) is required", "datasets fetch ehrsql"}},
		{[]string{"--data-dir", dir, "--split", "mini", "--baseline", "gold"}, 0, []string{"--data-dir is deprecated; use --tasks"}},
		{[]string{"--tasks", dir, "--baseline", "gold"}, 2, []string{"--split"}},
		{[]string{"--tasks", dir, "--split", "mini"}, 2, []string{"exactly one"}},
		{[]string{"--tasks", dir, "--split", "mini", "--baseline", "gold", "--run", missing}, 2, []string{"exactly one"}},
		{[]string{"--tasks", dir, "--split", "mini", "--baseline", "oracle"}, 2, []string{"abstain-all or gold"}},
		{[]string{"--tasks", dir, "--split", "mini", "--baseline", "gold", "extra"}, 2, []string{"unexpected argument"}},
		{[]string{"--tasks", dir, "--split", "mini", "--run", missing}, 1, []string{"missing.json", `"u1"`, `"a3"`, `"zz"`, "missing ids", "extra ids"}},
		{[]string{"--tasks", dir, "--split", "nope", "--baseline", "gold"}, 1, []string{`no split "nope"`, "(have: mini)"}},
		{[]string{"--tasks", dir, "--split", "mini", "--baseline", "gold", "--gold-source", "answers"}, 1, []string{"answer.json"}},
		{[]string{"--tasks", t.TempDir(), "--split", "mini", "--baseline", "gold"}, 1, []string{"holds no EHRSQL split", "datasets fetch ehrsql"}},
		{[]string{"--tasks", filepath.Join(dir, "nowhere"), "--split", "mini", "--baseline", "gold"}, 1, []string{"no such file or directory", "clinsql datasets fetch ehrsql --out"}},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"ehrsql", "score"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, stderr, w)
			}
		}
	}
}

// TestEHRSQLScoreValidAbstainAll runs the command on the real valid split:
// abstaining everywhere gives 232/1163 = 19.95 for every c.
func TestEHRSQLScoreValidAbstainAll(t *testing.T) {
	root := shared.Path(t, "ehrsql-2024")
	out := filepath.Join(t.TempDir(), "scores.json")
	code, stdout, stderr := runCLI(t, "", "ehrsql", "score", "--tasks", root, "--split", "validation", "--baseline", "abstain-all", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"RS(0)             19.95", "RS(10)            19.95", "abstained unanswerable      232  +1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var got map[string]any
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["rs0"] != 19.948409286328463 || got["rs10"] != 19.948409286328463 || got["abstained_answerable"] != 931.0 {
		t.Errorf("json: rs0 %v rs10 %v", got["rs0"], got["rs10"])
	}
}

// A prediction file of part of the split (a run made with --limit) is
// scored over those items and says so; an id the split lacks is still
// refused.
func TestEHRSQLScoreSubset(t *testing.T) {
	dir := ehrsqlDataDir(t)
	pred := filepath.Join(t.TempDir(), "pred.json")
	os.WriteFile(pred, []byte(`{"a1": "SELECT '2'", "u1": "null"}`), 0o644)
	out := filepath.Join(t.TempDir(), "scores.json")
	code, stdout, stderr := runCLI(t, "", "ehrsql", "score", "--tasks", dir, "--split", "mini", "--run", pred, "--out", out)
	if code != 0 || !strings.Contains(stdout, "SUBSET: 2 of the 4 questions of split mini") || !strings.Contains(stdout, "2 items") {
		t.Fatalf("subset: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got struct {
		Subset string  `json:"subset"`
		N      int     `json:"n"`
		RS0    float64 `json:"rs0"`
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &got); err != nil || got.N != 2 || got.RS0 != 100 || !strings.Contains(got.Subset, "2 of the 4") {
		t.Errorf("scores.json: %+v (%v)\n%s", got, err, b)
	}
}
