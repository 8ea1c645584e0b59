package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/scoring"
)

// Files written by Write, relative to its folder.
const (
	LeaderboardMD  = "leaderboard.md"
	LeaderboardCSV = "leaderboard.csv"
	ScenariosMD    = "scenarios.md"
	ScenariosCSV   = "scenarios.csv"
	ComparisonsCSV = "comparisons.csv"
	TaxonomyMD     = "taxonomy.md"
	TaxonomyCSV    = "taxonomy.csv"
	TaxonomyLeaves = "taxonomy_leaves.csv"
	TaxonomyRules  = "taxonomy_rules.csv"
	RefinementMD   = "refinement.md"
	RefinementCSV  = "refinement.csv"
	HealthCSV      = "health.csv"
	TasksCSV       = "tasks.csv"
	ReportJSON     = "report.json"
	ReportHTML     = "report.html"
	// FiguresDir (figures/) holds every chart as an SVG file.
	ModelSummaryDir = "models"
)

// Write writes every output file into dir and returns their paths, the
// HTML report last. Each file is written through a temporary file and a
// rename, so a reader never sees half a file.
func (r *Report) Write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	put := func(name string, render func(io.Writer) error) error {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.Write(p, buf.Bytes()); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	md := func(f func(io.Writer)) func(io.Writer) error {
		return func(w io.Writer) error { f(w); return nil }
	}
	if len(r.Models) == 0 {
		// An EHRSQL section alone: its figures and the page.
		if err := os.MkdirAll(filepath.Join(dir, FiguresDir), 0o755); err != nil {
			return nil, err
		}
		files, err := r.writeFigures(filepath.Join(dir, FiguresDir))
		if err != nil {
			return files, err
		}
		err = put(ReportHTML, r.WriteHTML)
		return append(files, written...), err
	}
	tx, leaves, rules := r.taxonomyRows()
	steps := []struct {
		name   string
		render func(io.Writer) error
	}{
		{LeaderboardMD, md(r.WriteLeaderboardMarkdown)},
		{LeaderboardCSV, func(w io.Writer) error { return writeCSV(w, r.LeaderboardRows()) }},
		{ScenariosMD, md(r.WriteScenariosMarkdown)},
		{ScenariosCSV, func(w io.Writer) error { return writeCSV(w, r.scenarioRows()) }},
		{ComparisonsCSV, func(w io.Writer) error { return writeCSV(w, r.comparisonRows()) }},
		{TaxonomyMD, md(r.WriteTaxonomyMarkdown)},
		{TaxonomyCSV, func(w io.Writer) error { return writeCSV(w, tx) }},
		{TaxonomyLeaves, func(w io.Writer) error { return writeCSV(w, leaves) }},
		{TaxonomyRules, func(w io.Writer) error { return writeCSV(w, rules) }},
		{RefinementMD, md(r.WriteRefinementMarkdown)},
		{RefinementCSV, func(w io.Writer) error { return writeCSV(w, r.refinementRows()) }},
		{HealthCSV, func(w io.Writer) error { return writeCSV(w, r.healthRows()) }},
		{TasksCSV, func(w io.Writer) error { return writeCSV(w, r.taskRows()) }},
		{ReportJSON, r.WriteJSON},
		{LeaderboardTeX, md(r.WriteLeaderboardLaTeX)},
	}
	for _, s := range steps {
		if err := put(s.name, s.render); err != nil {
			return written, err
		}
	}
	files, err := r.writeModelSummaries(filepath.Join(dir, ModelSummaryDir))
	written = append(written, files...)
	if err != nil {
		return written, err
	}
	if err := os.MkdirAll(filepath.Join(dir, FiguresDir), 0o755); err != nil {
		return written, err
	}
	files, err = r.writeFigures(filepath.Join(dir, FiguresDir))
	written = append(written, files...)
	if err != nil {
		return written, err
	}
	if err := put(ReportHTML, r.WriteHTML); err != nil {
		return written, err
	}
	return written, nil
}

// writeModelSummaries writes each model's scores in the reference's three
// summary files, per split and mode: models/<model>/<split>/<mode>/.
// Reference-mode files equal what the published scorer writes.
func (r *Report) writeModelSummaries(dir string) ([]string, error) {
	var written []string
	used := map[string]bool{}
	for _, m := range r.Models {
		s := slug(m.Name)
		for i := 2; used[s]; i++ {
			s = fmt.Sprintf("%s_%d", slug(m.Name), i)
		}
		used[s] = true
		for _, mode := range r.Modes() {
			full := m.Rescored(mode)
			for _, split := range r.Splits {
				part := *full
				part.Tasks = nil
				for _, t := range full.Tasks {
					if t.Key.Split == split {
						part.Tasks = append(part.Tasks, t)
					}
				}
				if len(part.Tasks) == 0 {
					continue
				}
				part.Split = split
				out := filepath.Join(dir, s, split, modeName(mode))
				if err := part.WriteFiles(out); err != nil {
					return written, err
				}
				for _, f := range []string{scoring.ScoringFile, scoring.DifficultyFile, scoring.ScenarioFile} {
					written = append(written, filepath.Join(out, f))
				}
			}
		}
	}
	return written, nil
}

// JSON shapes of report.json. Scores are fractions: score is the published
// 6-decimal figure, ci the bootstrap interval (null without tasks).

type jsonInterval struct {
	Score float64   `json:"score"`
	CI    []float64 `json:"ci"`
}

func jsonScore(i Interval) jsonInterval {
	j := jsonInterval{Score: scoring.Round6(i.Mean)}
	if !math.IsNaN(i.Lo) {
		j.CI = []float64{i.Lo, i.Hi}
	}
	return j
}

