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
	force := fs.Bool("force", false, "replace --out if it exists")
	restart := fs.Bool("restart", false, "discard a partial build of --out (FILE.building) instead of resuming it")
	digest := fs.Bool("digest", false, "record every table's content digest in the manifest (scans every table)")
	threads := fs.Int("threads", min(runtime.NumCPU(), 4), "tables loaded at once, one DuckDB thread each")
	memory := fs.String("memory", "4GB", "DuckDB memory limit while loading")
	quiet := fs.Bool("quiet", false, "print only the summary, not one line per table")
	plain := fs.Bool("plain", false, "benchmark baseline only: DuckDB's plain CREATE TABLE AS SELECT * FROM read_csv(file) per file (types auto-detected; not a database clinsql can use)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: clinsql db build --mimic DIR --out FILE.duckdb [flags]")
		fmt.Fprintln(env.Stderr, "\nBuilds the embedded engine's database: every MIMIC-IV v3.1 hosp and icu table with explicit")
		fmt.Fprintln(env.Stderr, "BigQuery-schema types, tables without a file left empty and listed, and mimiciv_3_1_derived.charlson.")
		fmt.Fprintln(env.Stderr, "Interrupted (Ctrl-C, kill -9)? Run the same command again: finished tables are kept, the rest load.")
		fmt.Fprintln(env.Stderr, "Writes FILE.duckdb.manifest.json beside it: size, facts and rows per table.")
		fmt.Fprintln(env.Stderr)
		printFlags(fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" || *out == "" {
		return usagef("--mimic and --out are required")
	}
	if *plain {
		rep, err := mimic.PlainLoad(ctx, *dir, *out, *threads, *memory)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "plain load %s: %d tables, %d rows, %.2f GB in %v (baseline only: not a clinsql database)\n",
			rep.Out, len(rep.Tables), rep.Rows(), float64(rep.Bytes)/1e9, rep.Duration.Round(time.Millisecond))
		return nil
	}
	// The per-table lines and the periodic rows/s and ETA lines are the
	// progress; on a terminal they print above the progress line (which
	// counts tables), elsewhere on standard output, and the line's summary
	// ends it on standard error, as for every step.
	var progress io.Writer
	bar := newBar(env, "db build: tables", len(mimic.V31.Tables), *quiet)
	switch {
	case *quiet:
	case gprogress.IsTerminal(env.Stderr):
		progress = barLog{Bar: bar}
	default:
		progress = env.Stdout
	}
	rep, err := mimic.Build(ctx, mimic.BuildOptions{
		MimicDir: *dir, Out: *out, Force: *force, Restart: *restart, Digest: *digest, Threads: *threads, MemoryLimit: *memory, Progress: progress,
		Table: func(tr mimic.TableReport) {
			switch {
			case tr.Missing:
				bar.Step("empty", 0, 0, false)
			case tr.Resumed:
				bar.Step("kept", 0, 0, false)
			default:
				bar.Step("loaded", 0, 0, false)
			}
		},
	})
	bar.Finish()
	if err != nil {
		return err
	}
	rep.WriteText(env.Stdout)
	return nil
}
