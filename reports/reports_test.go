package reports

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	goldenfile "github.com/clinsql/clinsql/internal/golden"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/rubric"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), string(got), *update)
}

func TestGoldenOutputs(t *testing.T) {
	fs := writeFixtureSet(t)
	for _, mode := range []rubric.Mode{rubric.Reference, rubric.Strict} {
		t.Run(string(mode), func(t *testing.T) {
			r := buildFixtureReport(t, fs, Options{Mode: mode})
			out := t.TempDir()
			if _, err := r.Write(out); err != nil {
				t.Fatal(err)
			}
			files := []string{LeaderboardMD, LeaderboardCSV, ScenariosCSV, ComparisonsCSV, TaxonomyMD, TaxonomyCSV, RefinementMD, RefinementCSV, HealthCSV}
			if mode == rubric.Strict {
				files = []string{LeaderboardMD, LeaderboardCSV}
			}
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(out, f))
				must(t, err)
				golden(t, filepath.Join("golden", string(mode), f), b)
			}
		})
	}
}

func TestFixtureReportContents(t *testing.T) {
	fs := writeFixtureSet(t)
	r := buildFixtureReport(t, fs, Options{})
	if got := r.ModelNames(); !reflect.DeepEqual(got, []string{"alpha-sql", "beta-coder"}) {
		t.Fatalf("models %v: gradings of one model for two splits must make one model", got)
	}
	if !reflect.DeepEqual(r.Splits, []string{"validation", "test"}) {
		t.Errorf("splits %v", r.Splits)
	}
	beta := r.Model("beta-coder")
	// The judge error (recorded 1) and the unreadable reply are invalid or
	// re-read; the missing decision leaves a leaf without verdict.
	h := r.Health[1]
	if h.Model != "beta-coder" || h.JudgeErrors != 1 || h.Unparsed != 1 || h.Missing != 1 || h.BySource[SourceRecorded] != h.Passed+h.Failed+h.Invalid {
		t.Errorf("health %+v", h)
	}
	// Reference mode scores the judge error as the recorded 1; strict does not.
	refCell := r.Board(rubric.Reference, "beta-coder").Cell("validation", "Vital_Signs_Monitoring", All)
	strictCell := r.Board(rubric.Strict, "beta-coder").Cell("validation", "Vital_Signs_Monitoring", All)
	if refCell.InvalidLeaves == 0 || refCell.InvalidLeaves != strictCell.InvalidLeaves || strictCell.Exec.Mean > refCell.Exec.Mean {
		t.Errorf("reference %+v strict %+v", refCell, strictCell)
	}
	// Refinement: alpha rescues one validation task in round 1 and matches
	// its benchmark_summary.json; beta never runs one task.
	var alphaVal, betaVal *RefinementRow
	for i := range r.Refinement {
		x := &r.Refinement[i]
		if x.Split != "validation" {
			continue
		}
		switch x.Model {
		case "alpha-sql":
			alphaVal = x
		case "beta-coder":
			betaVal = x
		}
	}
	if alphaVal == nil || !reflect.DeepEqual(alphaVal.Cumulative, []int{2, 3, 3}) || alphaVal.Mismatch || !reflect.DeepEqual(alphaVal.Published, []int{2, 3, 3}) || alphaVal.Warned != 1 {
		t.Errorf("alpha refinement %+v", alphaVal)
	}
	if betaVal == nil || !reflect.DeepEqual(betaVal.Cumulative, []int{1, 1, 2}) || betaVal.Failed != 1 || betaVal.Published != nil || betaVal.Warned != 0 {
		t.Errorf("beta refinement %+v", betaVal)
	}
	if len(beta.Outputs) != 4 {
		t.Errorf("beta outputs %d", len(beta.Outputs))
	}
	// beta-coder abstains on its one test task: RS(0) = RS(10) = 0; alpha
	// answers it with an execution score below 1: -c.
	if rs := r.Board(rubric.Reference, "beta-coder").Cell("test", All, All).RS; rs == nil || rs.AbstainedAnswerable != 1 || rs.RS0 != 0 || rs.RS10 != 0 {
		t.Errorf("beta test RS %+v", rs)
	}
	if rs := r.Board(rubric.Reference, "alpha-sql").Cell("test", All, All).RS; rs == nil || rs.Wrong != 1 || rs.RS10 != -1000 {
		t.Errorf("alpha test RS %+v", rs)
	}
	byRS := buildFixtureReport(t, fs, Options{RankBy: MetricRS10})
	if got := byRS.Ranking("test").Models; !reflect.DeepEqual(got, []string{"beta-coder", "alpha-sql"}) {
		t.Errorf("ranked by RS(10) on test: %v", got)
	}
	// Adjacent comparison in each split, every difficulty plus all.
	if len(r.Comparisons) == 0 || r.Comparisons[0].N == 0 {
		t.Errorf("comparisons %+v", r.Comparisons)
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	xs := []float64{1, 0, 0.5, 0.25, 1, 1, 0, 0.75, 0.3, 0.9}
	ys := []float64{0, 0, 1, 1, 0.5, 0.5, 1, 0, 0, 1}
	b := Bootstrap{Seed: 42, Resamples: 1000}
	first := b.Means("cell", xs, ys)
	again := b.Means("cell", xs, ys)
	if !reflect.DeepEqual(first, again) {
		t.Fatalf("same seed, different intervals: %v vs %v", first, again)
	}
	if other := (Bootstrap{Seed: 43, Resamples: 1000}).Means("cell", xs, ys); reflect.DeepEqual(first, other) {
		t.Errorf("seeds 42 and 43 gave the same intervals %v", first)
	}
	if other := b.Means("another cell", xs, ys); reflect.DeepEqual(first, other) {
		t.Errorf("cells share their draws")
	}
	for i, iv := range first {
		if !(iv.Lo <= iv.Mean && iv.Mean <= iv.Hi) || iv.Lo < 0 || iv.Hi > 1 {
			t.Errorf("interval %d = %+v", i, iv)
		}
	}
	// A constant column has a degenerate interval; no tasks, none at all.
	if c := b.Means("const", []float64{0.5, 0.5, 0.5})[0]; c.Lo != 0.5 || c.Hi != 0.5 {
		t.Errorf("constant: %+v", c)
	}
	if e := b.Means("empty", []float64{})[0]; !math.IsNaN(e.Lo) || !math.IsNaN(e.Mean) {
		t.Errorf("empty: %+v", e)
	}
	// The paired difference of a model with itself is exactly 0.
	if p := b.Paired("self", xs, xs); p.Mean != 0 || p.Lo != 0 || p.Hi != 0 {
		t.Errorf("self difference %+v", p)
	}
}

func TestBootstrapReportIndependentOfOtherModels(t *testing.T) {
	fs := writeFixtureSet(t)
	both := buildFixtureReport(t, fs, Options{})
	opt := Options{Tasks: fs.tasks, Gradings: fs.gradings[:2], Runs: fs.runs[:1], Bootstrap: Bootstrap{Seed: 7, Resamples: 500}}
	alone, err := Build(context.Background(), opt)
	must(t, err)
	a, b := both.Board(rubric.Reference, "alpha-sql"), alone.Board(rubric.Reference, "alpha-sql")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("alpha-sql's cells changed when beta-coder was added")
	}
	again := buildFixtureReport(t, fs, Options{})
	var x, y bytes.Buffer
	must(t, both.WriteJSON(&x))
	must(t, again.WriteJSON(&y))
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Errorf("two builds with the same seed wrote different report.json")
	}
}

