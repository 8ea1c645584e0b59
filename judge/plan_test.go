package judge

import (
	"strings"
	"testing"

	"github.com/clinsql/clinsql/rubric"
)

func TestPlan(t *testing.T) {
	tr, err := rubric.Parse([]byte(`{"id":"root","requirements":"r","sub_tasks":[
		{"id":"cohort","requirements":"c","sub_tasks":[
			{"id":"extra","requirements":"e","sub_tasks":[]},
			{"id":"age","requirements":"a","critical":true,"sub_tasks":[]},
			{"id":"gender","requirements":"g","critical":true,"sub_tasks":[]}]},
		{"id":"analytics","requirements":"a","sequential":true,"sub_tasks":[
			{"id":"group","requirements":"g","sub_tasks":[]},
			{"id":"pct","requirements":"p","critical":true,"sub_tasks":[]},
			{"id":"round","requirements":"r","sub_tasks":[]}]}]}`), "t.json", rubric.JSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode     rubric.Mode
		order    string
		blockers map[string]string
	}{
		{rubric.Reference, "age gender extra group pct round", map[string]string{
			"age": "", "gender": "age", "extra": "age gender", "group": "", "pct": "group", "round": "group pct"}},
		{rubric.Strict, "age gender extra group pct round", map[string]string{
			"age": "", "gender": "age", "extra": "age gender", "group": "", "pct": "group", "round": "group pct"}},
	} {
		p := newPlan(tr.Root, tc.mode)
		var ids []string
		for _, l := range p.leaves {
			ids = append(ids, l.ID)
		}
		if got := strings.Join(ids, " "); got != tc.order {
			t.Errorf("%s: order %q, want %q", tc.mode, got, tc.order)
		}
		for id, want := range tc.blockers {
			var got []string
			for _, b := range p.blockers[tr.Root.Find(id)] {
				got = append(got, b.ID)
			}
			if strings.Join(got, " ") != want {
				t.Errorf("%s: blockers of %s = %v, want %q", tc.mode, id, got, want)
			}
		}
		// The earliest undecided leaf is always ready: no deadlock.
		d := rubric.Decisions{}
		for _, l := range p.leaves {
			if !p.ready(l, d) {
				t.Fatalf("%s: %s not ready with every earlier leaf decided", tc.mode, l.ID)
			}
			d[l.ID] = rubric.Verdict{Status: rubric.Pass, Score: 1}
		}
	}
}
