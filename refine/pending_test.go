package refine

import "testing"

// TestPendingError: nothing pending is no error; pending tasks say run
// again, unless a model was stopped: then fix that first, naming it.
func TestPendingError(t *testing.T) {
	for _, tc := range []struct {
		models []*ModelResult
		want   string
	}{
		{[]*ModelResult{{Model: "a"}}, ""},
		{[]*ModelResult{{Model: "a", Pending: []string{"t1", "t2"}}}, "2 tasks pending; run the same command again to resume"},
		{[]*ModelResult{{Model: "a", Pending: []string{"t1"}}, {Model: "b", Pending: []string{"t1"}, Stopped: "401"}},
			"2 tasks pending: b stopped (why is printed above); fix that, then run the same command again (finished tasks are kept)"},
	} {
		err := (&Result{Models: tc.models}).PendingError()
		if got := ""; err != nil && err.Error() != tc.want || err == nil && tc.want != got {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
