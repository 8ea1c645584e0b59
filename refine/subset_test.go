package refine

import (
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/runfolder"
)

// TestSubsetAfter: what a run's manifest says about its subset after each
// call that adds tasks to it.
func TestSubsetAfter(t *testing.T) {
	val := []*datasets.Task{{Key: datasets.Key{Split: "validation"}}}
	test := []*datasets.Task{{Key: datasets.Key{Split: "test"}}}
	both := append(append([]*datasets.Task(nil), val...), test...)
	lim := &datasets.Selection{Split: "validation", Limit: 6}
	dom := &datasets.Selection{Domain: "A"}
	for _, tc := range []struct {
		name       string
		fresh      bool
		prev       runfolder.Manifest
		tasks      []*datasets.Task
		sel        *datasets.Selection
		subset     bool
		selRecords *datasets.Selection
	}{
		{"first call, subset", true, runfolder.Manifest{}, val, lim, true, lim},
		{"first call, whole", true, runfolder.Manifest{}, val, nil, false, nil},
		{"first call, split only", true, runfolder.Manifest{}, val, &datasets.Selection{Split: "validation"}, false, nil},
		{"whole after subset", false, runfolder.Manifest{Subset: true, Selection: lim, Splits: []string{"validation"}}, val, nil, false, nil},
		{"whole of another split after subset", false, runfolder.Manifest{Subset: true, Selection: lim, Splits: []string{"validation"}}, test, nil, true, nil},
		{"same subset again", false, runfolder.Manifest{Subset: true, Selection: lim, Splits: []string{"validation"}}, val, lim, true, lim},
		{"another subset", false, runfolder.Manifest{Subset: true, Selection: lim, Splits: []string{"validation"}}, val, dom, true, nil},
		{"subset within a whole run", false, runfolder.Manifest{Splits: []string{"validation"}}, val, dom, false, nil},
		{"subset of a new split", false, runfolder.Manifest{Splits: []string{"validation"}}, both, dom, true, nil},
	} {
		m := tc.prev
		subset, sel := subsetAfter(tc.fresh, &m, m.Splits, tc.tasks, tc.sel)
		if subset != tc.subset || !sel.Equal(tc.selRecords) {
			t.Errorf("%s: subset %v, selection %+v; want %v, %+v", tc.name, subset, sel, tc.subset, tc.selRecords)
		}
	}
}
