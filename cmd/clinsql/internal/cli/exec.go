package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/batch"
	"github.com/clinsql/clinsql/executor/bigquery"
	"github.com/clinsql/clinsql/executor/engine"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/refinefmt"
)

// engineConfig is what every engine may be opened with.
type engineConfig = engine.Config

// openEngine opens the engine called name (engine.Open), a setting it
// refuses a usage error. Counting the patients for --zero-division auto
// runs under --timeout too: a timeout this short is the user's, and exits
// as any query's timeout does.
func openEngine(ctx context.Context, name string, cfg engineConfig) (executor.Executor, error) {
	ex, err := engine.Open(ctx, name, cfg)
	if class := executor.ClassOf(err); class == executor.ClassTimeout {
		return nil, &ExitError{Code: exitCodeOf(class), Err: err}
	}
	if err != nil {
		return nil, engineError(err)
	}
	return ex, nil
}

// engineError makes a setting the engine refuses a usage error.
func engineError(err error) error {
	if msg, ok := engine.IsUsage(err); ok {
		return usageError{Msg: msg}
	}
	return err
}

// engineFlags are the flags of every command that runs queries.
type engineFlags struct{ *engine.Flags }

func addEngineFlags(fs *flag.FlagSet) *engineFlags { return &engineFlags{engine.AddFlags(fs)} }

// config checks the flags and gives the engine's name and configuration.
func (f *engineFlags) config(env *Env, conns int) (string, engineConfig, error) {
	cfg, err := f.Config(env.Stderr, conns)
	return f.Engine, cfg, engineError(err)
}

func runExec(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "exec")
	eflags := addEngineFlags(fs)
	query := fs.String("sql", "", "run this one query and print its result as CSV")
	sqlFile := fs.String("sql-file", "", "run the query in this file (- for standard input)")
	tasks := fs.String("tasks", "", "ClinSQL tasks: a folder holding data/splits, a split folder, or a manifest .jsonl")
	gold := fs.Bool("gold", false, "with --tasks: run every task's gold SQL")
	out := fs.String("out", "", "with --tasks: folder for the result CSVs and summary.json")
	conc := fs.Int("concurrency", 1, "with --tasks: queries run at once")
	runName := fs.String("name", "", "with --run: the new run's model name (default: the recorded one)")
	dryRun := fs.Bool("dry-run", false, "bigquery engine: estimate bytes and cost with free dry runs, run nothing")
	sel := addTaskFilter(fs)
	runDir := fs.String("run", "", "a model run folder (execution_summary.json files): with --tasks and --out, runs its final SQL again into a new run folder; with --dry-run, estimates its cost")
	fs.Usage = func() {
		w := env.Stderr
		fmt.Fprintln(w, "usage: clinsql exec --db FILE --sql 'SQL'")
		fmt.Fprintln(w, "       clinsql exec --db FILE --tasks DIR --gold --out DIR")
		fmt.Fprintln(w, "       clinsql exec --db FILE --tasks DIR --run DIR --out DIR")
		fmt.Fprintln(w, "       clinsql exec --engine bigquery --bq-config FILE (--sql 'SQL' | --tasks DIR --gold --out DIR)")
		fmt.Fprintln(w, "       clinsql exec --engine bigquery --bq-config FILE --dry-run (--sql 'SQL' | --tasks DIR --gold | --run DIR) [--out DIR]")
		fmt.Fprintln(w, "\nRuns BigQuery-dialect SQL on an engine (default: the embedded DuckDB database, through the")
		fmt.Fprintln(w, "dialect bridge executor/bqsql; tables as `physionet-data.mimiciv_3_1_hosp.patients`). One query prints")
		fmt.Fprintln(w, "its result as CSV on standard output (NULL empty, floats as Python repr; see package executor);")
		fmt.Fprintln(w, "--tasks --gold runs every task's gold query, writes OUT/<task>/result_<id>.csv for each success")
		fmt.Fprintln(w, "and OUT/summary.json (total, succeeded, failures as {task, class, error}, latency).")
		fmt.Fprintln(w, "--tasks --run runs a recorded model run's final SQL again (for example a released BigQuery run on")
		fmt.Fprintln(w, "the embedded engine) and writes OUT as a run folder that clinsql judge and report read; each task's")
		fmt.Fprintln(w, "recorded outcome is kept beside the new one.")
		fmt.Fprintln(w, "\n--engine bigquery runs on real MIMIC-IV in BigQuery (see executor/bigquery/README.md): --bq-config")
		fmt.Fprintln(w, "names its YAML configuration, the --bq-* flags override it, and --timeout/--max-rows override it when")
		fmt.Fprintln(w, "given. --dry-run prints each query's bytes and cost and the cost of a model run, and runs nothing.")
		fmt.Fprintln(w, "\nWith --tasks the run succeeds (exit 0) whatever the queries did; one query's failure exits with")
		fmt.Fprintln(w, "its class's code.")
		fmt.Fprintln(w)
		cliflag.PrintDefaults(fs)
		fmt.Fprintln(w)
		printExitCodes(w)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !engine.Known(eflags.Engine) {
		return usagef("unknown engine %q (available: %s)", eflags.Engine, engine.Names())
	}
	single := *query != "" || *sqlFile != ""
	if err := checkExecFlags(execFlags{query: *query, sqlFile: *sqlFile, tasks: *tasks, runDir: *runDir, out: *out, engine: eflags.Engine,
		gold: *gold, dryRun: *dryRun}); err != nil {
		return err
	}
	_, cfg, err := eflags.config(env, max(*conc, 1))
	if err != nil {
		return err
	}
	if *dryRun {
		return execDryRun(ctx, env, cfg, *query, *sqlFile, *tasks, *runDir, *out)
	}
	if single {
		text := *query
		if *sqlFile != "" {
			b, err := readSQLFile(env, *sqlFile)
			if err != nil {
				return err
			}
			text = b
		}
		ex, err := openEngine(ctx, eflags.Engine, cfg)
		if err != nil {
			return err
		}
		defer ex.Close()
		return execOne(ctx, env, ex, text)
	}
	if *runDir != "" {
		return execReplay(ctx, env, eflags.Engine, cfg, *tasks, sel, *runDir, *out, *runName, *conc)
	}
	return execGold(ctx, env, eflags.Engine, cfg, *tasks, sel, *out, *conc)
}

