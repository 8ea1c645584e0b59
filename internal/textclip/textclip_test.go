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

// Cutting a 64 MB string allocates only the cut.
func TestRunesHugeBounded(t *testing.T) {
	huge := strings.Repeat("x", 64<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := Runes(huge, 80)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<10 || len(got) != 80+len("…") {
		t.Errorf("allocated %d bytes for a cut of %d", alloc, len(got))
	}
}
