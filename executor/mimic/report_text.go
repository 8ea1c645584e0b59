package mimic

import (
	"fmt"
	"io"
	"time"
)

// WriteText prints what the build did: tables and rows, the attempt, the
// manifest, the database's facts (a sample of MIMIC-IV or not) and the
// tables left empty.
func (rep *Report) WriteText(w io.Writer) {
	var rows int64
	loaded := 0
	for _, t := range rep.Tables {
		rows += t.Rows
		if !t.Missing {
			loaded++
		}
	}
	fmt.Fprintf(w, "\nbuilt %s: %d tables (%d loaded or derived), %d rows, %.2f GB in %v\n",
		rep.Out, len(rep.Tables), loaded, rows, float64(rep.Bytes)/1e9, rep.Duration.Round(time.Millisecond))
	if rep.Attempt > 1 {
		fmt.Fprintf(w, "resumed: attempt %d of this build kept the tables earlier attempts had loaded\n", rep.Attempt)
	}
	fmt.Fprintf(w, "manifest: %s\n", rep.Manifest)
	f := rep.Facts
	kind := "the whole of MIMIC-IV or most of it"
	if IsSample(f.Patients) {
		kind = "a sample of MIMIC-IV: scores on it are not comparable with BigQuery runs"
	}
	fmt.Fprintf(w, "recorded in %s: source %s, %d patients (%s), source files sha256 %s\n", FactsTable, f.Source, f.Patients, kind, f.SourceSHA256)
	if missing := rep.Missing(); len(missing) > 0 {
		fmt.Fprintf(w, "empty tables (no file): %d\n", len(missing))
		for _, m := range missing {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
}
