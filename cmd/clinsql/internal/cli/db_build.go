package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/clinsql/clinsql/executor/mimic"
	gprogress "github.com/clinsql/clinsql/internal/progress"
)

func runDBBuild(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "db build")
	dir := fs.String("mimic", "", "MIMIC-IV folder in the PhysioNet CSV layout (hosp/, icu/)")
	out := fs.String("out", "", "DuckDB file to create")
	force := fs.Bool("force", false, "replace -out if it exists")
	threads := fs.Int("threads", min(runtime.NumCPU(), 4), "DuckDB threads while loading")
	memory := fs.String("memory", "4GB", "DuckDB memory limit while loading")
	quiet := fs.Bool("quiet", false, "print only the summary, not one line per table")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: clinsql db build --mimic DIR --out FILE.duckdb [flags]")
		fmt.Fprintln(env.Stderr, "\nBuilds the embedded engine's database: every MIMIC-IV v3.1 hosp and icu table with explicit")
		fmt.Fprintln(env.Stderr, "BigQuery-schema types, tables without a file left empty and listed, and mimiciv_3_1_derived.charlson.")
		fmt.Fprintln(env.Stderr)
		printFlags(fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" || *out == "" {
		return usagef("--mimic and --out are required")
	}
	// On a terminal the progress line takes the place of the per-table
	// lines (they would garble it); elsewhere the lines are the progress,
	// and the line's summary ends it on standard error, as for every step.
	var progress io.Writer
	tty := gprogress.IsTerminal(env.Stderr)
	if !*quiet && !tty {
		progress = env.Stdout
	}
	bar := newBar(env, "db build: tables", len(mimic.V31.Tables), *quiet)
	rep, err := mimic.Build(ctx, mimic.BuildOptions{
		MimicDir: *dir, Out: *out, Force: *force, Threads: *threads, MemoryLimit: *memory, Progress: progress,
		Table: func(tr mimic.TableReport) {
			if tr.Missing {
				bar.Step("empty", 0, 0, false)
				return
			}
			bar.Step("loaded", 0, 0, false)
		},
	})
	bar.Finish()
	if err != nil {
		return err
	}
	printBuildReport(env.Stdout, rep)
	return nil
}

func printBuildReport(w io.Writer, rep *mimic.Report) {
	var rows int64
	loaded := 0
	for _, t := range rep.Tables {
		rows += t.Rows
		if !t.Missing {
			loaded++
		}
	}
	fmt.Fprintf(w, "\nbuilt %s: %d tables (%d loaded or derived), %d rows in %v\n",
		rep.Out, len(rep.Tables), loaded, rows, rep.Duration.Round(time.Millisecond))
	f := rep.Facts
	kind := "the whole of MIMIC-IV or most of it"
	if mimic.IsSample(f.Patients) {
		kind = "a sample of MIMIC-IV: scores on it are not comparable with BigQuery runs"
	}
	fmt.Fprintf(w, "recorded in %s: source %s, %d patients (%s), source files sha256 %s\n", mimic.FactsTable, f.Source, f.Patients, kind, f.SourceSHA256)
	if missing := rep.Missing(); len(missing) > 0 {
		fmt.Fprintf(w, "empty tables (no file): %d\n", len(missing))
		for _, m := range missing {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
}
