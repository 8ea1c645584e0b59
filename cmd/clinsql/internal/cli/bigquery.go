package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/clinsql/clinsql/runfolder"

	"github.com/clinsql/clinsql/executor/bigquery"
	"github.com/clinsql/clinsql/executor/engine"
)

// execDryRun is exec --dry-run: the queries come from --sql/--sql-file,
// --tasks (gold SQL) or --run (a model run's final SQL).
func execDryRun(ctx context.Context, env *Env, cfg engineConfig, query, sqlFile, tasks, runDir, out string) error {
	var items []bigquery.DryRunSource
	var source string
	var err error
	switch {
	case tasks != "":
		source = "gold"
		items, err = goldSources(env, tasks)
	case runDir != "":
		source = "run"
		items, err = runSources(env, runDir)
	default:
		source = "sql"
		text := query
		if sqlFile != "" {
			text, err = readSQLFile(env, sqlFile)
		}
		items = []bigquery.DryRunSource{{Key: "query", SQL: text}}
	}
	if err != nil {
		return err
	}
	eng, err := engine.OpenBigQuery(ctx, cfg)
	if err != nil {
		return engineError(err)
	}
	defer eng.Close()
	conc := 8 // dry runs are cheap for BigQuery; a few at once
	if cfg.Explicit["concurrency"] {
		conc = cfg.Conns
	}
	return runBigQueryDryRun(ctx, env, eng, source, items, conc, out)
}

// runBigQueryDryRun estimates the queries (bigquery.Engine.DryRunAll),
// prints the table and, with out set, writes out/dry_run.json.
func runBigQueryDryRun(ctx context.Context, env *Env, eng *bigquery.Engine, source string, items []bigquery.DryRunSource, conc int, out string) error {
	rep, err := eng.DryRunAll(ctx, source, items, conc)
	if err != nil {
		return err
	}
	rep.WriteText(env.Stdout)
	if out != "" {
		path, err := rep.WriteFile(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "details: %s\n", path)
	}
	if l := rep.Lines; len(l) == 1 && !l[0].OK {
		return &ExitError{Code: exitCodeOf(l[0].Class), Err: fmt.Errorf("%s: %s", l[0].Class, l[0].Error)}
	}
	return nil
}

// goldSources are every task's gold SQL.
func goldSources(env *Env, root string) ([]bigquery.DryRunSource, error) {
	tasks, _, err := loadSomeTasks(env, root, "clinsql exec")
	if err != nil {
		return nil, err
	}
	var out []bigquery.DryRunSource
	for _, t := range tasks {
		out = append(out, bigquery.DryRunSource{Key: t.Key.String(), SQL: t.GoldSQL})
	}
	return out, nil
}

// runSources are a model run's final SQL, with each task's recorded number
// of executions. Tasks with no SQL (generation failed) are skipped and
// counted on stderr.
func runSources(env *Env, dir string) ([]bigquery.DryRunSource, error) {
	outs, err := runfolder.LoadOutputs(dir)
	if err != nil && len(outs) == 0 {
		return nil, fmt.Errorf("load run: %w", err)
	}
	for _, e := range unwrapAll(err) {
		if e != nil {
			fmt.Fprintf(env.Stderr, "clinsql exec: output not loaded: %v\n", e)
		}
	}
	var out []bigquery.DryRunSource
	skipped := 0
	for _, o := range outs {
		if strings.TrimSpace(o.Summary.FinalSQL) == "" {
			skipped++
			continue
		}
		out = append(out, bigquery.DryRunSource{Key: o.Key.String(), SQL: o.Summary.FinalSQL, Attempts: max(len(o.Summary.RefinementAttempts), 1)})
	}
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, "clinsql exec: %d tasks have no SQL (generation failed) and cost nothing\n", skipped)
	}
	return out, nil
}
