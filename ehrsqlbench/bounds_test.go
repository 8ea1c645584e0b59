package ehrsqlbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// An item record keeps bounded text whatever the model wrote: 20 samples
// of 11 attempts, each with a query and a message of megabytes, stay far
// below what the reader takes (item files reached 126 MB, issue 25).
func TestRecordBounded(t *testing.T) {
	big := strings.Repeat("<", 1<<20)
	var attempts []refinefmt.Attempt
	for i := 0; i <= refine.MaxRounds; i++ {
		attempts = append(attempts, refinefmt.Attempt{Attempt: i + 1, SQL: big, Status: refinefmt.AttemptError, ErrorClass: executor.ClassSyntax, Error: big})
	}
	rec := &Record{ID: "q1", Question: "?"}
	for i := 0; i < MaxK; i++ {
		r := &refine.Record{Status: refinefmt.StatusFailed, Attempts: attempts, Final: len(attempts) - 1}
		rec.Samples = append(rec.Samples, sampleOf(i, r))
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 8<<20 {
		t.Errorf("record of %d bytes", len(b))
	}
}

// A record over the reader's limit, as an older clinsql wrote it, is an
// item to answer again, not an error that stops every rerun.
func TestOversizedRecordAnsweredAgain(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	path := l.item("m", "valid", "q1")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, runfolder.MaxSummaryBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := l.ReadRecord("m", "valid", "q1"); ok || err != nil {
		t.Fatalf("ok %v, %v; want an item to answer again", ok, err)
	}
}
