package ehrsqlbench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	goldenfile "github.com/clinsql/clinsql/internal/golden"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/executor/sqlite/sqlitetest"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/reports"
)

// The fixture database and the queries the scripted models write.
const fixture = `CREATE TABLE patients (row_id INTEGER, subject_id INTEGER, gender TEXT);
INSERT INTO patients VALUES (0, 1, 'f'), (1, 2, 'm'), (2, 3, 'f');`

var sqlOf = map[byte]string{
	'G': "SELECT COUNT(*) FROM patients",                        // the gold answer: [['3.0']]
	'W': "SELECT COUNT(*) FROM patients WHERE gender = 'm'",     // wrong: [['1.0']]
	'E': "SELECT nope FROM patients",                            // fails
	'X': "SELECT subject_id FROM patients WHERE subject_id < 0", // runs, no rows
	'R': "SELECT gender FROM patients",                          // runs, for unanswerable questions
	'N': ehrsql.Null,                                            // the model abstains
}

// item is one scripted question: whether it is answerable (its gold is G),
// model a's k samples, their mean token log-probability, and model b's
// answer.
type item struct {
	answerable bool
	a          string
	lp         float64
	b          byte
}

func (it item) label() string {
	if it.answerable {
		return sqlOf['G']
	}
	return ehrsql.Null
}

// The calibration split. The thresholds that maximise RS(10) are derived
// by hand (abstain when below; ties would go to coverage):
//
//	logprob (sample 0):  answered items' means -2.0 -1.5 -1.0 -0.5 -0.1
//	  t = -2.0: c1 c2 c5 +1, c3 c4 -10, c6 +1        -> -16
//	  t = -1.5: c4 abstains (+1)                     ->  -5
//	  t = -1.0: c3 abstains (0) too                  ->  +5  best: RS(10) = 5/6
//	  t = -0.5: c5 abstains (0)                      ->  +4
//	  t = -0.1: c2 abstains                          ->  +3
//	consistency (3 samples; errors agree with nothing):
//	  c1 1, c2 2/3, c3 1/3 (W), c4 1 (R), c5 1/3 (G), c6 null
//	  t = 1/3: c1 c2 c5 +1, c3 c4 -10, c6 +1         -> -16
//	  t = 2/3: c3 c5 abstain                         ->  -7  best: RS(10) = -7/6
//	  t = 1:   c2 abstains too                       ->  -8
var calItems = []item{
	{true, "GGG", -0.1, 'G'},
	{true, "GGW", -0.5, 'G'},
	{true, "WGE", -1.5, 'G'},
	{false, "RRR", -2.0, 'N'},
	{true, "GWE", -1.0, 'G'},
	{false, "NNN", -0.1, 'N'},
}

// The evaluation split, and each strategy's score with the thresholds
// above (t_logprob = -1.0, t_agreement = 2/3), derived by hand:
//
//	     gold  a (k=3)  lp    b  | model  +exec  +logprob  +consistency  +ensemble
//	e1   ans   GGG      -0.1  G  |  +1     +1     +1        +1 (1)        +1
//	e2   ans   GGW      -0.2  W  |  +1     +1     +1        +1 (2/3)       0
//	e3   ans   WWW      -0.3  W  |  -c     -c     -c        -c (1)        -c
//	e4   ans   WGE      -2.0  G  |  -c     -c      0         0 (1/3)       0
//	e5   ans   EEE      -0.1  E  |  -c      0     -c         0 (1/3)       0
//	e6   ans   XXX      -0.1  X  |  -c      0     -c        -c (1)        -c
//	e7   unans NNN      -0.1  N  |  +1     +1     +1        +1            +1
//	e8   unans RRN      -0.5  R  |  -c     -c     -c        -c (2/3)      -c
//	e9   unans RNN      -3.0  N  |  -c     -c     +1        +1 (null 2/3) +1
//	e10  ans   NGG      -0.1  G  |   0      0      0        +1 (G 2/3)     0
//	+1 / -c:                     |  3/6    3/4    4/4       5/3           3/3
var evalItems = []item{
	{true, "GGG", -0.1, 'G'},
	{true, "GGW", -0.2, 'W'},
	{true, "WWW", -0.3, 'W'},
	{true, "WGE", -2.0, 'G'},
	{true, "EEE", -0.1, 'E'},
	{true, "XXX", -0.1, 'X'},
	{false, "NNN", -0.1, 'N'},
	{false, "RRN", -0.5, 'R'},
	{false, "RNN", -3.0, 'N'},
	{true, "NGG", -0.1, 'G'},
}

