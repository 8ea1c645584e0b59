package cli

import (
	"context"
	"fmt"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/internal/progress"
)

const fetchUsage = `usage: clinsql datasets fetch clinsql [--out DIR] [--url URL] [--sha256 HEX] [--outputs]
       clinsql datasets fetch ehrsql [--out DIR] [--base-url URL] [--no-verify]

clinsql: downloads the public ClinSQL release (GitHub Barryshen1/ClinSQL at
the commit the project was checked against) and extracts data/splits into
--out, then loads every task to check the download. Use it when you have no
copy of the data; --url points at a mirror or another commit's tarball.

ehrsql: downloads the EHRSQL 2024 shared task's published files (GitHub
glee4810/ehrsql-2024 at its version 1.1.1 commit) into --out, in the layout
--data-dir reads: train/, valid/, test/ (data, label, answer, annotated
JSON), tables.json, mimic_iv/mimic_iv.sqlite, LICENSE, and SHA256SUMS of
every file. The train and valid splits, tables.json and the licence must
match their pinned checksums; every split must load; and the database must
reproduce every published valid answer (--no-verify skips that check, which
runs the 1,163 valid labels). A failed fetch leaves nothing behind.
`

func runDatasetsFetch(ctx context.Context, env *Env, args []string) error {
	// The data set's name comes first; -h alone still shows the usage.
	switch {
	case len(args) > 0 && args[0] == "clinsql":
		args = args[1:]
	case len(args) > 0 && args[0] == "ehrsql":
		return runFetchEHRSQL(ctx, env, args[1:])
	case len(args) == 0 || !isHelp(args[0]):
		return usagef("want: clinsql datasets fetch clinsql|ehrsql [flags]")
	}
	fs := newFlagSet(env, "datasets fetch")
	fs.Usage = func() { fmt.Fprint(env.Stderr, fetchUsage); cliflag.PrintDefaults(fs) }
	out := fs.String("out", "clinsql-data", "destination `folder` (receives data/splits)")
	url := fs.String("url", datasets.ClinSQLArchiveURL, "archive `URL` (a .tar.gz)")
	sum := fs.String("sha256", "", "expected archive `checksum` (hex), optional")
	outputs := fs.Bool("outputs", false, "also extract the released model outputs and judge decisions (outputs/)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// Bytes received, the rate and, when the server gives the size, the
	// time left; the extraction after it shows as the clock moving.
	bar := newByteBar(env, "datasets fetch")
	tasks, err := datasets.FetchClinSQL(ctx, *out, datasets.FetchOptions{URL: *url, SHA256: *sum, Outputs: *outputs, Log: progress.LogWriter{Bar: bar}, Progress: bar})
	bar.Finish()
	if err != nil {
		return err
	}
	splits := map[string]int{}
	for _, t := range tasks {
		splits[t.Split]++
	}
	fmt.Fprintf(env.Stdout, "%d tasks (%v) in %s\n", len(tasks), splits, *out)
	return nil
}

func runFetchEHRSQL(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "datasets fetch ehrsql")
	fs.Usage = func() { fmt.Fprint(env.Stderr, fetchUsage); cliflag.PrintDefaults(fs) }
	out := fs.String("out", "ehrsql-data", "destination `folder` (--data-dir of the EHRSQL commands)")
	base := fs.String("base-url", ehrsql.BaseURL, "`URL` the repository's files are under (a mirror, another commit)")
	noVerify := fs.Bool("no-verify", false, "skip checking that the database reproduces the published valid answers")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	bar := newByteBar(env, "datasets fetch ehrsql")
	opt := ehrsql.FetchOptions{BaseURL: *base, Log: progress.LogWriter{Bar: bar}, Progress: bar}
	if !*noVerify {
		opt.Verify = ehrsqlbench.VerifyFetched
	}
	err := ehrsql.Fetch(ctx, *out, opt)
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "EHRSQL 2024 (v1.1.1) in %s: use --data-dir %s\n", *out, *out)
	return nil
}