func jsonDiff(i Interval) jsonInterval {
	j := jsonInterval{Score: i.Mean}
	if !math.IsNaN(i.Lo) {
		j.CI = []float64{i.Lo, i.Hi}
	}
	return j
}

type jsonCell struct {
	Model         string       `json:"model"`
	Mode          string       `json:"mode"`
	Split         string       `json:"split"`
	Scenario      string       `json:"scenario"`
	Difficulty    string       `json:"difficulty"`
	N             int          `json:"total_samples"`
	SQL           jsonInterval `json:"sql_score"`
	Exec          jsonInterval `json:"results_score"`
	InvalidLeaves int          `json:"invalid_leaves"`
	InvalidTasks  int          `json:"tasks_with_invalid_leaves"`
	Ungraded      int          `json:"ungraded_tasks"`
	// Reliability is RS(c) x100 with the outcome counts, absent without
	// run outputs.
	Reliability *reliability.Scores `json:"reliability,omitempty"`
}

type jsonReport struct {
	Generator string          `json:"generator"`
	Producer  buildinfo.Stamp `json:"producer"`
	Mode      string          `json:"mode"`
	Bootstrap struct {
		Seed      uint64  `json:"seed"`
		Resamples int     `json:"resamples"`
		Level     float64 `json:"level"`
	} `json:"bootstrap"`
	RankBy      string `json:"rank_by"`
	Reliability struct {
		Marker    string  `json:"abstention_marker"`
		Lenient   bool    `json:"lenient_abstention"`
		Threshold float64 `json:"correct_threshold"`
	} `json:"reliability"`
	// Subset describes the task filter of a report over part of the tasks.
	Subset      string           `json:"subset,omitempty"`
	Splits      []string         `json:"splits"`
	Models      []jsonModel      `json:"models"`
	Rankings    []Ranking        `json:"rankings"`
	Leaderboard []jsonCell       `json:"leaderboard"`
	Comparisons []jsonComparison `json:"comparisons"`
	Taxonomy    struct {
		Rules          []RuleRow         `json:"rules"`
		TemporalRegexp string            `json:"temporal_regexp"`
		Rows           []TaxonomyCSVRow  `json:"buckets"`
		TopLeaves      []TaxonomyLeafRow `json:"top_failing_leaves"`
	} `json:"taxonomy"`
	Refinement []RefinementRow `json:"refinement"`
	Health     []HealthRow     `json:"judge_health"`
	Warnings   []string        `json:"warnings"`
}

// jsonModel is a model of report.json and the files it was read from.
type jsonModel struct {
	Name     string   `json:"name"`
	Gradings []string `json:"gradings"`
	Run      string   `json:"run,omitempty"`
	// Database says what data the run ran on when it was not the whole
	// of MIMIC-IV on BigQuery (absent then).
	Database *DatabaseNote `json:"database,omitempty"`
}

// jsonComparison is a paired difference between two models in report.json.
type jsonComparison struct {
	A          string       `json:"model_a"`
	B          string       `json:"model_b"`
	Mode       string       `json:"mode"`
	Split      string       `json:"split"`
	Difficulty string       `json:"difficulty"`
	N          int          `json:"n_paired"`
	SQL        jsonInterval `json:"sql_diff"`
	Exec       jsonInterval `json:"results_diff"`
}

// WriteJSON writes report.json: every table of the report in one document.
func (r *Report) WriteJSON(w io.Writer) error {
	var j jsonReport
	j.Generator = "clinsql report"
	j.Producer = buildinfo.Current()
	j.Mode = modeName(r.Mode)
	j.Bootstrap.Seed, j.Bootstrap.Resamples, j.Bootstrap.Level = r.Bootstrap.Seed, r.Bootstrap.Resamples, r.Bootstrap.Level
	j.RankBy = string(r.RankBy)
	j.Reliability.Marker, j.Reliability.Lenient, j.Reliability.Threshold = r.Reliability.Abstention.Marker, r.Reliability.Abstention.Lenient, r.Reliability.Threshold
	j.Splits = r.Splits
	j.Subset = r.Subset
	for _, m := range r.Models {
		j.Models = append(j.Models, jsonModel{m.Name, m.Gradings, m.Run, m.Database})
	}
	j.Rankings = r.Rankings
	for _, mode := range r.Modes() {
		for _, b := range r.Boards[mode] {
			for _, c := range b.Cells {
				j.Leaderboard = append(j.Leaderboard, jsonCell{Model: b.Model, Mode: modeName(mode), Split: c.Split, Scenario: c.Scenario,
					Difficulty: c.Difficulty, N: c.N, SQL: jsonScore(c.SQL), Exec: jsonScore(c.Exec),
					InvalidLeaves: c.InvalidLeaves, InvalidTasks: c.InvalidTasks, Ungraded: c.Ungraded, Reliability: c.RS})
			}
		}
	}
	for _, c := range r.Comparisons {
		j.Comparisons = append(j.Comparisons, jsonComparison{c.A, c.B, modeName(c.Mode), c.Split, c.Difficulty, c.N, jsonDiff(c.SQL), jsonDiff(c.Exec)})
	}
	j.Taxonomy.Rows, j.Taxonomy.TopLeaves, j.Taxonomy.Rules = r.taxonomyRows()
	j.Taxonomy.TemporalRegexp = temporalText
	j.Refinement = r.Refinement
	j.Health = r.Health
	j.Warnings = []string{}
	for _, w := range r.Warnings {
		j.Warnings = append(j.Warnings, w.Error())
	}
	sort.Strings(j.Warnings)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
