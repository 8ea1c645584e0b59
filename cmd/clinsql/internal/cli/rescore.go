package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

const rescoreUsage = `usage: clinsql rescore --grading FILE --tasks DIR --out DIR [--mode strict|reference] [--brief]
                       [--task KEY]... [--domain D] [--difficulty D] [--limit N]

Recomputes every score of a recorded detailed_grading.json (the reference
scorer's per-leaf decisions, any model) from the task rubrics, and writes
scoring_results.json, difficulty_scoring_results.json and
scenario_scoring_results.json into --out.

--mode strict (the default, as for judge, report and run) detects recorded
judge errors and unreadable replies and makes them invalid instead of
passes, honours critical flags under sequential parents, counts tasks the
grading lacks, and prints the corrected table beside the published one; its
files carry "scoring_mode": "strict". --mode reference reproduces the
published scorer: the three files equal the published ones byte for byte,
so they hold no mode; rescore_summary.json beside them names the mode, the
grading file and the clinsql build for either mode.

--tasks is the folder holding data/splits, the splits folder, a split
folder, or a manifest .jsonl; a domain, difficulty or task folder, a
manifest line (FILE.jsonl:N) or --task/--domain/--difficulty/--limit
rescore a subset: the grading's decisions about those tasks only, with
"completeness": "subset" in the three files and "subset" in
rescore_summary.json.
`

func runRescore(_ context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "rescore")
	fs.Usage = func() { fmt.Fprint(env.Stderr, rescoreUsage); printFlags(fs) }
	grading := fs.String("grading", "", "recorded `detailed_grading.json`")
	tasksDir := fs.String("tasks", "", "ClinSQL task `folder` or manifest")
	out := fs.String("out", "", "output `folder` for the summary files")
	modeName := fs.String("mode", string(rubric.Strict), "aggregation `mode`: strict or reference")
	brief := fs.Bool("brief", false, "print one line: the model's published and recomputed averages")
	sel := addTaskFilter(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *grading == "" || *tasksDir == "" || *out == "" {
		return usagef("--grading, --tasks and --out are required")
	}
	mode, err := rubric.ParseMode(*modeName)
	if err != nil {
		return usageError{err.Error()}
	}
	tasks, err := loadTasks(env, *tasksDir)
	if err != nil {
		return err
	}
	tasks, subset, err := sel.selectTasks(env, tasks, *tasksDir, nil, "", "")
	if err != nil {
		return err
	}
	warnTasks(env, tasks)
	r, ref, err := scoring.RescoreJob{Grading: *grading, Tasks: tasks, Mode: mode, Subset: subset, Out: *out,
		Warn: func(w error) { fmt.Fprintln(env.Stderr, "warning:", w) }}.Run()
	if err != nil {
		return err
	}
	switch {
	case *brief:
		r.WriteBrief(env.Stdout, ref)
		return nil
	case mode == rubric.Reference:
		r.WriteReferenceText(env.Stdout)
	default:
		r.WriteStrictText(env.Stdout, ref)
	}
	fmt.Fprintf(env.Stdout, "\nwrote %s, %s, %s (%s mode) and %s to %s\n", scoring.ScoringFile, scoring.DifficultyFile, scoring.ScenarioFile,
		mode, scoring.RescoreSummaryFile, *out)
	return nil
}

// loadTasks loads a task set and refuses to go on if any task is broken:
// scoring a smaller set without saying so is what the reference did. What
// loads with a warning is said by warnTasks, where it matters.
func loadTasks(env *Env, dir string) ([]*datasets.Task, error) {
	tasks, err := loadClinSQL(dir)
	if errors.Is(err, errNoTasksThere) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("loading tasks from %s:\n%w", dir, err)
	}
	return tasks, nil
}

// errNoTasksThere: --tasks names no folder or file.
var errNoTasksThere = errors.New("no such folder or manifest")

// loadClinSQL is datasets.LoadClinSQL saying, when --tasks names nothing,
// where the data comes from (a newcomer without ../shared beside the
// checkout types the README's ../shared/clinsql-data).
func loadClinSQL(root string) ([]*datasets.Task, error) {
	tasks, err := datasets.LoadClinSQL(root)
	if len(tasks) == 0 && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--tasks %s: %w: download the public ClinSQL release with clinsql datasets fetch clinsql --out DIR, "+
			"then give --tasks DIR (the README's examples expect the data in ../shared/clinsql-data, beside the checkout)", root, errNoTasksThere)
	}
	return tasks, err
}

// warnTasks prints the warnings of the tasks a command scores, each once
// per process (clinsql run judges, then reports, the same tasks). They
// are rubric keys the parser ignores, as the reference scorer does
// (ClinSQL's validation split has one: a leaf's "sequential_order", a
// misspelt "sequential", which a leaf does not use): they bear on the
// aggregation of scores, so the commands that score say them (judge,
// rescore, report), for the tasks they score; the others (exec, generate,
// agree, audit) read questions, gold and leaves, and do not.
func warnTasks(env *Env, tasks []*datasets.Task) {
	for _, t := range tasks {
		for _, w := range t.Warnings {
			if env.warned == nil {
				env.warned = map[string]bool{}
			}
			if msg := w.Error(); !env.warned[msg] {
				env.warned[msg] = true
				fmt.Fprintln(env.Stderr, "warning:", msg)
			}
		}
	}
}

func pct(x float64) string { return fmt.Sprintf("%.2f", 100*scoring.Round6(x)) }
