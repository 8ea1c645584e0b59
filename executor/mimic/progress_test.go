package mimic

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The progress line reads a loading file's position from the open
// descriptor and estimates rows, rate and ETA from it.
func TestProgressLine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file positions come from /proc")
	}
	path := filepath.Join(t.TempDir(), "x.csv.gz")
	if err := os.WriteFile(path, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(250, 0); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	tr := newTracker(4000)
	tr.begin("t", source{Rel: "icu/x.csv.gz", Abs: abs, Bytes: 1000}, 100)
	tr.active["t"].start = time.Now().Add(-10 * time.Second)
	tr.start = tr.active["t"].start
	line := tr.line(tr.start.Add(10 * time.Second))
	for _, want := range []string{"icu/x.csv.gz: 25%", "~25k rows", "~2500 rows/s", "ETA 30s", "overall: 10s elapsed", "6% of"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	tr.end("t", 100_000)
	if line := tr.line(tr.start.Add(20 * time.Second)); !strings.Contains(line, "25% of") {
		t.Errorf("after the table: %q", line)
	}
}
