package scoring

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/rubric"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		rec    Record
		status rubric.Status
		kind   string
	}{
		{Record{Score: 1, Explanation: "The SQL filters males."}, rubric.Pass, KindDecided},
		{Record{Score: 0, Explanation: "Missing the age filter."}, rubric.Fail, KindDecided},
		{Record{Score: 1, Explanation: "Error: Error code: 400 - {'error': {'message': \"This model's maximum context length is 131072 tokens\"}}"}, rubric.Invalid, KindJudgeError},
		{Record{Score: 0, Explanation: "Evaluation failed: Azure OpenAI HTTP error 400: {\n  \"error\": ..."}, rubric.Invalid, KindJudgeError},
		{Record{Score: 1, Explanation: "{\"Score\": 0}\n{\"Explanation\": \"no age filter\"}"}, rubric.Fail, KindUnparsed},
		{Record{Score: 1, Explanation: "{\"Score\": 1, \"Explanation\": \"ok\"}"}, rubric.Pass, KindUnparsed},
		{Record{Score: 1, Explanation: "{\"Score\": 1}, {\"score\": 0}"}, rubric.Invalid, KindUnparsed},
		{Record{Score: 0.5, Explanation: "half right"}, rubric.Invalid, KindNonBinary},
		{Record{Score: 1, Explanation: "The error: none; the filter is right."}, rubric.Pass, KindDecided},
	} {
		v, kind, _ := Classify(tc.rec)
		if v.Status != tc.status || kind != tc.kind || v.Score != tc.rec.Score {
			t.Errorf("Classify(%q, %v) = %v %s, want %v %s", tc.rec.Explanation, tc.rec.Score, v.Status, kind, tc.status, tc.kind)
		}
	}
}

