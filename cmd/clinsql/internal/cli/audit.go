package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/clinsql/clinsql/audit"
	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/llm"
)

const auditUsage = `usage: clinsql audit --tasks DIR --out DIR (--code-only | --judge-config FILE) [--mutations LIST] [--sample N] [--db FILE]

Measures a judge on answers whose verdicts are known by construction: each
task's gold answer (its gold SQL and recorded result, as a successful run:
every leaf of both rubric trees must pass) and the gold answer changed in
one known way, where the leaves testing that property must fail:

  scale100, scale0.01  every numeric value x100 or x0.01
  rename               every column renamed col_1, col_2, ...
  drop                 one column dropped (one answer per column)
  null                 every numeric column NULL
  empty, failed        the query returned no rows, or failed
  sql-gender, sql-age, sql-icd, sql-join
                       the gold SQL's gender literal flipped, its
                       anchor_age bounds shifted by 7 years, an ICD
                       prefix dropped, or a join key changed, run on the
                       embedded engine (--db); the SQL leaves stating
                       them must fail

--mutations takes a comma-separated list of these, "results", "sql" or
"all" (the default: all; SQL mutations need --db). A leaf whose verdict
cannot be derived with certainty is not counted.

--code-only audits the code checks; --judge-config FILE the judge engine as
clinsql judge runs it (code checks first unless --code-checks=false, then
the LLM), with no leaf skipped. The cost is estimated first (--estimate
prints it and stops), the spending capped by --budget over every run into
--out, replies cached (--cache), and an interrupted audit resumes.

--out receives audit.md, audit.json, audit.csv (per answer, tree, leaf kind
and source: leaves, testable, decided, wrong, undecided),
audit_failures.csv (every false fail on gold, classified as a judge error
or a rubric/gold defect, and every missed fail) and rubric_lint.csv (gold
answers that fail their own rubric). clinsql report --audit DIR shows it.
`

func runAudit(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "audit")
	fs.Usage = func() { fmt.Fprint(env.Stderr, auditUsage); cliflag.PrintDefaults(fs) }
	tasksDir := fs.String("tasks", "", "ClinSQL task `folder` or manifest")
	out := fs.String("out", "", "output `folder`")
	codeOnly := fs.Bool("code-only", false, "audit the code checks alone")
	configFile := fs.String("judge-config", "", "judge config `file` (LLM endpoint, samples, prices, budget)")
	mutations := fs.String("mutations", "all", "mutations `list`: all, results, sql or names")
	sample := fs.Int("sample", 0, "audit `N` tasks spread evenly over the sorted tasks (0: all)")
	db := fs.String("db", "", "embedded DuckDB `file` for the SQL mutations (clinsql db build)")
	codeChecks := fs.Bool("code-checks", true, "with --judge-config: let code decide the results leaves it can")
	groupName := fs.String("group", string(judge.DefaultGroup), "`grouping` of leaves into judge calls: leaf, category or tree")
	budget := fs.Float64("budget", -1, "cap in `USD` on what --out will ever spend (overrides the config)")
	prices := fs.String("prices", "", "price table `file` (overrides the config)")
	cacheDir := fs.String("cache", "", "LLM cache `folder` (default <out>/llm-cache; \"off\" for none)")
	estimateOnly := fs.Bool("estimate", false, "print the estimate and stop")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tasksDir == "" || *out == "" {
		return usagef("--tasks and --out are required")
	}
	if *codeOnly == (*configFile != "") {
		return usagef("give exactly one of --code-only and --judge-config FILE")
	}
	muts, err := audit.ParseMutations(*mutations)
	if err != nil {
		return usageError{Msg: err.Error()}
	}
	tasks, err := loadTasks(env, *tasksDir)
	if err != nil {
		return err
	}
	job := audit.Job{Tasks: tasks, Sample: *sample, Out: *out, Options: audit.Options{Mutations: muts, Workers: 2}}
	if *db != "" {
		ex, err := openEngine(ctx, duckdb.EngineName, engineConfig{DB: *db, Conns: 2, Log: env.Stderr})
		if err != nil {
			return err
		}
		defer ex.Close()
		job.Options.Engine = ex
	}
	var ej *judge.AuditJudge
	if *configFile != "" {
		group, err := judge.ParseGroupMode(*groupName)
		if err != nil {
			return usageError{Msg: err.Error()}
		}
		spec := &judge.BackendSpec{Config: *configFile, Budget: *budget, Prices: *prices, Cache: *cacheDir, GroupSet: true, GatedSet: true,
			LLM: llm.Options{Getenv: env.Getenv, Now: env.Now}, Log: env.Stderr}
		defer spec.Close()
		job.OpenJudge = func(out string) (audit.Judge, error) {
			key, err := localkey.Default()
			if err != nil {
				return nil, err
			}
			ej, err = spec.OpenAudit(out, judge.Options{CodeChecks: *codeChecks, Group: group}, key, func(c audit.Cost) error {
				c.WriteEstimate(env.Stderr)
				if *estimateOnly {
					return judge.ErrEstimateOnly
				}
				return nil
			})
			return ej, budgetError(err)
		}
	}
	r, err := audit.RunJob(ctx, job)
	if errors.Is(err, judge.ErrEstimateOnly) {
		return nil
	}
	if err != nil {
		return err
	}
	r.WriteText(env.Stdout, *out)
	if ej != nil && errors.As(ej.Stopped, new(*judge.ConfigError)) {
		return fmt.Errorf("the audit stopped before every answer was judged: %v", ej.Stopped)
	}
	if r.Cost != nil && r.Cost.Stopped != "" {
		return &ExitError{Code: exitIncomplete, Err: fmt.Errorf("stopped before every answer was judged: %s", r.Cost.Stopped)}
	}
	return nil
}
