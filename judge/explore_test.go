package judge

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	data := shared.Path(t, "clinsql-data")
	tasks, err := datasets.LoadClinSQL(data)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[datasets.Key]*datasets.Task{}
	for _, tk := range tasks {
		byKey[tk.Key] = tk
	}
	models, _ := filepath.Glob(filepath.Join(data, "outputs", "inference", "*"))
	agree := map[string]*Agreement{}
	cover := map[string][2]int{}
	var dis []string
	for _, mdir := range models {
		model := filepath.Base(mdir)
		outs, err := datasets.LoadRun(mdir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := scoring.ReadGrading(filepath.Join(data, "outputs", "evaluation", model, "validation", "detailed_grading.json"))
		if err != nil {
			t.Fatal(err)
		}
		rec := map[datasets.Key]scoring.Evaluation{}
		for _, e := range g.Evaluations {
			k, _ := datasets.ParseKey(e.SamplePath)
			rec[k] = e
		}
		for _, o := range outs {
			tk := byKey[o.Key]
			e, ok := rec[o.Key]
			if tk == nil || !ok {
				continue
			}
			a := LoadAnswer(o, tk.Question)
			for _, leaf := range tk.ResultsRubric.Root.Leaves() {
				d := Check(leaf, a)
				sub := "real"
				if !a.HasResult() {
					sub = "nores"
				}
				key := string(d.Kind) + "/" + sub
				c := cover[key]
				c[1]++
				if d.Decided {
					c[0]++
				}
				cover[key] = c
				r, ok := e.ResultsEvaluations[leaf.ID]
				if !ok || !d.Decided {
					continue
				}
				v, _, _ := scoring.Classify(r)
				if v.Status != rubric.Pass && v.Status != rubric.Fail {
					continue
				}
				m := ""
				if d.Evidence != nil {
					m = d.Evidence.Match
				}
				k2 := key + "/" + m
				if agree[k2] == nil {
					agree[k2] = &Agreement{}
				}
				agree[k2].Add(d.Pass, v.Status == rubric.Pass)
				if d.Pass != (v.Status == rubric.Pass) {
					par := ""
					if p := leaf.Parent; p != nil {
						par = p.Requirements
					}
					cols := ""
					if a.Table != nil {
						cols = strings.Join(a.Table.Columns, ",")
					}
					dis = append(dis, fmt.Sprintf("%s\t%s\t%s\t%s\tours=%v\t%s\tLEAF=%s\tPARENT=%s\tCOLS=%s\tREC=%s", k2, model, o.Key, leaf.ID, d.Pass, d.Explanation, leaf.Requirements, par, cols, strings.ReplaceAll(firstLine(r.Explanation, 300), "\t", " ")))
				}
			}
		}
	}
	var keys []string
	for k := range cover {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("cover %-24s %d/%d", k, cover[k][0], cover[k][1])
	}
	keys = keys[:0]
	for k := range agree {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("agree %-32s %v", k, agree[k])
	}
	sort.Strings(dis)
	os.WriteFile("/tmp/dis.tsv", []byte(strings.Join(dis, "\n")), 0o644)
}

func TestExploreUndecided(t *testing.T) {
	kind := os.Getenv("EXPLORE_KIND")
	if kind == "" {
		t.Skip()
	}
	data := shared.Path(t, "clinsql-data")
	tasks, _ := datasets.LoadClinSQL(data)
	byKey := map[datasets.Key]*datasets.Task{}
	for _, tk := range tasks {
		byKey[tk.Key] = tk
	}
	models, _ := filepath.Glob(filepath.Join(data, "outputs", "inference", "*"))
	reasons := map[string]int{}
	var lines []string
	for _, mdir := range models {
		outs, _ := datasets.LoadRun(mdir)
		for _, o := range outs {
			tk := byKey[o.Key]
			if tk == nil {
				continue
			}
			a := LoadAnswer(o, tk.Question)
			for _, leaf := range tk.ResultsRubric.Root.Leaves() {
				d := Check(leaf, a)
				if d.Decided || string(d.Kind) != kind {
					continue
				}
				r := d.Explanation
				if i := strings.IndexAny(r, "\"=0123456789"); i > 0 {
					r = r[:i]
				}
				reasons[r]++
				par := ""
				for _, s := range bindingTexts(leaf) {
					par += " || " + s
				}
				lines = append(lines, fmt.Sprintf("%s\t%s\t%s\tCOLS=%s", filepath.Base(mdir), d.Explanation, par, strings.Join(a.Table.Columns, ",")))
			}
		}
	}
	for r, n := range reasons {
		t.Logf("%6d %s", n, r)
	}
	os.WriteFile("/tmp/und.tsv", []byte(strings.Join(lines, "\n")), 0o644)
}