// wantEval is RS(0), RS(5), RS(10) of each strategy on evalItems (10
// items, so RS(N) = RS(10)): (plus - c*penalised) / 10 * 100.
var wantEval = map[string][2]int{ // plus, penalised
	"model":             {3, 6},
	"model+executable":  {3, 4},
	"model+logprob":     {4, 4},
	"model+consistency": {5, 3},
	"model+ensemble":    {3, 3},
}

const modelsYAML = `models:
  - name: a
    kind: openai
    base_url: %[1]s
    model: model-a
    api_key_env: LLMTEST_KEY
    sampling: {temperature: 0, seed: 0}
    capabilities: {logprobs: true}
    limits: {concurrency: 4}
    rounds: %[2]d
    strategies: [model, model+executable, model+logprob, model+consistency, model+ensemble]
    consistency: {k: 3}
    ensemble: {models: [b]}
  - name: b
    kind: openai
    base_url: %[1]s
    model: model-b
    api_key_env: LLMTEST_KEY
    sampling: {temperature: 0, seed: 0}
    limits: {concurrency: 4}
    rounds: %[2]d
`

// scripted builds the fake model's script from the items of both splits:
// questions are "<split> question <i>".
func scripted(splits map[string][]item) script {
	return func(model, q string, sample int) (llmtest.Reply, bool) {
		var split string
		var i int
		if _, err := fmt.Sscanf(q, "%s question %d", &split, &i); err != nil || i >= len(splits[split]) {
			return llmtest.Reply{}, false
		}
		it := splits[split][i]
		if model == "model-b" {
			return sqlReply(sqlOf[it.b], -0.1), sample == 0
		}
		if sample >= len(it.a) {
			return llmtest.Reply{}, false
		}
		return sqlReply(sqlOf[it.a[sample]], it.lp), true
	}
}

type handmade struct {
	root   string
	db     *sqlite.DB
	srv    *llmtest.Server
	models []ehrsqlbench.Model
}

