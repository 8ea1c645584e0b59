package reports

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/rubric"
)

// TestOutputsStateModeAndBuild is issue 12's observation 9 for the report:
// strict is the default mode, and every output says which mode its figures
// are in and which clinsql build made it: report.json (mode and build), each
// CSV row with scores (a mode column), the Markdown and HTML headers.
func TestOutputsStateModeAndBuild(t *testing.T) {
	fs := writeFixtureSet(t)
	stamp := buildinfo.Current()
	for _, tc := range []struct {
		opt  rubric.Mode
		want string
	}{{"", "strict"}, {rubric.Strict, "strict"}, {rubric.Reference, "reference"}} {
		t.Run(tc.want+"/"+string(tc.opt), func(t *testing.T) {
			r := buildFixtureReport(t, fs, Options{Mode: tc.opt})
			out := t.TempDir()
			if _, err := r.Write(out); err != nil {
				t.Fatal(err)
			}
			var j struct {
				Mode     string          `json:"mode"`
				Producer buildinfo.Stamp `json:"producer"`
			}
			b, err := os.ReadFile(filepath.Join(out, ReportJSON))
			must(t, err)
			must(t, json.Unmarshal(b, &j))
			if j.Mode != tc.want || j.Producer != stamp {
				t.Errorf("report.json: mode %q, producer %+v; want %q, %+v", j.Mode, j.Producer, tc.want, stamp)
			}
			header := "Main mode: " + tc.want + ";"
			for _, f := range []string{TaxonomyMD, RefinementMD} {
				b, err := os.ReadFile(filepath.Join(out, f))
				must(t, err)
				if !strings.Contains(string(b), "Made by clinsql "+stamp.String()) {
					t.Errorf("%s does not name the clinsql build", f)
				}
			}
			for _, f := range []string{LeaderboardMD, ScenariosMD, ReportHTML} {
				b, err := os.ReadFile(filepath.Join(out, f))
				must(t, err)
				if !strings.Contains(string(b), header) || !strings.Contains(string(b), "Made by clinsql "+stamp.String()) {
					t.Errorf("%s does not state %q and the clinsql build", f, header)
				}
			}
			// Leaderboard rows are in the main mode; scenario and
			// comparison rows name theirs.
			for _, f := range []string{LeaderboardCSV, ScenariosCSV, ComparisonsCSV} {
				fh, err := os.Open(filepath.Join(out, f))
				must(t, err)
				rows, err := csv.NewReader(fh).ReadAll()
				fh.Close()
				must(t, err)
				col := -1
				for i, h := range rows[0] {
					if h == "mode" {
						col = i
					}
				}
				if col < 0 || len(rows) < 2 {
					t.Fatalf("%s: no mode column or no rows: %v", f, rows[0])
				}
				for _, row := range rows[1:] {
					if m := row[col]; m != "strict" && m != "reference" || f == LeaderboardCSV && m != tc.want {
						t.Errorf("%s: row in mode %q (main mode %s)", f, m, tc.want)
						break
					}
				}
			}
		})
	}
}
