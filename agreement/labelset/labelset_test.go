package labelset

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
)

func good() Label {
	return Label{
		Key:   datasets.Key{Split: "validation", Domain: "Diagnostic_Procedures", Difficulty: "easy", ID: "001"},
		Model: "gpt-4.1", Tree: TreeResults, Leaf: "acceptable-range", Label: Fail,
		Rationale: "median_los 9.1 lies above the 2-5 day band the parent sets",
		Chosen:    Disagreement, Seed: 27, Stratum: "disagreement/band/gpt-4.1", Population: 40, Drawn: 8, Card: "c0001",
	}
}

func line(t *testing.T, l Label) string {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadGood(t *testing.T) {
	a, b := good(), good()
	b.Tree, b.Leaf, b.Label, b.Chosen, b.Stratum = TreeSQL, "icd-version-handling", Arguable, LLMOnly, "llm-only/sql/gpt-4.1"
	b.Card = ""
	in := line(t, a) + "\n" + line(t, b) + "\n"
	got, err := Read(strings.NewReader(in), "x.jsonl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("read %+v", got)
	}
	var out bytes.Buffer
	if err := Write(&out, got, false); err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Errorf("round trip:\n%s\nwant\n%s", out.String(), in)
	}
}

// TestReadErrors: each problem is reported with the file, line and field.
func TestReadErrors(t *testing.T) {
	mod := func(f func(*Label)) string {
		l := good()
		f(&l)
		return line(t, l)
	}
	cases := []struct {
		name, line, want string
	}{
		{"split", mod(func(l *Label) { l.Split = "train" }), `f.jsonl:1: field "split": "train" is not validation or test`},
		{"domain", mod(func(l *Label) { l.Domain = "Cardiology" }), `field "domain"`},
		{"difficulty", mod(func(l *Label) { l.Difficulty = "easy_level_queries" }), `field "difficulty"`},
		{"id", mod(func(l *Label) { l.ID = "1" }), `field "id": "1" is not a 3-digit task id`},
		{"model", mod(func(l *Label) { l.Model = "../x" }), `field "model"`},
		{"tree", mod(func(l *Label) { l.Tree = "execution" }), `field "tree": "execution" is not sql or results`},
		{"leaf", mod(func(l *Label) { l.Leaf = "" }), `field "leaf"`},
		{"label", mod(func(l *Label) { l.Label = "1" }), `field "label": "1" is not pass, fail or arguable`},
		{"blank label", mod(func(l *Label) { l.Label, l.Rationale = "", "" }), `field "label": "" is not pass`},
		{"rationale short", mod(func(l *Label) { l.Rationale = "wrong" }), `field "rationale": "wrong" is too short`},
		{"rationale lines", mod(func(l *Label) { l.Rationale = "the value 3\nlies in the band" }), `field "rationale": must be one line`},
		{"rationale long", mod(func(l *Label) { l.Rationale = strings.Repeat("x", MaxRationale+1) }), `field "rationale": longer than`},
		{"chosen", mod(func(l *Label) { l.Chosen = "random" }), `field "chosen"`},
		{"stratum prefix", mod(func(l *Label) { l.Stratum = "agreement/band/gpt-4.1" }), `field "stratum"`},
		{"drawn", mod(func(l *Label) { l.Drawn, l.Population = 9, 8 }), `field "drawn": 9 drawn of a population of 8`},
		{"card", mod(func(l *Label) { l.Card = "card-1" }), `field "card"`},
		{"unknown field", strings.TrimSuffix(line(t, good()), "}") + `,"verdict":"pass"}`, `f.jsonl:1: field "verdict": unknown field`},
		{"type", strings.Replace(line(t, good()), `"seed":27`, `"seed":"27"`, 1), `f.jsonl:1: field "seed": want uint64, found JSON string`},
		{"syntax", `{"split":`, `f.jsonl:1: `},
		{"two values", line(t, good()) + " {}", `more than one JSON value`},
		{"long line", `{"rationale":"` + strings.Repeat("x", MaxLineBytes) + `"}`, `line longer than`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Read(strings.NewReader(c.line+"\n"), "f.jsonl", ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
			if got != nil {
				t.Errorf("labels returned with an error: %v", got)
			}
		})
	}
}