func TestQuantileMatchesNumpy(t *testing.T) {
	// numpy.quantile([1, 2, 3, 4], [0.025, 0.5, 0.975]) = [1.075, 2.5, 3.925]
	xs := []float64{1, 2, 3, 4}
	for q, want := range map[float64]float64{0.025: 1.075, 0.5: 2.5, 0.975: 3.925, 0: 1, 1: 4} {
		if got := quantile(xs, q); math.Abs(got-want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", q, got, want)
		}
	}
}

func TestClassifyLeaves(t *testing.T) {
	tree := func(cat string, leafID, req string) *rubric.Node {
		root := &rubric.Node{ID: "root"}
		c := &rubric.Node{ID: cat, Parent: root}
		l := &rubric.Node{ID: leafID, Requirements: req, Parent: c}
		root.Children = []*rubric.Node{c}
		c.Children = []*rubric.Node{l}
		return l
	}
	for _, tc := range []struct {
		tree         Tree
		cat, id, req string
		want         Bucket
	}{
		{TreeResults, "output-format-validation", "csv-file-exists", "A CSV file exists.", BucketOutput},
		{TreeResults, "output-feature-validation", "clinically-plausible", "Clinically Plausible (0-20)", BucketValues},
		{TreeResults, "clinical-value-validation", "first-day-hr", "Acceptable Range (60-100) for the first day", BucketValues},
		{TreeSQL, "patient-cohort-construction", "gender-selection", "Filters to female patients with `p.gender = 'F'`.", BucketCohort},
		{TreeSQL, "patient-cohort-construction", "age-range-selection", "patients within the 81-91 age range", BucketCohort},
		{TreeSQL, "patient-cohort-construction", "first-icu-stay-selection", "isolate the first ICU stay", BucketTemporal},
		{TreeSQL, "medical-concept-implementation", "creatinine-itemid", "Identifies creatinine with `itemid = 50912`.", BucketCohort},
		{TreeSQL, "procedure-identification", "cardiac-code-selection", "Selects cardiac ICD codes.", BucketCohort},
		{TreeSQL, "database-integration", "join-logic", "Joins `patients` and `procedures_icd` on `subject_id`.", BucketIntegration},
		{TreeSQL, "data-integration", "core-table-joins", "joins tables to form the initial patient cohort", BucketIntegration},
		{TreeSQL, "clinical-analytics", "percentile-calculation", "Takes the 75th percentile.", BucketAggregation},
		{TreeSQL, "clinical-analytics", "hospital-los-calculation", "Calculates hospital length of stay in days", BucketTemporal},
		{TreeSQL, "database-integration", "chartevents-window", "Limits heart rate to the first 24 hours after `intime`.", BucketTemporal},
		{TreeSQL, "temporal-logic-and-ranking", "ranking", "Ranks events.", BucketTemporal},
		{TreeSQL, "output-formatting", "rounding", "Rounds to two decimals.", BucketOutput},
		{TreeSQL, "final-aggregation-and-output", "final-select", "Selects the three metrics.", BucketAggregation},
		{TreeSQL, "instability-score-calculation", "score", "Sums the components.", BucketAggregation},
		{TreeSQL, "readmission-analysis", "flag", "Flags 30-day readmissions.", BucketTemporal},
	} {
		got, _ := Classify(tc.tree, tree(tc.cat, tc.id, tc.req))
		if got != tc.want {
			t.Errorf("%s %s/%s %q: %s, want %s", tc.tree, tc.cat, tc.id, tc.req, got, tc.want)
		}
	}
}

