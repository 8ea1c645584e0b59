package cli

import (
	"context"
	"fmt"

	"github.com/clinsql/clinsql/datasets"
)

const fetchUsage = `usage: clinsql datasets fetch clinsql [--out DIR] [--url URL] [--sha256 HEX] [--outputs]

Downloads the public ClinSQL release (GitHub Barryshen1/ClinSQL at the commit
the project was checked against) and extracts data/splits into --out, then
loads every task to check the download. Use it when you have no copy of the
data; --url points at a mirror or another commit's tarball.
`

func runDatasetsFetch(ctx context.Context, env *Env, args []string) error {
	// The data set's name comes first; -h alone still shows the usage.
	if len(args) > 0 && args[0] == "clinsql" {
		args = args[1:]
	} else if len(args) == 0 || !isHelp(args[0]) {
		return usagef("want: clinsql datasets fetch clinsql [flags] (clinsql is the only data set)")
	}
	fs := newFlagSet(env, "datasets fetch")
	fs.Usage = func() { fmt.Fprint(env.Stderr, fetchUsage); printFlags(fs) }
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
	tasks, err := datasets.FetchClinSQL(ctx, *out, datasets.FetchOptions{URL: *url, SHA256: *sum, Outputs: *outputs, Log: barLog{bar}, Progress: bar})
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