// execFlags are the exec flags whose combinations are checked.
type execFlags struct {
	query, sqlFile, tasks, runDir, out, engine string
	gold, dryRun                               bool
}

func (f execFlags) single() bool { return f.query != "" || f.sqlFile != "" }

// checkExecFlags refuses combinations of exec's flags that name no job or
// two.
func checkExecFlags(f execFlags) error {
	switch {
	case f.single() && (f.tasks != "" || f.runDir != ""):
		return usagef("give either --sql/--sql-file or --tasks/--run, not both")
	case f.dryRun && f.tasks != "" && f.runDir != "":
		return usagef("with --dry-run give either --tasks or --run, not both")
	case f.query != "" && f.sqlFile != "":
		return usagef("give either --sql or --sql-file, not both")
	case !f.single() && f.tasks == "" && f.runDir == "":
		return usagef("nothing to run: give --sql, --sql-file or --tasks")
	case f.runDir != "" && !f.dryRun && (f.tasks == "" || f.out == ""):
		return usagef("--run needs --tasks and --out (or --dry-run)")
	case f.runDir != "" && f.gold:
		return usagef("give either --gold or --run, not both")
	case f.dryRun && f.engine != bigquery.Name:
		return usagef("--dry-run needs --engine bigquery")
	case f.tasks != "" && f.runDir == "" && !f.gold:
		return usagef("--tasks needs --gold or --run")
	case f.tasks != "" && f.out == "" && !f.dryRun:
		return usagef("--tasks needs --out")
	}
	return nil
}

