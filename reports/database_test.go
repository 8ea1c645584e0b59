package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/runfolder"
)

// TestSampleDatabaseBadge: a run executed on a sample database (the
// embedded engine on the 100-patient demo) carries a badge with the engine
// and patient count and a caveat that its scores are not comparable with
// BigQuery runs, in the HTML, the Markdown, leaderboard.csv and
// report.json; a run without a manifest (a released run, executed on
// BigQuery) carries none; what a manifest does not say is said to be
// unknown.
func TestSampleDatabaseBadge(t *testing.T) {
	const sampleBadge = "sample DB: duckdb, 100 patients"
	for _, tc := range []struct {
		name   string
		engine *runfolder.Engine // alpha-sql's manifest; nil: none
		badge  string            // "": none
		caveat string
	}{
		{"demo", &runfolder.Engine{Name: "duckdb", DatabaseFacts: runfolder.DatabaseFacts{Patients: 100, Sample: true, Source: "mimic-iv-demo"}},
			sampleBadge, "alpha-sql ran on a sample database (duckdb, 100 patients, built from mimic-iv-demo): its scores are not comparable with runs on BigQuery"},
		{"sample flag contradicting the count", &runfolder.Engine{Name: "duckdb", DatabaseFacts: runfolder.DatabaseFacts{Patients: 100, Source: "mimic-iv-demo"}},
			sampleBadge, "not comparable with runs on BigQuery"},
		{"no manifest", nil, "", ""},
		{"bigquery", &runfolder.Engine{Name: "bigquery"}, "", ""},
		{"whole of MIMIC-IV on duckdb", &runfolder.Engine{Name: "duckdb", DatabaseFacts: runfolder.DatabaseFacts{Patients: 364627}}, "", ""},
		{"patients not recorded", &runfolder.Engine{Name: "duckdb", Database: "123@2026-01-01T00:00:00Z"},
			"duckdb, patient count unknown", "it may be a sample"},
		{"engine not recorded", &runfolder.Engine{}, "engine unknown, patient count unknown", "names no engine and no patient count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := writeFixtureSet(t)
			alpha := fs.runs[0]
			os.Remove(filepath.Join(alpha, runfolder.ManifestFile))
			if tc.engine != nil {
				must(t, runfolder.WriteManifest(alpha, &runfolder.Manifest{Benchmark: "clinsql", Model: "alpha-sql", Command: "generate", Engine: *tc.engine, Complete: true}))
			}
			r := buildFixtureReport(t, fs, Options{})
			out := t.TempDir()
			if _, err := r.Write(out); err != nil {
				t.Fatal(err)
			}
			read := func(f string) string {
				b, err := os.ReadFile(filepath.Join(out, f))
				must(t, err)
				return string(b)
			}
			html, md, csv := read(ReportHTML), read(LeaderboardMD), read(LeaderboardCSV)
			if tc.badge == "" {
				for f, s := range map[string]string{ReportHTML: html, LeaderboardMD: md} {
					if strings.Contains(s, `class="badge sample"`) || strings.Contains(s, "Caveat") || strings.Contains(s, "patients") {
						t.Errorf("%s flags a run not known to be on a sample database", f)
					}
				}
			} else {
				for f, want := range map[string][]string{
					ReportHTML:     {`<span class="badge sample" title="alpha-sql`, ">" + tc.badge + "</span>", `<p class="caveat">alpha-sql`, tc.caveat},
					LeaderboardMD:  {"> **Caveat:** alpha-sql", tc.caveat, "alpha-sql (" + tc.badge + ")"},
					LeaderboardCSV: {"alpha-sql,validation,all,strict,", tc.badge},
				} {
					s := map[string]string{ReportHTML: html, LeaderboardMD: md, LeaderboardCSV: csv}[f]
					if miss, ok := containsAll(s, want...); !ok {
						t.Errorf("%s lacks %q", f, miss)
					}
				}
			}
			// beta-coder (no manifest) never has a badge.
			for _, line := range strings.Split(csv, "\n") {
				if strings.HasPrefix(line, "beta-coder,") && !strings.HasSuffix(line, ",") {
					t.Errorf("leaderboard.csv: beta-coder has a database badge: %s", line)
				}
			}
			var j struct {
				Models []struct {
					Name     string        `json:"name"`
					Database *DatabaseNote `json:"database"`
				} `json:"models"`
			}
			must(t, json.Unmarshal([]byte(read(ReportJSON)), &j))
			for _, m := range j.Models {
				want := ""
				if m.Name == "alpha-sql" {
					want = tc.badge
				}
				got := ""
				if m.Database != nil {
					got = m.Database.Badge
				}
				if got != want {
					t.Errorf("report.json: %s badge %q, want %q", m.Name, got, want)
				}
			}
			if tc.name == "demo" {
				n := r.Model("alpha-sql").Database
				if n.Engine != "duckdb" || n.Patients != 100 || !n.Sample || n.Source != "mimic-iv-demo" {
					t.Errorf("database note %+v", n)
				}
				// The drill-down data carry the badge to the model and task pages.
				var buf bytes.Buffer
				must(t, r.WriteHTML(&buf))
				if !strings.Contains(buf.String(), `"badge":"`+sampleBadge+`"`) {
					t.Error("the drill-down data lack the model's badge")
				}
			}
		})
	}
}