func TestInputErrors(t *testing.T) {
	fs := writeFixtureSet(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "detailed_grading.json")
	must(t, os.WriteFile(bad, []byte(`{"summary": {"experiment_model": "x"}, "detailed_evaluations": [{"sql_score": "high"}]}`), 0o644))
	lonely := writeFixtureRun(t, filepath.Join(dir, "lonely"), "gamma")
	for _, tc := range []struct {
		name string
		opt  Options
		want []string
	}{
		{"malformed grading", Options{Gradings: []string{bad}}, []string{"--grading " + bad}},
		{"missing grading", Options{Gradings: []string{filepath.Join(dir, "nope.json")}}, []string{"nope.json"}},
		{"run without decisions", Options{Gradings: fs.gradings[:1], Runs: []string{lonely}}, []string{"--run " + lonely, `model "gamma"`}},
		{"unknown comparison", Options{Gradings: fs.gradings, Compare: [][2]string{{"alpha-sql", "delta"}}}, []string{`no model "delta"`, "alpha-sql, beta-coder"}},
		{"nothing", Options{}, []string{"nothing to report"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Tasks = fs.tasks
			_, err := Build(context.Background(), tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			if missing, ok := containsAll(err.Error(), tc.want...); !ok {
				t.Errorf("error %q lacks %q", err, missing)
			}
		})
	}
}

func TestHTMLEscapesModelAndJudgeText(t *testing.T) {
	fs := writeFixtureSet(t)
	fs.gradings = append(fs.gradings, writeHostileGrading(t, t.TempDir()))
	r := buildFixtureReport(t, fs, Options{})
	var buf bytes.Buffer
	must(t, r.WriteHTML(&buf))
	page := buf.String()
	for _, raw := range []string{"<script>window.__pwned", "</script><script>", `<img src=x onerror=`, "<b>bold</b>", "<broken>", hostileModel} {
		if strings.Contains(page, raw) {
			t.Errorf("report.html holds %q unescaped", raw)
		}
	}
	// The page has exactly the one script block of its own.
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d <script tags, want 1", n)
	}
	// The hostile name is in the page, escaped, in the leaderboard and the
	// charts.
	if n := strings.Count(page, "evil&lt;script&gt;window.__pwned = 3&lt;/script&gt;"); n < 3 {
		t.Errorf("the hostile model name appears escaped %d times", n)
	}
	// The drill-down data holds the model's SQL and the judge's text as data.
	blobs := drillBlobs(t, page)
	if !strings.Contains(blobs, `\u003c/script\u003e\u003cscript\u003ewindow.__pwned`) || !strings.Contains(blobs, `\u003cimg src=x onerror=`) {
		t.Errorf("the hostile SQL and explanation are not in the drill-down data")
	}
	// Markdown renders HTML too: names are escaped there as well.
	var md bytes.Buffer
	r.WriteLeaderboardMarkdown(&md)
	if strings.Contains(md.String(), "<script>") || !strings.Contains(md.String(), "evil&lt;script&gt;") {
		t.Errorf("leaderboard.md does not escape the model name")
	}
}

