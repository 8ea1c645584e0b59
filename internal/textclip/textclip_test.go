package textclip

import (
	"encoding/json"
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

// JSON bounds the encoded size whatever the characters, and keeps text
// that fits whole.
func TestJSON(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a", 5000), strings.Repeat("<", 5000), strings.Repeat("\x01", 5000),
		strings.Repeat("é", 5000), strings.Repeat("\xff", 5000), strings.Repeat(`"\`, 5000), "short <&>",
	} {
		for _, n := range []int{10, 100, 4096} {
			got := JSON(s, n)
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(b)-2 > n {
				t.Errorf("JSON(%.10q, %d): encodes to %d bytes", s, n, len(b)-2)
			}
			if !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
				t.Errorf("JSON(%.10q, %d) = %.20q is not a prefix", s, n, got)
			}
			if whole, _ := json.Marshal(s); len(whole)-2 <= n && got != s {
				t.Errorf("JSON(%.10q, %d) cut text that fits", s, n)
			}
		}
	}
}
