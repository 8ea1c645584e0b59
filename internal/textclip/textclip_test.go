package textclip

import (
	"runtime"
	"strings"
	"testing"
)

func TestRunes(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"", 0, ""},
		{"a", 0, "…"},
		{"ééééé", 2, "éé…"},
		{"日本語", 3, "日本語"},
	}
	for _, c := range cases {
		if got := Runes(c.in, c.n); got != c.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// Cutting a 64 MB string allocates only the cut. The bound is far below the
// input's size but above the few kilobytes the race detector and the test
// runtime's other goroutines may allocate between the two readings (a 1 KB
// bound failed under -race on a loaded machine).
func TestRunesHugeBounded(t *testing.T) {
	huge := strings.Repeat("x", 64<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := Runes(huge, 80)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 || len(got) != 80+len("…") {
		t.Errorf("allocated %d bytes for a cut of %d", alloc, len(got))
	}
}
