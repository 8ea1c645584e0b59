package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestEveryLongStepShowsProgress: each step that can take more than a
// couple of seconds (db build, exec --tasks, judge, report, ehrsql score,
// datasets fetch, generate, run) draws its progress line in place on a
// terminal (a pseudo-terminal here), and piped prints no control
// characters, only its summary line. (That a terminal line is redrawn at
// least every 2 s while no item finishes is TestPseudoTerminalRedrawsEvery2s
// in internal/progress: every step draws through that code.)
func TestEveryLongStepShowsProgress(t *testing.T) {
	db := buildMini(t)
	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	ehrsql := ehrsqlDataDir(t)
	pred := filepath.Join(t.TempDir(), "pred.json")
	os.WriteFile(pred, []byte(`{"a1": "SELECT 1", "a2": "null", "u1": "null", "a3": "null"}`), 0o644)
	archive := clinsqlTarball(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(archive)))
		w.Write(archive)
	}))
	defer srv.Close()
	sql := "SELECT gender, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients` GROUP BY gender ORDER BY gender"
	model := llmtest.Start(t, llmtest.Fixed(llmtest.Text("```sql\n"+sql+"\n```")), llmtest.Options{APIKey: genKey})
	judgeSrv := llmtest.Start(t, fakeJudge(func(string) string { return "pass" }), llmtest.Options{APIKey: genKey})
	models := writeModels(t, t.TempDir(), map[string]string{"alpha": model.OpenAIBaseURL()})
	bench := func(out string) string {
		d := t.TempDir()
		judgeYAML := filepath.Join(d, "judge.yaml")
		os.WriteFile(judgeYAML, []byte("endpoint:\n  name: judge\n  kind: openai\n  base_url: "+judgeSrv.OpenAIBaseURL()+
			"\n  model: fake-judge\n  api_key_env: GEN_TEST_KEY\n  sampling: {temperature: 0, max_tokens: 300}\n"+
			"  capabilities: {json_schema: true}\n"), 0o644)
		p := filepath.Join(d, "bench.yaml")
		os.WriteFile(p, []byte("models: "+models+"\ntasks: "+dir+"\nsplit: validation\nengine: {name: duckdb, db: "+db+
			"}\nout: "+out+"\njudge: "+judgeYAML+"\n"), 0o644)
		return p
	}

	for _, tc := range []struct {
		name   string
		args   func(out string) []string
		labels []string // each line's label
		piped  []string // in the piped standard error
	}{
		{"db build", func(out string) []string {
			return []string{"db", "build", "--mimic", miniMIMIC, "--out", filepath.Join(out, "db.duckdb")}
		}, []string{"db build: tables"}, []string{"db build: tables 32/32 (100%)"}},
		{"exec --tasks", func(out string) []string {
			return []string{"exec", "--db", db, "--tasks", dir, "--gold", "--out", out}
		}, []string{"exec"}, []string{"exec 4/4 (100%)"}},
		{"judge", func(out string) []string {
			return []string{"judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge", "replay:" + grading}
		}, []string{"judge: leaves"}, []string{"(100%)"}},
		{"report", func(out string) []string {
			return []string{"report", "--tasks", dir, "--grading", grading, "--out", out, "--resamples", "20"}
		}, []string{"report: stages"}, []string{"report: stages 2/2 (100%)"}},
		{"ehrsql score", func(out string) []string {
			return []string{"ehrsql", "score", "--tasks", ehrsql, "--split", "mini", "--run", pred}
		}, []string{"ehrsql score"}, []string{"ehrsql score 4/4 (100%)"}},
		{"datasets fetch", func(out string) []string {
			return []string{"datasets", "fetch", "clinsql", "--url", srv.URL + "/a.tar.gz", "--out", out}
		}, []string{"datasets fetch"}, []string{"B of ", "B (100%)", "B/s"}}, // bytes, the size from Content-Length, the rate
		{"generate", func(out string) []string {
			return []string{"generate", "--models", models, "--tasks", dir, "--split", "validation", "--db", db, "--out", out}
		}, []string{"generate"}, []string{"generate 3/3 (100%)"}},
		{"run", func(out string) []string {
			return []string{"run", "--config", bench(out)}
		}, []string{"generate", "judge: leaves", "report: stages"}, []string{"generate 3/3 (100%)", "report: stages 2/2 (100%)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runGen(t, tc.args(t.TempDir())...)
			if code != 0 {
				t.Fatalf("piped: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if strings.ContainsAny(stderr, "\r\x1b") {
				t.Errorf("piped: control characters on standard error:\n%q", stderr)
			}
			for _, label := range tc.labels {
				if n := strings.Count("\n"+stderr, "\n"+label+" "); n != 1 {
					t.Errorf("piped: %d summary lines %q, want one:\n%s", n, label, stderr)
				}
			}
			if miss, ok := containsAll(stderr, tc.piped...); !ok {
				t.Errorf("piped: standard error lacks %q:\n%s", miss, stderr)
			}
			tty := runInPty(t, tc.args(t.TempDir())...)
			for _, label := range tc.labels {
				if !strings.Contains(tty, "\r\x1b[K"+label+" ") {
					t.Errorf("on a terminal: no %q line drawn in place:\n%q", label, tty)
				}
			}
		})
	}
}

// clinsqlTarball is a GitHub-style archive ("ClinSQL-<commit>/...") of the
// fixture tasks, as datasets fetch downloads it.
func clinsqlTarball(t *testing.T) []byte {
	t.Helper()
	src := t.TempDir()
	if _, err := fixtures.WriteClinSQL(src); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	prefix := "ClinSQL-" + datasets.ClinSQLCommit + "/"
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if err := tw.WriteHeader(&tar.Header{Name: prefix + filepath.ToSlash(rel), Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(b))}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// containsAll returns the first of subs that s lacks.
func containsAll(s string, subs ...string) (string, bool) {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return x, false
		}
	}
	return "", true
}
