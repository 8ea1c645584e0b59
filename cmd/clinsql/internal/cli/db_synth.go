package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/executor/mimic/synth"
)

func runDBSynth(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "db synth")
	out := fs.String("out", "", "folder to write hosp/ and icu/ into")
	patients := fs.String("patients", "", "number of patients, or \"full\" for MIMIC-IV v3.1's 364,627")
	seed := fs.Uint64("seed", 1, "random seed: the same seed and patients give the same files")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel generators")
	quiet := fs.Bool("quiet", false, "print only the summary")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: clinsql db synth --patients N --out DIR [flags]")
		fmt.Fprintln(env.Stderr, "\nWrites a synthetic MIMIC-IV v3.1 of N patients in the PhysioNet layout (hosp/*.csv.gz, icu/*.csv.gz):")
		fmt.Fprintln(env.Stderr, "every table of the schema, rows per patient and value laws shaped like the real data, no credentialed")
		fmt.Fprintln(env.Stderr, "data needed. For tests and benchmarks of the embedded engine at scale; never for scores.")
		fmt.Fprintln(env.Stderr, "Then: clinsql db build --mimic DIR --out synth.duckdb")
		fmt.Fprintln(env.Stderr)
		cliflag.PrintDefaults(fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || *patients == "" {
		return usagef("--patients and --out are required")
	}
	n, err := synth.ParsePatients(*patients)
	if err != nil {
		return usagef("--patients %v", err)
	}
	var progress io.Writer
	if !*quiet {
		progress = env.Stdout
	}
	rep, err := synth.Write(ctx, synth.Options{Patients: n, Seed: *seed, Out: *out, Workers: *workers, Progress: progress})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %d patients (seed %d), %d tables, %d rows, %.1f MB in %v\n",
		*out, n, *seed, len(rep.Tables), rep.Rows, float64(rep.Bytes)/1e6, rep.Duration.Round(time.Millisecond))
	return nil
}
