package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gocarina/gocsv"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// published is a model's published validation summaries.
type published struct {
	Summary struct {
		Model string  `json:"experiment_model"`
		N     int     `json:"total_samples"`
		SQL   float64 `json:"average_sql_score"`
		Exec  float64 `json:"average_results_score"`
	} `json:"summary"`
	Difficulty map[string]scoring.GroupAverage
	Scenarios  []struct {
		Category   string                          `json:"category"`
		N          int                             `json:"total_samples"`
		SQL        float64                         `json:"average_sql_score"`
		Exec       float64                         `json:"average_results_score"`
		Difficulty map[string]scoring.GroupAverage `json:"difficulty_breakdown"`
	} `json:"scenarios"`
}

func readPublished(t *testing.T, dir string) *published {
	t.Helper()
	p := &published{}
	read := func(name string, v any) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		must(t, err)
		must(t, json.Unmarshal(b, v))
	}
	read(scoring.ScoringFile, p)
	var diff struct {
		Breakdown map[string]scoring.GroupAverage `json:"difficulty_breakdown"`
	}
	read(scoring.DifficultyFile, &diff)
	p.Difficulty = diff.Breakdown
	read(scoring.ScenarioFile, p)
	return p
}

// x100 is how Table 4 prints a published 6-decimal average.
func x100(v float64) string { return fmt.Sprintf("%.2f", 100*v) }

