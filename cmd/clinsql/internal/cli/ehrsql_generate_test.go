package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestGenerateEHRSQL: clinsql generate --benchmark ehrsql on the mini split
// with a fake model answering the gold SQL (null for the unanswerable
// question) scores RS = 100 under both strategies; each prediction.json has
// exactly the split's ids and is what clinsql ehrsql score reads, giving
// the same figures; a second run makes no call.
func TestGenerateEHRSQL(t *testing.T) {
	dir := ehrsqlDataDir(t)
	srv, data, labels := ehrsqlGoldServer(t, dir, llmtest.Options{})
	models := filepath.Join(t.TempDir(), "models.yaml")
	os.WriteFile(models, []byte("models:\n  - name: gold\n    kind: openai\n    base_url: "+srv.OpenAIBaseURL()+
		"\n    model: fake-gold\n    api_key_env: GEN_TEST_KEY\n    strategies: [model, model+executable]\n"), 0o644)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"generate", "--benchmark", "ehrsql", "--tasks", dir, "--split", "mini", "--models", models, "--out", out, "--quiet"}

	code, stdout, stderr := runGen(t, append(args, "--estimate")...)
	if code != 0 || !regexp.MustCompile(`gold\s+model\s+4\s+4\s`).MatchString(stdout) || srv.Calls() != 0 {
		t.Fatalf("estimate: exit %d, %d calls:\n%s%s", code, srv.Calls(), stdout, stderr)
	}
	code, stdout, stderr = runGen(t, args...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`gold\s+model\s+75.0%\s+100.00\s+100.00\s+100.00`).MatchString(stdout) {
		t.Errorf("results table:\n%s", stdout)
	}
	for _, st := range []string{"model", "model+executable"} {
		pred := filepath.Join(out, "gold", "mini", st, "prediction.json")
		m, err := ehrsql.LoadPredictions(pred, ehrsql.PredictionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(m.IDs, ",") != strings.Join(data.IDs(), ",") {
			t.Errorf("%s: ids %v, want the split's %v", st, m.IDs, data.IDs())
		}
		if m.Values["u1"] != "null" || m.Values["a1"] != labels.Values["a1"] {
			t.Errorf("%s: predictions %v", st, m.Values)
		}
		scores := filepath.Join(t.TempDir(), "scores.json")
		code, _, stderr := runCLI(t, "", "ehrsql", "score", "--tasks", dir, "--split", "mini", "--run", pred, "--json", scores)
		if code != 0 {
			t.Fatalf("ehrsql score: exit %d: %s", code, stderr)
		}
		var got struct{ RS10, RSN float64 }
		b, _ := os.ReadFile(scores)
		var raw map[string]any
		json.Unmarshal(b, &raw)
		got.RS10, got.RSN = raw["rs10"].(float64), raw["rsN"].(float64)
		if got.RS10 != 100 || got.RSN != 100 {
			t.Errorf("%s: ehrsql score gives %+v, want 100", st, got)
		}
	}
	// summary.json traces its scores to the split, database and build.
	var sum struct {
		Inputs struct {
			EvalSplit string  `json:"eval_split"`
			EvalSHA   string  `json:"eval_split_sha256"`
			Items     int     `json:"eval_items"`
			DBSHA     string  `json:"database_sha256"`
			Penalty   float64 `json:"penalty"`
		}
		Producer struct{ Version string }
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	split, err := ehrsql.LoadSplit(filepath.Join(dir, "mini"))
	if err != nil {
		t.Fatal(err)
	}
	dbBytes, _ := os.ReadFile(filepath.Join(dir, "mimic_iv", "mimic_iv.sqlite"))
	if in := sum.Inputs; in.EvalSplit != "mini" || in.EvalSHA != split.SHA256() || in.Items != 4 || in.Penalty != 10 ||
		in.DBSHA != fmt.Sprintf("%x", sha256.Sum256(dbBytes)) || sum.Producer.Version == "" {
		t.Errorf("summary.json provenance: %+v", sum)
	}
	calls := srv.Calls()
	if calls != 4 {
		t.Errorf("%d calls, want 4", calls)
	}
	if code, _, stderr := runGen(t, args...); code != 0 || srv.Calls() != calls {
		t.Errorf("second run: exit %d, %d new calls: %s", code, srv.Calls()-calls, stderr)
	}

	// clinsql report --ehrsql writes the EHRSQL section.
	rep := t.TempDir()
	if code, stdout, stderr := runCLI(t, "", "report", "--out", rep, "--ehrsql", out); code != 0 || !strings.Contains(stdout, "wrote the EHRSQL section") {
		t.Errorf("report: exit %d: %s%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(rep, "ehrsql.md")); err != nil || !strings.Contains(string(b), "| gold | model | mini | 4 | 75.0% | 100.00 [100.00, 100.00] |") {
		t.Errorf("ehrsql.md: %v\n%s", err, b)
	}

	// The same through clinsql run with an EHRSQL config.
	cfg := filepath.Join(t.TempDir(), "bench.yaml")
	os.WriteFile(cfg, []byte("benchmark: ehrsql\nmodels: "+models+"\ndata_dir: "+dir+"\nsplit: mini\nout: "+out+"\n"), 0o644)
	if code, stdout, stderr := runGen(t, "run", "--config", cfg, "--quiet"); code != 0 || srv.Calls() != calls ||
		!strings.Contains(stdout, "wrote the EHRSQL section") {
		t.Errorf("clinsql run: exit %d, %d new calls:\n%s%s", code, srv.Calls()-calls, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "report", "ehrsql.md")); err != nil {
		t.Error(err)
	}

	// Usage errors name the problem.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--benchmark", "spider"}, "--benchmark must be clinsql or ehrsql"},
		{[]string{"generate", "--benchmark", "ehrsql", "--tasks", dir}, "give --models FILE or --model PROVIDER/NAME"},
		{[]string{"generate", "--benchmark", "ehrsql", "--tasks", dir, "--model", "mock/demo"}, "--tasks (the EHRSQL data folder), --split and --out are required"},
	} {
		code, _, stderr := runGen(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// ehrsqlGoldServer starts a fake model that answers each question of the
// mini split with its label (null for the unanswerable one), and returns
// the split's questions and labels.
func ehrsqlGoldServer(t *testing.T, dir string, opts llmtest.Options) (*llmtest.Server, *ehrsql.Data, *ehrsql.Map) {
	t.Helper()
	labels, err := ehrsql.LoadLabels(filepath.Join(dir, "mini", "label.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := ehrsql.LoadData(filepath.Join(dir, "mini", "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string]string{}
	for _, q := range data.Questions {
		gold[q.Question] = labels.Values[q.ID]
	}
	question := regexp.MustCompile(`(?m)^Question: (".*")$`)
	srv := llmtest.Start(t, func(c *llmtest.Call) llmtest.Reply {
		m := question.FindStringSubmatch(c.LastUser())
		if m == nil {
			return llmtest.HTTPError(400, "no_question", "no question in the prompt")
		}
		q, _ := strconv.Unquote(m[1])
		if gold[q] == ehrsql.Null {
			return llmtest.Text("null")
		}
		return llmtest.Text("```sql\n" + gold[q] + "\n```")
	}, opts)
	return srv, data, labels
}

// TestGenerateEHRSQLModelFlag: generate --benchmark ehrsql takes --model
// PROVIDER/NAME as ClinSQL's generate does (the same parsing, keys from
// the same variables): an OpenAI-compatible server from OPENAI_BASE_URL
// scores as the same model from a models file; mock/demo runs offline
// and answers every question; the mistakes get ClinSQL's messages.
func TestGenerateEHRSQLModelFlag(t *testing.T) {
	dir := ehrsqlDataDir(t)
	const key = "sk-ehrsql-model-flag"
	srv, data, _ := ehrsqlGoldServer(t, dir, llmtest.Options{APIKey: key})
	gen := func(vars map[string]string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return vars[k] }}
		code := run(context.Background(), env, append([]string{"generate", "--benchmark", "ehrsql", "--tasks", dir, "--split", "mini", "--quiet"}, args...))
		return code, stdout.String(), stderr.String()
	}
	openai := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL(), "OPENAI_API_KEY": key}
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := gen(openai, "--model", "openai/fake-gold", "--out", out)
	if code != 0 || !regexp.MustCompile(`fake-gold\s+model\s+75.0%\s+100.00\s+100.00\s+100.00`).MatchString(stdout) {
		t.Fatalf("--model openai/fake-gold: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "fake-gold", "mini", "model", "prediction.json")); err != nil {
		t.Error(err)
	}

	mock := filepath.Join(t.TempDir(), "mock")
	code, stdout, stderr = gen(nil, "--model", "mock/demo", "--out", mock)
	if code != 0 || !strings.Contains(stdout, "demo") {
		t.Fatalf("--model mock/demo: exit %d\n%s%s", code, stdout, stderr)
	}
	m, err := ehrsql.LoadPredictions(filepath.Join(mock, "demo", "mini", "model", "prediction.json"), ehrsql.PredictionOptions{})
	if err != nil || strings.Join(m.IDs, ",") != strings.Join(data.IDs(), ",") {
		t.Errorf("the mock's predictions: %v (%v)", m, err)
	}

	for _, tc := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{nil, []string{"--out", out}, "give --models FILE or --model PROVIDER/NAME (try --model mock/demo"},
		{nil, []string{"--models", "m.yaml", "--model", "mock/demo", "--out", out}, "give --models FILE or --model PROVIDER/NAME"},
		{nil, []string{"--model", "gpt-4o", "--out", out}, "want PROVIDER/NAME, e.g. openai/gpt-4o"},
		{nil, []string{"--model", "openai/gpt-4o", "--out", out}, "set OPENAI_API_KEY"},
	} {
		code, _, stderr := gen(tc.vars, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
