package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestBriefInvalidLeaves: the command's summary shows the main mode's
// invalid leaves and the tasks they sit in, as the HTML leaderboard does
// (it used to print the other mode's count, 0 where the HTML said 15 (1)).
func TestBriefInvalidLeaves(t *testing.T) {
	r := buildFixtureReport(t, writeFixtureSet(t), Options{})
	var b bytes.Buffer
	r.WriteBrief(&b)
	out := b.String()
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
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
