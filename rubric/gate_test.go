package rubric

import "testing"

// TestSkippableDoomedCriticalAncestor: a leaf inside a critical node that
// cannot reach 1 any more cannot change the score: the critical node zeroes
// its parent whatever the leaf says.
func TestSkippableDoomedCriticalAncestor(t *testing.T) {
	tr, err := Parse([]byte(`{"id":"root","requirements":"r","sub_tasks":[
		{"id":"A","requirements":"a","critical":true,"sub_tasks":[
			{"id":"y","requirements":"y","sub_tasks":[]},
			{"id":"L","requirements":"l","sub_tasks":[]}]},
		{"id":"z","requirements":"z","sub_tasks":[]}]}`), "t.json", JSON)
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Root
	for _, m := range []Mode{Reference, Strict} {
		d := Decisions{"y": {Status: Fail}}
		if ok, by := Skippable(root.Find("L"), d, m); !ok || by.ID != "A" {
			t.Errorf("%s: L skippable %v by %v, want true by A", m, ok, by)
		}
		d["L"] = Verdict{Status: Invalid}
		d["z"] = Verdict{Status: Pass, Score: 1}
		if s := Evaluate(root, d, m); s.Value != 0 || (m == Strict && s.Invalid != 0) {
			t.Errorf("%s: score %v invalid %d, want 0 and no open leaf", m, s.Value, s.Invalid)
		}
		if ok, _ := Skippable(root.Find("L"), Decisions{"y": {Status: Pass, Score: 1}}, m); ok {
			t.Errorf("%s: L skippable while A can still pass", m)
		}
	}
}
