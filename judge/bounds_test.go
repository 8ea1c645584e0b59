package judge

import (
	"runtime"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/judge/codecheck"
)

// A huge cell in a result preview is clipped without being copied or
// converted whole: previewing a 64 MB cell allocates a few kilobytes, not
// the 256 MB that a conversion to runes takes.
func TestPreviewHugeCellBounded(t *testing.T) {
	huge := strings.Repeat("x", 64<<20)
	tab := &codecheck.Table{Columns: []string{"s"}, Rows: [][]codecheck.Cell{{codecheck.ParseCell(huge)}}, TotalRows: 1}
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

// ReadCSV cuts a huge cell while reading it.
func TestReadCSVHugeCell(t *testing.T) {
	in := "s,n\n\"" + strings.Repeat("x", 8<<20) + "\",1\n"
	tab, err := codecheck.ReadCSV(strings.NewReader(in), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 1 || len(tab.Rows[0][0].Raw) != codecheck.MaxCellBytes+len("…") || !tab.Rows[0][1].IsNum {
		t.Fatalf("rows %d, cell of %d bytes", len(tab.Rows), len(tab.Rows[0][0].Raw))
	}
}
