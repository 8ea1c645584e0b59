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
	tr.begin("t", source{Rel: "icu/x.csv.gz", Abs: abs, Bytes: 1000}, 100, "")
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

// A table stored in order is still loading after its file is read: DuckDB
// sorts and writes its rows. The line says so rather than going silent.
func TestProgressLineSorting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("file positions come from /proc")
	}
	path := filepath.Join(t.TempDir(), "y.csv.gz")
	if err := os.WriteFile(path, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	tr := newTracker(1000)
	tr.begin("t", source{Rel: "icu/y.csv.gz", Abs: abs, Bytes: 1000}, 100, "itemid")
	tr.start = time.Now().Add(-10 * time.Second)
	tr.active["t"].start = tr.start
	if line := tr.line(tr.start.Add(10 * time.Second)); strings.Contains(line, "storing") {
		t.Errorf("before the file is opened: %q", line)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if line := tr.line(tr.start.Add(10 * time.Second)); !strings.Contains(line, "icu/y.csv.gz: 0%") {
		t.Errorf("while the file is open: %q", line)
	}
	f.Close()
	line := tr.line(tr.start.Add(20 * time.Second))
	for _, want := range []string{"icu/y.csv.gz: read, storing in itemid order, 20s", "100% of"} {
		if !strings.Contains(line, want) {
			t.Errorf("after the file is read: %q lacks %q", line, want)
		}
	}
}