func newHandmade(t *testing.T, rounds int, h llmtest.Handler) *handmade {
	t.Helper()
	db, err := sqlite.Open(sqlitetest.Build(t, fixture), sqlite.Options{Limits: executor.Limits{MaxRows: 1_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv := llmtest.Start(t, h, llmtest.Options{})
	models, err := ehrsqlbench.ParseModels("models.yaml", []byte(fmt.Sprintf(modelsYAML, srv.OpenAIBaseURL(), rounds)))
	if err != nil {
		t.Fatal(err)
	}
	return &handmade{root: t.TempDir(), db: db, srv: srv, models: models}
}

func (h *handmade) split(t *testing.T, name string, items []item) *ehrsql.Split {
	var ids, qs, labels []string
	for i, it := range items {
		ids = append(ids, fmt.Sprintf("%s%02d", name, i))
		qs = append(qs, fmt.Sprintf("%s question %d", name, i))
		labels = append(labels, it.label())
	}
	return writeSplit(t, filepath.Join(h.root, "data"), name, ids, qs, labels)
}

func (h *handmade) run(t *testing.T, out string, eval, cal *ehrsql.Split) *ehrsqlbench.RunResult {
	t.Helper()
	schema, err := ehrsqlbench.SchemaText(context.Background(), h.db)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := llm.OpenCache(filepath.Join(out, "llm-cache"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ehrsqlbench.Run(context.Background(), ehrsqlbench.RunOptions{
		Options: ehrsqlbench.Options{
			Layout: ehrsqlbench.Layout{Root: out}, Models: h.models, DB: h.db, Schema: schema,
			LLM:         llm.Options{Cache: cache, Getenv: func(string) string { return "sk-test" }},
			Concurrency: 4,
		},
		Eval: eval, Calibration: cal, Bootstrap: reports.Bootstrap{Seed: 1, Resamples: 200},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pending != 0 {
		t.Fatalf("%d items pending", res.Pending)
	}
	return res
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestHandmadeStrategies: scripted wrong answers, low log-probabilities,
// disagreeing samples and a disagreeing ensemble member give the RS values
// derived by hand above, for each strategy, through the whole pipeline.
func TestHandmadeStrategies(t *testing.T) {
	h := newHandmade(t, 0, scripted(map[string][]item{"cal": calItems, "eval": evalItems}).handler())
	cal, eval := h.split(t, "cal", calItems), h.split(t, "eval", evalItems)
	out := filepath.Join(h.root, "run")
	res := h.run(t, out, eval, cal)

	// Calibration, on the calibration split.
	c := res.Calibrations[0]
	if c.Model != "a" || c.Split != "cal" || c.Penalty != 10 {
		t.Fatalf("calibration %+v", c)
	}
	lp := c.Strategies["model+logprob"]
	if lp.Thresholds.Logprob == nil || *lp.Thresholds.Logprob != -1.0 || lp.Thresholds.Agreement != nil || !near(lp.Scores.RS10, 5.0/6*100) {
		t.Errorf("logprob calibration: %+v, want threshold -1.0 and RS(10) 83.33", lp)
	}
	cons := c.Strategies["model+consistency"]
	if cons.Thresholds.Agreement == nil || !near(*cons.Thresholds.Agreement, 2.0/3) || cons.Thresholds.Logprob != nil || !near(cons.Scores.RS10, -7.0/6*100) {
		t.Errorf("consistency calibration: %+v, want agreement 2/3 and RS(10) -116.67", cons)
	}
	if len(c.Strategies) != 2 {
		t.Errorf("calibrated %d strategies, want 2", len(c.Strategies))
	}

	// The evaluation split, per strategy.
	got := map[string]bool{}
	for _, r := range res.Results {
		if r.Model != "a" {
			continue
		}
		want, ok := wantEval[r.Strategy]
		if !ok {
			t.Errorf("unexpected strategy %s", r.Strategy)
			continue
		}
		got[r.Strategy] = true
		plus, pen := float64(want[0]), float64(want[1])
		for _, x := range []struct {
			name    string
			got     float64
			penalty float64
		}{{"RS(0)", r.Scores.RS0, 0}, {"RS(5)", r.Scores.RS5, 5}, {"RS(10)", r.Scores.RS10, 10}, {"RS(N)", r.Scores.RSN, 10}} {
			if w := (plus - x.penalty*pen) / 10 * 100; !near(x.got, w) {
				t.Errorf("%s: %s = %v, want %v", r.Strategy, x.name, x.got, w)
			}
		}
		iv := r.Intervals["rs10"]
		if !(iv[0] <= r.Scores.RS10 && r.Scores.RS10 <= iv[1]) {
			t.Errorf("%s: RS(10) %v outside its interval %v", r.Strategy, r.Scores.RS10, iv)
		}
		checkDecisions(t, out, eval, r)
		checkCurve(t, r)
	}
	if len(got) != len(wantEval) {
		t.Errorf("strategies scored: %v", got)
	}

	// Consistency costs k calls a question: model a 3 per item, b 1.
	if n, want := h.srv.Calls(), (3+1)*(len(calItems)+len(evalItems)); n != want {
		t.Errorf("%d calls, want %d", n, want)
	}

	// The report's EHRSQL section.
	run, err := ehrsqlbench.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	repDir := t.TempDir()
	if _, err := ehrsqlbench.WriteReport(repDir, []*ehrsqlbench.RunReport{run}); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/handmade_report.md", readFile(t, filepath.Join(repDir, "ehrsql.md")))
	// report.html's section: every result with its decisions, the charts
	// as figures.
	sec, err := ehrsqlbench.Section([]*ehrsqlbench.RunReport{run})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sec.Results {
		if len(r.Items) != len(evalItems) || r.ItemsNote != "" {
			t.Errorf("%s %s: %d decisions (%s), want %d", r.Model, r.Strategy, len(r.Items), r.ItemsNote, len(evalItems))
		}
	}
	if _, err := reports.NewEHRSQLReport(sec).Write(repDir); err != nil {
		t.Fatal(err)
	}
	for file, wants := range map[string][]string{
		"ehrsql_a_risk-coverage.svg":           {"coverage: questions answered (%)", "risk: penalised / answered (%)", "RS(10) x100", "model+logprob", "model+consistency", "(chosen)"},
		"ehrsql_a_calibration_logprob.svg":     {"threshold: mean token log-probability of the answer", "model+logprob", "(chosen)"},
		"ehrsql_a_calibration_consistency.svg": {"threshold: share of the samples that agree", "model+consistency", "(chosen)"},
		"ehrsql_rs10.svg":                      {"RS(10) x100 per model and strategy", "a · model+logprob"},
	} {
		svg := string(readFile(t, filepath.Join(repDir, reports.FiguresDir, file)))
		for _, want := range wants {
			// html/template writes + as &#43; (valid XML too).
			if want = strings.ReplaceAll(want, "+", "&#43;"); !strings.Contains(svg, want) {
				t.Errorf("%s lacks %q", file, want)
			}
		}
	}
	if html := string(readFile(t, filepath.Join(repDir, reports.ReportHTML))); !strings.Contains(html, `href="#ehrsql/a/model&#43;logprob"`) {
		t.Errorf("report.html lacks the strategy's drill-down link")
	}

	// A second run makes no call and writes the same files.
	before := h.srv.Calls()
	pred := readFile(t, filepath.Join(out, "a", "eval", "model+consistency", "prediction.json"))
	h.run(t, out, eval, cal)
	if h.srv.Calls() != before {
		t.Errorf("resumed run made %d calls", h.srv.Calls()-before)
	}
	if again := readFile(t, filepath.Join(out, "a", "eval", "model+consistency", "prediction.json")); !bytes.Equal(pred, again) {
		t.Error("prediction.json changed on a resumed run")
	}
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file at path (rewritten with -update).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, string(got), *update)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestThresholdsIgnoreTheEvaluationSplit: the thresholds come from the
// calibration split alone. Two runs with the same calibration split and
// different evaluation splits (one scripted so that other thresholds
// would score better on it) record the same calibration and apply the
// same thresholds.
func TestThresholdsIgnoreTheEvaluationSplit(t *testing.T) {
	// On other, every answer is right but has a low log-probability: tuned
	// on it, the logprob threshold would be its lowest value (-5), not -1.
	other := []item{{true, "GGG", -5, 'G'}, {true, "GGG", -4, 'G'}, {true, "GGG", -3, 'G'}}
	h := newHandmade(t, 0, scripted(map[string][]item{"cal": calItems, "eval": evalItems, "other": other}).handler())
	cal := h.split(t, "cal", calItems)
	var cals [][]byte
	for _, ev := range []*ehrsql.Split{h.split(t, "eval", evalItems), h.split(t, "other", other)} {
		out := filepath.Join(h.root, "run-"+ev.Name)
		res := h.run(t, out, ev, cal)
		cals = append(cals, readFile(t, filepath.Join(out, "a", "calibration.json")))
		for _, r := range res.Results {
			if r.Strategy == "model+logprob" && (r.Thresholds.Logprob == nil || *r.Thresholds.Logprob != -1 || r.CalibrationSplit != "cal") {
				t.Errorf("%s: applied thresholds %+v from %q, want -1 from cal", ev.Name, r.Thresholds, r.CalibrationSplit)
			}
			if ev.Name == "other" && r.Strategy == "model+logprob" && r.Scores.Correct != 0 {
				t.Errorf("other: %d answered with the calibration split's threshold, want 0 (all below -1)", r.Scores.Correct)
			}
		}
	}
	if !bytes.Equal(cals[0], cals[1]) {
		t.Errorf("calibration differs with the evaluation split:\n%s\n%s", cals[0], cals[1])
	}
	// The evaluation split is never the calibration split.
	_, err := ehrsqlbench.Run(context.Background(), ehrsqlbench.RunOptions{
		Options: ehrsqlbench.Options{Layout: ehrsqlbench.Layout{Root: t.TempDir()}, Models: h.models, DB: h.db},
		Eval:    cal, Calibration: cal,
	})
	if err == nil || !strings.Contains(err.Error(), "never tuned on the split being scored") {
		t.Errorf("calibrating on the evaluation split: %v", err)
	}
}

// TestRefinementFeedsSQLiteErrors: a query SQLite refuses is sent back with
// SQLite's message, and the fix is the answer; with no rounds left the
// failure stands (and the executable step abstains on it).
func TestRefinementFeedsSQLiteErrors(t *testing.T) {
	items := []item{{true, "G", -0.1, 'G'}, {false, "N", -0.1, 'N'}}
	var mu sync.Mutex
	var fixPrompts []string
	h := newHandmade(t, 1, func(c *llmtest.Call) llmtest.Reply {
		p := c.LastUser()
		if strings.Contains(p, "An earlier answer") {
			mu.Lock()
			fixPrompts = append(fixPrompts, p)
			mu.Unlock()
			return sqlReply(sqlOf['G'], -0.1)
		}
		if q := questionOf(c); strings.HasSuffix(q, " 1") {
			return sqlReply(ehrsql.Null, -0.1)
		}
		return sqlReply(sqlOf['E'], -0.1)
	})
	h.models = h.models[1:] // b alone: one sample, strategy model
	eval := h.split(t, "eval", items)
	res := h.run(t, filepath.Join(h.root, "run"), eval, nil)
	if r := res.Results[0]; r.Scores.RS10 != 100 {
		t.Errorf("RS(10) = %v, want 100 after the fix", r.Scores.RS10)
	}
	if len(fixPrompts) != 1 || !strings.Contains(fixPrompts[0], "no such column: nope") || !strings.Contains(fixPrompts[0], sqlOf['E']) {
		t.Errorf("fix requests: %q", fixPrompts)
	}
}

// TestRetrieverNearest: the nearest train questions by TF-IDF cosine,
// best first, ties to the earlier item, the question itself never shown.
func TestRetrieverNearest(t *testing.T) {
	train := writeSplit(t, t.TempDir(), "train", []string{"t0", "t1", "t2", "t3", "t4"},
		[]string{"how many patients are female", "how many patients are male", "what is the capital of france",
			"how many patients are female", "count the female patients"},
		[]string{"SQL0", "SQL1", "null", "SQL3", "SQL4"})
	r := ehrsqlbench.NewRetriever(train)
	got := r.Nearest("how many patients are female", 3)
	var sqls []string
	for _, e := range got {
		sqls = append(sqls, e.SQL)
	}
	// t0 and t3 are the question itself; t2 is unanswerable (no SQL). With
	// idf = ln(5/(1+df)) over the 4 answerable questions, "patients" weighs
	// 0, and t1 shares how, many, are (cosine 0.34) against t4's female
	// (0.08).
	if want := "SQL1 SQL4"; strings.Join(sqls, " ") != want {
		t.Errorf("nearest: %v, want %s", sqls, want)
	}
	if got := r.Nearest("female", 1); len(got) != 1 || got[0].SQL != "SQL0" {
		t.Errorf("nearest to female: %+v, want SQL0 (cosine 0.5 against t4's 0.17; t3 ties with t0 and comes later)", got)
	}
}

// TestModelsFile: the example file parses; every problem of a bad one is
// reported with the file and field.
func TestModelsFile(t *testing.T) {
	ms, err := ehrsqlbench.LoadModels("testdata/models.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Samples() != 5 || ms[1].Samples() != 1 || ms[0].Quorum() != 2 || len(ms[0].StrategyList()) != 5 {
		t.Errorf("parsed %+v", ms[0])
	}
	bad := `models:
  - name: a
    kind: openai
    model: m
    shots: 99
    strategies: [model+logprob, model+model, vote]
    consistency: {k: 1}
    ensemble: {models: [nobody]}
  - name: b
    kind: openai
    model: m
    strategies: [ensemble]
`
	_, err = ehrsqlbench.ParseModels("m.yaml", []byte(bad))
	for _, want := range []string{
		"m.yaml: models[0].shots: 99 is outside [0, 20]",
		`models[0].strategies[1]: "model+model": step "model" twice`,
		`models[0].strategies[2]: "vote": step "vote" is not one of`,
		"models[0].consistency.k: 1 is outside [2, 20]",
		"models[0].strategies: logprob needs an endpoint that returns log-probabilities",
		"models[1].ensemble.models: the ensemble strategy needs other models of the run",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nlacks %q", err, want)
		}
	}
}

// checkDecisions: decisions.json says, for every item, its question and
// gold label and how the official scoring scored the prediction; the
// outcomes add up to the result's counts.
func checkDecisions(t *testing.T, out string, split *ehrsql.Split, r *ehrsqlbench.Result) {
	t.Helper()
	var decs []ehrsqlbench.Decision
	if err := json.Unmarshal(readFile(t, ehrsqlbench.Layout{Root: out}.Decisions(r.Model, r.Split, r.Strategy)), &decs); err != nil {
		t.Fatal(err)
	}
	var c reliability.Counts
	for _, d := range decs {
		if d.Outcome == "" || d.Score == nil || *d.Score != d.Outcome.Score() || d.Question == "" || d.Gold != split.Labels.Values[d.ID] {
			t.Errorf("%s %s: decision %+v lacks its scoring, question or gold", r.Strategy, d.ID, d)
			continue
		}
		if d.Abstained != (d.Outcome == reliability.AbstainedAnswerable || d.Outcome == reliability.AbstainedUnanswerable) {
			t.Errorf("%s %s: abstained %v, outcome %s", r.Strategy, d.ID, d.Abstained, d.Outcome)
		}
		c.Add(d.Outcome)
	}
	if c != r.Scores.Counts {
		t.Errorf("%s: decisions' outcomes %+v, the result's %+v", r.Strategy, c, r.Scores.Counts)
	}
}

// checkCurve: a strategy with a threshold has a risk-coverage curve on the
// evaluation split whose point at the chosen threshold is the result
// itself (the same counts, so the same RS(c) by the official formula).
func checkCurve(t *testing.T, r *ehrsqlbench.Result) {
	t.Helper()
	if (len(r.Curve) > 0) != (r.Thresholds.Logprob != nil || r.Thresholds.Agreement != nil) {
		t.Errorf("%s: %d curve points with thresholds %+v", r.Strategy, len(r.Curve), r.Thresholds)
	}
	for _, step := range []ehrsqlbench.Step{ehrsqlbench.StepLogprob, ehrsqlbench.StepConsistency} {
		chosen := r.Thresholds.Logprob
		if step == ehrsqlbench.StepConsistency {
			chosen = r.Thresholds.Agreement
		}
		if chosen == nil {
			continue
		}
		found := false
		for _, p := range r.Curve {
			if p.Step != step || p.Threshold != *chosen {
				continue
			}
			found = true
			if p.Counts != r.Scores.Counts || reliability.RS(p.Counts, 10) != r.Scores.RS10 || !near(float64(p.Answered)/float64(r.Scores.N), r.Coverage) {
				t.Errorf("%s: curve at the chosen %s threshold %v: %+v (%d answered), the result %+v (coverage %v)", r.Strategy, step, *chosen, p.Counts, p.Answered, r.Scores.Counts, r.Coverage)
			}
		}
		if !found {
			t.Errorf("%s: no curve point at the chosen %s threshold %v", r.Strategy, step, *chosen)
		}
	}
}
