package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/runfolder"
)

// TestReportSummaryRSOnlyWithAbstentions: the command's summary shows RS(0)
// and RS(10) under the rule of the HTML and Markdown leaderboards, only when
// some model abstained on some task; without one RS(c) only restates the
// execution score with a penalty.
func TestReportSummaryRSOnlyWithAbstentions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		abstain bool
	}{{"no abstention", false}, {"one abstention", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, grading := fixtureRun(t)
			runDir := writeModelRun(t, dir)
			if tc.abstain {
				ft := fixtures.Tasks()[0]
				p := filepath.Join(runDir, ft.Path(), runfolder.ExecutionSummaryFile)
				s := runfolder.ExecutionSummary{Query: ft.Question, FinalSQL: "null", Model: "fixture-model"}
				b, _ := json.Marshal(s)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runCLI(t, dir, "report", "--tasks", dir, "--out", filepath.Join(dir, "report"),
				"--run", runDir, "--grading", grading, "--resamples", "50")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if got := strings.Contains(stdout, "RS(10)"); got != tc.abstain {
				t.Errorf("summary shows RS(10): %v, want %v:\n%s", got, tc.abstain, stdout)
			}
		})
	}
}
