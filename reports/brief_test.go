package reports

import (
	"bytes"
	"errors"
	"fmt"
	html_template "html/template"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBriefInvalidLeaves: the command's summary shows the main mode's
// invalid leaves and the tasks they sit in, as the HTML leaderboard does
// (it used to print the other mode's count, 0 where the HTML said 15 (1)),
// and the judge-health table shows the same figure over the model's splits
// beside its verdict counts (where "Invalid 0" stood beside the
// leaderboard's "15 (1)": a missing leaf is no invalid verdict, but it is
// an invalid leaf); each says what it counts.
func TestBriefInvalidLeaves(t *testing.T) {
	r := buildFixtureReport(t, writeFixtureSet(t), Options{})
	var b bytes.Buffer
	r.WriteBrief(&b)
	out := b.String()
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "invalid leaves (tasks): the leaves with no valid verdict") {
		t.Errorf("the summary does not say what invalid leaves count:\n%s", out)
	}
	if n := strings.Count(html.String(), html_template.HTMLEscapeString(InvalidLeavesNote)); n < 2 {
		t.Errorf("the HTML states the invalid leaves' definition %d times, want beside the leaderboard and the health table", n)
	}
	health := regexp.MustCompile(`(?s)<section id="health">.*?</section>`).FindString(html.String())
	sawMissing := false
	for _, h := range r.Health {
		leaves, tasks := 0, 0
		for _, split := range r.Splits {
			if c := r.Board(r.Mode, h.Model).Cell(split, All, All); c != nil {
				leaves += c.InvalidLeaves
				tasks += c.InvalidTasks
			}
		}
		if h.InvalidLeaves != leaves || h.InvalidTasks != tasks {
			t.Errorf("%s: health says %d (%d) invalid leaves, the leaderboard's splits %d (%d)", h.Model, h.InvalidLeaves, h.InvalidTasks, leaves, tasks)
		}
		if h.InvalidLeaves > h.Invalid {
			sawMissing = true // a missing or skipped leaf counted: not an invalid verdict
		}
		row := regexp.MustCompile(`<tr><td>` + regexp.QuoteMeta(h.Model) + `</td>(?s:.*?)</tr>`).FindString(health)
		if !strings.Contains(row, `<td class="num">`+h.invalidText()+`</td>`) {
			t.Errorf("%s: the health table's row lacks %q: %s", h.Model, h.invalidText(), row)
		}
	}
	if !sawMissing {
		t.Error("no model has an invalid leaf that is not an invalid verdict: the test shows nothing")
	}
	checked := 0
	for _, split := range r.Splits {
		for _, name := range r.Ranking(split).Models {
			c := r.Board(r.Mode, name).Cell(split, All, All)
			want := invalidText(c)
			found := false
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, " "+name) && strings.HasSuffix(strings.TrimSpace(line), want) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s: no summary line ending in %q:\n%s", split, name, want, out)
			}
			if c.InvalidLeaves > 0 {
				checked++
			}
			if !strings.Contains(html.String(), `<td class="num">`+want+`</td>`) {
				t.Errorf("%s %s: the HTML lacks %q", split, name, want)
			}
		}
	}
	if checked == 0 {
		t.Error("no model has invalid leaves: the test shows nothing")
	}
}

func TestJudgeLabel(t *testing.T) {
	for _, c := range []struct{ name, backend, want string }{
		{"llm:judge/gpt-4.1@v1+g1", "", "llm:judge/gpt-4.1@v1+g1"},
		{"replay:/home/me/clinsql-data/outputs/evaluation/gpt-5-chat/validation/detailed_grading.json",
			`replay:sha256:0123456789abcdef0123 model "gpt-5-chat"`,
			`replay of "gpt-5-chat"'s recorded decisions (detailed_grading.json, sha256 0123456789ab)`},
		{"replay:/abs/x/detailed_grading.json", `replay:sha256:0123456789abcdef model "m" results only where the result is the recorded one`,
			`replay of "m"'s recorded decisions (detailed_grading.json, sha256 0123456789ab), results only where the result is the recorded one`},
		{"replay:/home/me/outputs/evaluation/gpt-5-chat/validation/detailed_grading.json", "", "replay:gpt-5-chat/validation/detailed_grading.json"},
	} {
		if got := judgeLabel(c.name, c.backend); got != c.want {
			t.Errorf("judgeLabel(%q, %q) = %q, want %q", c.name, c.backend, got, c.want)
		}
		if strings.Contains(judgeLabel(c.name, c.backend), "/home/") {
			t.Errorf("%q: an absolute path in the label", c.name)
		}
	}
}

// TestNoMachinePaths: the report's pages name their inputs by their last
// parts (whose decisions, which run), not by where they lay on the machine
// that made the report; report.json keeps the full paths.
func TestNoMachinePaths(t *testing.T) {
	fs := writeFixtureSet(t)
	r := buildFixtureReport(t, fs, Options{})
	// A warning names its file by its full path, as every reader's error
	// does; the page shows it as it shows the file elsewhere.
	var grading string
	for _, m := range r.Models {
		if m.Name == "alpha-sql" {
			grading = m.Gradings[0]
		}
	}
	r.Warnings = append(r.Warnings, fmt.Errorf("%s: leaf 3 has no verdict", grading))
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "alpha-sql/validation/detailed_grading.json: leaf 3 has no verdict") {
		t.Error("the warning does not name its file as <model>/<split>/detailed_grading.json")
	}
	machine := filepath.Dir(fs.root)
	if i := strings.Index(html.String(), machine); i >= 0 {
		t.Errorf("report.html shows the machine's path %s: ...%s...", machine, html.String()[max(0, i-200):min(html.Len(), i+200)])
	}
	if !strings.Contains(html.String(), `"grading":"alpha-sql/validation/detailed_grading.json, alpha-sql/test/detailed_grading.json"`) {
		t.Error("the model page does not name alpha-sql's decisions by model, split and file")
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), machine) {
		t.Error("report.json lost the inputs' full paths (provenance)")
	}
}

// TestWriteWarnings: the first warnings shown, then how many more the
// file holds.
func TestWriteWarnings(t *testing.T) {
	r := &Report{Warnings: []error{errors.New("a"), errors.New("b"), errors.New("c")}}
	for _, tc := range []struct {
		shown int
		want  string
	}{
		{5, "warning: a\nwarning: b\nwarning: c\n"},
		{2, "warning: a\nwarning: b\nwarning: ... 1 more in out/report.json\n"},
	} {
		var b strings.Builder
		r.WriteWarnings(&b, tc.shown, "out/report.json")
		if b.String() != tc.want {
			t.Errorf("shown %d: %q, want %q", tc.shown, b.String(), tc.want)
		}
	}
}