func TestReadDuplicatesAndEmpty(t *testing.T) {
	l := good()
	other := good()
	other.Leaf = "clinically-plausible"
	in := line(t, l) + "\n" + line(t, other) + "\n\n" + line(t, l) + "\n"
	_, err := Read(strings.NewReader(in), "d.jsonl", ReadOptions{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"d.jsonl:3: empty line", "d.jsonl:4: gpt-4.1 validation/Diagnostic_Procedures/easy_level_queries/001 results/acceptable-range is labelled twice (first on line 1)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	// A leaf of another model's answer is another leaf.
	other = good()
	other.Model = "gpt-5-chat"
	if _, err := Read(strings.NewReader(line(t, l)+"\n"+line(t, other)+"\n"), "d.jsonl", ReadOptions{}); err != nil {
		t.Error(err)
	}
}

func TestTemplate(t *testing.T) {
	l := good()
	l.Label, l.Rationale = "", ""
	in := line(t, l) + "\n"
	if _, err := Read(strings.NewReader(in), "t.jsonl", ReadOptions{}); err == nil {
		t.Error("a blank label read as a label set")
	}
	got, err := Read(strings.NewReader(in), "t.jsonl", ReadOptions{Template: true})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	// Half filled is not blank.
	l.Label = Pass
	if _, err := Read(strings.NewReader(line(t, l)+"\n"), "t.jsonl", ReadOptions{Template: true}); err == nil || !strings.Contains(err.Error(), `"rationale"`) {
		t.Errorf("err = %v", err)
	}
}

func TestWriteRefuses(t *testing.T) {
	a, b := good(), good()
	b.Label = "maybe"
	var out bytes.Buffer
	if err := Write(&out, []Label{a, b}, false); err == nil || !strings.Contains(err.Error(), `label 2`) {
		t.Errorf("err = %v", err)
	}
	if err := Write(&out, []Label{a, a}, false); err == nil || !strings.Contains(err.Error(), "repeats label 1") {
		t.Errorf("err = %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

func TestCopied(t *testing.T) {
	req := "Acceptable Range: The median duration is expected to be between 2 and 10 days for an inpatient setting."
	for _, c := range []struct {
		rationale string
		copied    bool
	}{
		{"median_duration_days = 1 is below the 2-10 day band", false},
		{"median duration 1 day; the band is between 2 and 10 days", false},
		{"the median duration is expected to be between 2 and 10 days, it is 1", true},
		{"The Median Duration, is expected to be: between 2 and 10", true},
	} {
		if got := Copied(c.rationale, "a question", req) != ""; got != c.copied {
			t.Errorf("Copied(%q) = %v, want %v", c.rationale, got, c.copied)
		}
	}
}

func TestMerge(t *testing.T) {
	s1, s2, s3 := good(), good(), good()
	s2.Leaf, s2.Card = "clinically-plausible", "c0002"
	s3.Leaf, s3.Card = "primary-column-exists", "c0003"
	for _, s := range []*Label{&s1, &s2, &s3} {
		s.Label, s.Rationale = "", ""
	}
	sample := []Label{s1, s2, s3}
	blind := func(l Label, label, why string) Label {
		l.Chosen, l.Seed, l.Stratum, l.Population, l.Drawn = "", 0, "", 0, 0
		l.Label, l.Rationale = label, why
		return l
	}
	f1 := blind(s1, Fail, "median_los 9.1 is above the 2-5 band")
	f3 := blind(s3, Pass, "column mean_los names the length of stay")
	merged, blank, err := Merge(sample, []Label{f1, blind(s2, "", "")}, []Label{f3})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != 2 || len(blank) != 1 || blank[0].Leaf != s2.Leaf {
		t.Fatalf("merged %v, blank %v", merged, blank)
	}
	if m := merged[0]; m.Label != Fail || m.Stratum != s1.Stratum || m.Drawn != s1.Drawn || m.Rationale != f1.Rationale {
		t.Errorf("merged[0] = %+v", m)
	}
	other := f1
	other.Model = "gpt-5-chat"
	wrongCard := f3
	wrongCard.Card = "c0009"
	wrongDraw := s1
	wrongDraw.Label, wrongDraw.Rationale, wrongDraw.Stratum = Pass, "the value 3 lies within the band", "disagreement/band/gemini-2.5-pro"
	for _, c := range []struct {
		filled [][]Label
		want   string
	}{
		{[][]Label{{other}}, "is not a leaf of the sample"},
		{[][]Label{{wrongCard}}, `card "c0009", the sample's is "c0003"`},
		{[][]Label{{wrongDraw}}, "is not the sample's"},
		{[][]Label{{f1}, {f1}}, "is labelled twice"},
	} {
		if _, _, err := Merge(sample, c.filled...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

// TestBlind: a labeller's template carries no draw; a label set must.
func TestBlind(t *testing.T) {
	l := good()
	l.Chosen, l.Seed, l.Stratum, l.Population, l.Drawn = "", 0, "", 0, 0
	in := line(t, l) + "\n"
	if strings.Contains(in, "chosen") || strings.Contains(in, "stratum") {
		t.Errorf("a blind line names the draw: %s", in)
	}
	if _, err := Read(strings.NewReader(in), "b.jsonl", ReadOptions{}); err == nil || !strings.Contains(err.Error(), `b.jsonl:1: field "chosen"`) {
		t.Errorf("err = %v", err)
	}
	if got, err := Read(strings.NewReader(in), "b.jsonl", ReadOptions{Template: true}); err != nil || !got[0].Blind() {
		t.Errorf("%v %v", got, err)
	}
	// Half a draw is no draw.
	l.Chosen = Agreement
	if _, err := Read(strings.NewReader(line(t, l)+"\n"), "b.jsonl", ReadOptions{Template: true}); err == nil || !strings.Contains(err.Error(), `field "stratum"`) {
		t.Errorf("err = %v", err)
	}
}