// execReplay runs a recorded run's final SQL again into a new run folder.
func execReplay(ctx context.Context, env *Env, engineName string, cfg engineConfig, root string, sel *taskFilter, recorded, out, name string, conc int) error {
	tasks, err := loadTasks(env, root)
	if err != nil {
		return err
	}
	tasks, _, err = sel.selectTasks(env, tasks, root, nil)
	if err != nil {
		return err
	}
	ex, err := openEngine(ctx, engineName, cfg)
	if err != nil {
		return err
	}
	defer ex.Close()
	status := map[string]int{}
	bar := newBar(env, "exec", len(tasks), false)
	mr, err := refine.Replay(ctx, refine.ReplayOptions{
		Recorded: recorded, Out: out, Tasks: tasks, Executor: ex, Model: name, Concurrency: max(conc, 1), Database: cfg.Database(),
		Selection: sel.selection(root),
		Events: func(ev refine.Event) { // one call at a time
			status[ev.Status]++
			bar.Step(ev.Status, 0, 0, ev.Resumed)
		},
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s on %s: %d tasks run, %d already done; ok %d, empty %d, failed %d, no SQL %d, unsupported %d\n",
		mr.Model, ex.Name(), mr.Done, mr.Resumed, status[refinefmt.StatusOK], status[refinefmt.StatusEmpty], status[refinefmt.StatusFailed],
		status[refinefmt.StatusNoSQL], status[refinefmt.StatusUnsupported])
	for _, p := range mr.Pending {
		fmt.Fprintf(env.Stdout, "  pending: %s\n", p)
	}
	fmt.Fprintf(env.Stdout, "run folder: %s\n", out)
	return nil
}

// explicitFlags names the flags given on the command line.
func explicitFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

func readSQLFile(env *Env, name string) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(env.Stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("read SQL: %w", err)
	}
	return string(b), nil
}

func execOne(ctx context.Context, env *Env, ex executor.Executor, query string) error {
	res, err := ex.Query(ctx, query)
	if err != nil {
		class := executor.ClassOf(err)
		msg := err.Error()
		var xe *executor.Error
		if errors.As(err, &xe) {
			msg = xe.Message
		}
		return &ExitError{Code: exitCodeOf(class), Err: fmt.Errorf("%s: %s", class, msg)}
	}
	if err := executor.WriteCSV(env.Stdout, res); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "clinsql exec: warning: %s\n", w)
	}
	if res.Truncated {
		fmt.Fprintf(env.Stderr, "clinsql exec: %s\n", res.TruncationNote())
	}
	return nil
}

func execGold(ctx context.Context, env *Env, engineName string, cfg engineConfig, root string, sel *taskFilter, out string, conc int) error {
	tasks, failed, err := loadSomeTasks(env, root, "clinsql exec")
	if err != nil {
		return err
	}
	tasks, subset, err := sel.selectTasks(env, tasks, root, nil)
	if err != nil {
		return err
	}
	var loadErrors []string
	for _, e := range failed {
		loadErrors = append(loadErrors, e.Error())
	}
	ex, err := openEngine(ctx, engineName, cfg)
	if err != nil {
		return err
	}
	defer ex.Close()
	items := make([]batch.Item, len(tasks))
	for i, t := range tasks {
		items[i] = batch.Item{Key: t.Key.String(), SQL: t.GoldSQL, CSV: path.Join(t.Key.String(), datasets.GoldResultFile(t.ID))}
	}
	bar := newBar(env, "exec", len(items), false)
	sum, err := batch.Run(ctx, ex, items, loadErrors, batch.Options{
		Out: out, Concurrency: conc, Subset: subset,
		Progress: func(o batch.Outcome) {
			if !o.OK {
				bar.Log("%s: %s: %s", o.Task, o.Class, batch.FirstLine(o.Error))
				bar.Step("failed", 0, 0, false)
				return
			}
			bar.Step("ok", 0, 0, false)
		},
	})
	bar.Finish()
	if err != nil {
		return err
	}
	sum.WriteText(env.Stdout, out)
	if sum.Interrupted {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return nil
}

func unwrapAll(err error) []error {
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		return u.Unwrap()
	}
	return []error{err}
}