// TestPublishedTable4 builds the report of the 16 released models from their
// recorded validation decisions (and their runs) and checks that the
// leaderboard reproduces every published figure of Table 4's columns, SQL and
// execution score per difficulty and average, x100 with two decimals, in
// reference mode: in the report's cells (exactly, at 6 decimals) and in the
// written leaderboard.csv. The expected values are read from each model's
// published scoring_results.json and difficulty_scoring_results.json;
// scenario and scenario x difficulty cells are checked against
// scenario_scoring_results.json.
func TestPublishedTable4(t *testing.T) {
	data := shared.Path(t, "clinsql-data")
	evalDir := filepath.Join(data, "outputs", "evaluation")
	entries, err := os.ReadDir(evalDir)
	must(t, err)
	var gradings, runs []string
	pubs := map[string]*published{}
	for _, e := range entries {
		dir := filepath.Join(evalDir, e.Name(), "validation")
		gradings = append(gradings, filepath.Join(dir, "detailed_grading.json"))
		runs = append(runs, filepath.Join(data, "outputs", "inference", e.Name()))
		p := readPublished(t, dir)
		pubs[p.Summary.Model] = p
	}
	if len(pubs) != 16 {
		t.Fatalf("%d released models, want 16", len(pubs))
	}
	tasks, err := datasets.LoadClinSQL(data)
	must(t, err)
	r, err := Build(context.Background(), Options{Tasks: tasks, Gradings: gradings, Runs: runs, Mode: rubric.Reference, Bootstrap: Bootstrap{Seed: 1, Resamples: 200}})
	must(t, err)
	out := t.TempDir()
	_, err = r.Write(out)
	must(t, err)
	f, err := os.Open(filepath.Join(out, LeaderboardCSV))
	must(t, err)
	defer f.Close()
	var rows []LeaderboardRow
	must(t, gocsv.UnmarshalFile(f, &rows))
	csvRow := map[[2]string]LeaderboardRow{}
	for _, row := range rows {
		csvRow[[2]string{row.Model, row.Difficulty}] = row
	}

	checked := 0
	for model, p := range pubs {
		b := r.Board(rubric.Reference, model)
		if b == nil {
			t.Errorf("%s: not in the report", model)
			continue
		}
		want := map[string]scoring.GroupAverage{All: {TotalSamples: p.Summary.N, AverageSQLScore: p.Summary.SQL, AverageResultsScore: p.Summary.Exec}}
		for d, g := range p.Difficulty {
			want[d] = g
		}
		for d, g := range want {
			c := b.Cell("validation", All, d)
			if c == nil || c.N != g.TotalSamples || scoring.Round6(c.SQL.Mean) != g.AverageSQLScore || scoring.Round6(c.Exec.Mean) != g.AverageResultsScore {
				t.Errorf("%s %s: cell %+v, published %+v", model, d, c, g)
				continue
			}
			row := csvRow[[2]string{model, d}]
			if row.N != g.TotalSamples || row.SQLScore != x100(g.AverageSQLScore) || row.ExecScore != x100(g.AverageResultsScore) ||
				row.RefSQL != row.SQLScore || row.RefExec != row.ExecScore {
				t.Errorf("%s %s: leaderboard.csv n %d SQL %s Exec %s, published n %d SQL %s Exec %s",
					model, d, row.N, row.SQLScore, row.ExecScore, g.TotalSamples, x100(g.AverageSQLScore), x100(g.AverageResultsScore))
			}
			// Strict figures stand beside them, over every task of the split.
			if row.StrictN != 0 && row.StrictSQL == "" || d == All && row.StrictN != 190 {
				t.Errorf("%s %s: strict n %d SQL %q", model, d, row.StrictN, row.StrictSQL)
			}
			checked++
		}
		for _, s := range p.Scenarios {
			c := b.Cell("validation", s.Category, All)
			if c == nil || c.N != s.N || scoring.Round6(c.SQL.Mean) != s.SQL || scoring.Round6(c.Exec.Mean) != s.Exec {
				t.Errorf("%s %s: cell %+v, published %d %v %v", model, s.Category, c, s.N, s.SQL, s.Exec)
			}
			for d, g := range s.Difficulty {
				c := b.Cell("validation", s.Category, d)
				if c == nil || c.N != g.TotalSamples || scoring.Round6(c.SQL.Mean) != g.AverageSQLScore || scoring.Round6(c.Exec.Mean) != g.AverageResultsScore {
					t.Errorf("%s %s %s: cell %+v, published %+v", model, s.Category, d, c, g)
				}
			}
		}
	}
	if checked != 16*4 {
		t.Errorf("checked %d Table 4 cells, want 64", checked)
	}

	// The refinement figures agree with every released benchmark_summary.json
	// but one, whose published counts its own execution summaries contradict.
	var mismatched []string
	n := 0
	for _, x := range r.Refinement {
		if x.Published == nil || len(x.Published) != 3 || x.Tasks != 190 {
			t.Errorf("%s: refinement %+v", x.Model, x)
		}
		if x.Mismatch {
			mismatched = append(mismatched, x.Model)
		}
		n++
	}
	if n != 16 || len(mismatched) != 1 || mismatched[0] != "Qwen/Qwen3-Next-80B-A3B-Instruct" {
		t.Errorf("%d refinement rows; mismatches %v", n, mismatched)
	}
}

// BenchmarkReportReleased builds and writes the report of the 16 released
// models (gradings and runs, 2000 bootstrap resamples), as clinsql report
// does.
func BenchmarkReportReleased(b *testing.B) {
	data := shared.Path(b, "clinsql-data")
	evalDir := filepath.Join(data, "outputs", "evaluation")
	entries, err := os.ReadDir(evalDir)
	must(b, err)
	var gradings, runs []string
	for _, e := range entries {
		gradings = append(gradings, filepath.Join(evalDir, e.Name(), "validation", "detailed_grading.json"))
		runs = append(runs, filepath.Join(data, "outputs", "inference", e.Name()))
	}
	tasks, err := datasets.LoadClinSQL(data)
	must(b, err)
	for b.Loop() {
		r, err := Build(context.Background(), Options{Tasks: tasks, Gradings: gradings, Runs: runs, Bootstrap: Bootstrap{Seed: 1}})
		must(b, err)
		_, err = r.Write(b.TempDir())
		must(b, err)
	}
}