// hostileModel is a model name that is markup.
const hostileModel = "evil<script>window.__pwned = 3</script>"

// writeHostileGrading writes a validation grading for a model whose name is
// markup.
func writeHostileGrading(t testing.TB, dir string) string {
	p := filepath.Join(dir, "detailed_grading.json")
	must(t, fixtures.WriteGrading(p, hostileModel, "validation", func(task fixtures.Task, leaf string, sql bool) (fixtures.Decision, bool) {
		return fixtures.Decision{Score: 1, Explanation: "<script>window.__pwned = 4</script>"}, true
	}))
	return p
}

// drillBlobs decodes the page's compressed drill-down data into one string.
func drillBlobs(t *testing.T, page string) string {
	t.Helper()
	i := strings.Index(page, "var BLOBS = ")
	if i < 0 {
		t.Fatal("no BLOBS in the page")
	}
	rest := page[i+len("var BLOBS = "):]
	var blobs htmlBlobs
	must(t, json.NewDecoder(strings.NewReader(rest)).Decode(&blobs))
	var out strings.Builder
	for _, b := range append([]string{blobs.Tasks}, blobs.Models...) {
		raw, err := base64.StdEncoding.DecodeString(b)
		must(t, err)
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		must(t, err)
		data, err := io.ReadAll(zr)
		must(t, err)
		out.Write(data)
	}
	return out.String()
}

func TestRulesAreWellFormed(t *testing.T) {
	seen := map[Bucket]bool{}
	for i, r := range Rules {
		if r.Why == "" {
			t.Errorf("rule %d has no description", i+1)
		}
		seen[r.Bucket] = true
	}
	for _, b := range Buckets {
		if !seen[b] {
			t.Errorf("no rule yields bucket %q", b)
		}
	}
	// The last rule of each tree matches anything, so every leaf gets a
	// bucket.
	last := map[Tree]bool{}
	for _, r := range Rules {
		if r.Category == "" && r.Text == "" {
			last[r.Tree] = true
		}
	}
	if !last[TreeSQL] || !last[TreeResults] {
		t.Errorf("catch-all rules: %v", last)
	}
}
