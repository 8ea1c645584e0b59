package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestRSColumnsOnlyWithAbstentions: RS(c) columns appear in the leaderboard
// (Markdown and HTML) only when some model abstained on some task; without
// one they only restate the execution accuracy with a penalty (-668 to
// -1000 for every model on ClinSQL).
func TestRSColumnsOnlyWithAbstentions(t *testing.T) {
	fs := writeFixtureSet(t)
	alphaOnly := *fs
	alphaOnly.gradings, alphaOnly.runs = fs.gradings[:2], fs.runs[:1] // alpha-sql never abstains
	for _, tc := range []struct {
		name string
		set  *fixtureSet
		want bool
	}{{"no abstention", &alphaOnly, false}, {"beta-coder abstains", fs, true}} {
		r := buildFixtureReport(t, tc.set, Options{})
		var md, html bytes.Buffer
		r.WriteLeaderboardMarkdown(&md)
		if err := r.WriteHTML(&html); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(md.String(), "RS(10)"); got != tc.want {
			t.Errorf("%s: Markdown leaderboard has RS columns: %v, want %v", tc.name, got, tc.want)
		}
		if got := strings.Contains(html.String(), "<th>RS(10)</th>"); got != tc.want {
			t.Errorf("%s: HTML leaderboard has RS columns: %v, want %v", tc.name, got, tc.want)
		}
	}
}