// fixtureGrading writes a detailed_grading.json for the fixture tasks of one
// split with the given per-leaf records, computing nothing itself.
func fixtureGrading(t *testing.T, dir string, recs func(task fixtures.Task, leaf string, sql bool) *Record) string {
	var evals []map[string]any
	for _, task := range fixtures.Tasks() {
		if task.Split != "validation" {
			continue
		}
		sqlLeaves, resLeaves := task.Leaves()
		sqlE, resE := map[string]Record{}, map[string]Record{}
		for _, l := range sqlLeaves {
			if r := recs(task, l, true); r != nil {
				sqlE[l] = *r
			}
		}
		for _, l := range resLeaves {
			if r := recs(task, l, false); r != nil {
				resE[l] = *r
			}
		}
		evals = append(evals, map[string]any{"sample_path": "/somewhere/m/" + filepath.ToSlash(task.Path()),
			"sql_score": 0.25, "results_score": 0.5, "sql_evaluations": sqlE, "results_evaluations": resE})
	}
	b, _ := json.Marshal(map[string]any{"summary": map[string]any{"experiment_model": "m", "split": "validation"}, "detailed_evaluations": evals})
	p := filepath.Join(dir, "detailed_grading.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRescoreFixtures(t *testing.T) {
	root := t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	tasks, err := datasets.LoadClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	// Every leaf passes, except: in DP/001 the critical percentile leaf under
	// the sequential analytics parent fails (reference ignores the flag,
	// strict zeroes the parent); in Lab/001 one results leaf is a recorded
	// API error scored 1; the VSM task is absent from the grading.
	path := fixtureGrading(t, root, func(task fixtures.Task, leaf string, sql bool) *Record {
		switch {
		case task.Domain == "Vital_Signs_Monitoring":
			return nil
		case leaf == "percentile-calculation":
			return &Record{Score: 0, Explanation: "uses PERCENTILE_CONT"}
		case task.Domain == "Laboratory_Results_Analysis" && leaf == "acceptable-range":
			return &Record{Score: 1, Explanation: "Error: Request timed out after 1 retries"}
		}
		return &Record{Score: 1, Explanation: "ok"}
	})
	g, err := ReadGrading(path)
	if err != nil {
		t.Fatal(err)
	}
	// The grading has two samples; the VSM task is not graded.
	g.Evaluations = g.Evaluations[:2]

	ref, err := Rescore(g, tasks, rubric.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Tasks) != 2 {
		t.Fatalf("reference scored %d tasks", len(ref.Tasks))
	}
	// DP/001: cohort 3*1, integration 2*1, analytics (seq) stops at the
	// failed leaf: (1+0)/2 -> (3+2+2*0.5)/7.
	if got, want := ref.Tasks[0].SQL.Value, 6.0/7; got != want {
		t.Errorf("reference DP SQL = %v, want %v", got, want)
	}
	if got := ref.Tasks[1].Results.Value; got != 1 {
		t.Errorf("reference Lab results = %v, want 1 (the error counts as a pass)", got)
	}

	strict, err := Rescore(g, tasks, rubric.Strict)
	if err != nil {
		t.Fatal(err)
	}
	if len(strict.Tasks) != 3 || strict.Tasks[2].Graded || len(strict.Warnings) != 1 {
		t.Fatalf("strict: %d tasks, warnings %v", len(strict.Tasks), strict.Warnings)
	}
	if got, want := strict.Tasks[0].SQL.Value, 5.0/7; got != want {
		t.Errorf("strict DP SQL = %v, want %v (critical leaf zeroes analytics)", got, want)
	}
	lab := strict.Tasks[1]
	if lab.Invalid() != 1 || lab.Kinds[KindJudgeError] != 1 || lab.Results.Value != 1.0/3*(1+2*0.5)/1 || lab.Results.Hi != 1 {
		t.Errorf("strict Lab results = %v in [%v, %v], invalid %d", lab.Results.Value, lab.Results.Lo, lab.Results.Hi, lab.Invalid())
	}
	if vsm := strict.Tasks[2]; vsm.SQL.Value != 0 || vsm.Invalid() == 0 || vsm.SQL.Hi != 1 {
		t.Errorf("ungraded task = %v [%v, %v]", vsm.SQL.Value, vsm.SQL.Lo, vsm.SQL.Hi)
	}

	out := t.TempDir()
	if err := strict.WriteFiles(out); err != nil {
		t.Fatal(err)
	}
	var sr struct {
		Summary struct {
			TotalSamples int     `json:"total_samples"`
			Invalid      int     `json:"tasks_with_invalid_leaves"`
			Mode         string  `json:"scoring_mode"`
			AvgSQL       float64 `json:"average_sql_score"`
		} `json:"summary"`
	}
	b, _ := os.ReadFile(filepath.Join(out, ScoringFile))
	if err := json.Unmarshal(b, &sr); err != nil {
		t.Fatal(err)
	}
	if sr.Summary.TotalSamples != 3 || sr.Summary.Invalid != 2 || sr.Summary.Mode != "strict" {
		t.Errorf("summary = %+v", sr.Summary)
	}

	// A sample whose task is unknown is an error naming the file.
	g.Evaluations[0].SamplePath = "/x/validation/Diagnostic_Procedures/easy_level_queries/999"
	if _, err := Rescore(g, tasks, rubric.Reference); err == nil || !strings.Contains(err.Error(), path+": detailed_evaluations[0]: no task") {
		t.Errorf("err = %v", err)
	}
}

// TestPublishedScores is the foundation's acceptance check: the recorded
// decisions of every released model reproduce every recorded task score and
// the three published summary files, byte for byte.
func TestPublishedScores(t *testing.T) {
	data := shared.Path(t, "clinsql-data")
	tasks, err := datasets.LoadClinSQL(data)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(data, "outputs", "evaluation", "*", "validation", "detailed_grading.json"))
	if len(files) != 16 {
		t.Fatalf("%d grading files, want 16", len(files))
	}
	checks, mismatches := 0, 0
	for _, f := range files {
		g, err := ReadGrading(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Rescore(g, tasks, rubric.Reference)
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range r.Tasks {
			checks += 2
			if ts.SQL.Value != ts.RecordedSQL {
				mismatches++
				t.Errorf("%s %s: sql_score %v, recorded %v", g.Model(), ts.Key, ts.SQL.Value, ts.RecordedSQL)
			}
			if ts.Results.Value != ts.RecordedResults {
				mismatches++
				t.Errorf("%s %s: results_score %v, recorded %v", g.Model(), ts.Key, ts.Results.Value, ts.RecordedResults)
			}
		}
		enc, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(f)
		for name, got := range map[string][]byte{ScoringFile: enc.Scoring, DifficultyFile: enc.Difficulty, ScenarioFile: enc.Scenario} {
			want, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, bytes.TrimRight(want, "\n")) {
				t.Errorf("%s %s differs from the published file", g.Model(), name)
			}
		}
	}
	t.Logf("%d task-score checks, %d mismatches", checks, mismatches)
	if checks != 6056 {
		t.Errorf("%d checks, want 6056", checks)
	}
}

// A record without a score (key absent or null) is invalid, not a fail:
// no judge decided the leaf. The reference's number (0) is kept.
func TestClassifyNoScore(t *testing.T) {
	for _, c := range []struct {
		json   string
		status rubric.Status
		kind   string
	}{
		{`{"explanation":"The SQL filters males."}`, rubric.Invalid, KindNoScore},
		{`{"score":null,"explanation":"The SQL filters males."}`, rubric.Invalid, KindNoScore},
		{`{"score":0,"explanation":"Missing the age filter."}`, rubric.Fail, KindDecided},
		{`{"score":1.0,"explanation":"ok"}`, rubric.Pass, KindDecided},
	} {
		var r Record
		if err := json.Unmarshal([]byte(c.json), &r); err != nil {
			t.Fatal(err)
		}
		v, kind, _ := Classify(r)
		if v.Status != c.status || kind != c.kind || (r.NoScore && v.Score != 0) {
			t.Errorf("%s: %v %s (score %v), want %v %s", c.json, v.Status, kind, v.Score, c.status, c.kind)
		}
	}
}
