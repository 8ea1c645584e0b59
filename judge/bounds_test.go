package judge

import (
	"runtime"
	"strings"
	"testing"
)

// clipRunes cuts at n characters, counting multi-byte characters as one.
func TestClipRunes(t *testing.T) {
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
		if got := clipRunes(c.in, c.n); got != c.want {
			t.Errorf("clipRunes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A huge cell in a result preview is clipped without being copied or
// converted whole: previewing a 64 MB cell allocates a few kilobytes, not
// the 256 MB that a conversion to runes takes.
func TestPreviewHugeCellBounded(t *testing.T) {
	huge := strings.Repeat("x", 64<<20)
	tab := &Table{Columns: []string{"s"}, Rows: [][]Cell{{ParseCell(huge)}}, TotalRows: 1}
	var b strings.Builder
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	writePreview(&b, tab, 5, DefaultPromptOptions.withDefaults())
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("previewing a 64 MB cell allocated %d bytes", alloc)
	}
	if !strings.Contains(b.String(), strings.Repeat("x", DefaultPromptOptions.MaxCell)+"…") || b.Len() > 1000 {
		t.Errorf("preview of %d bytes: %.200q", b.Len(), b.String())
	}
}
