package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/judge/judgefmt"
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
	g, err := scoring.ReadGrading(*grading)
	if err != nil {
		return err
	}
	if err := g.RequireComplete(); err != nil {
		return err
	}
	// A subset is scored from the decisions about its tasks; the scores
	// say "subset" so that they are never taken for the split's.
	if subset != "" {
		g = g.Only(tasks)
	}
	r, err := scoring.Rescore(g, tasks, mode)
	if err != nil {
		return err
	}
	if subset != "" {
		r.Completeness = "subset"
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(env.Stderr, "warning:", w)
	}
	if err := r.WriteFiles(*out); err != nil {
		return err
	}
	if err := writeRescoreSummary(*out, *grading, subset, r); err != nil {
		return err
	}
	ref := r
	if mode != rubric.Reference {
		if ref, err = scoring.Rescore(g, tasks, rubric.Reference); err != nil {
			return err
		}
	}
	switch {
	case *brief:
		printBrief(env.Stdout, ref, r)
		return nil
	case mode == rubric.Reference:
		printReference(env.Stdout, r)
	default:
		printStrict(env.Stdout, ref, r)
	}
	fmt.Fprintf(env.Stdout, "\nwrote %s, %s, %s (%s mode) and %s to %s\n", scoring.ScoringFile, scoring.DifficultyFile, scoring.ScenarioFile,
		mode, rescoreSummaryFile, *out)
	return nil
}

// rescoreSummaryFile names what the three summary files beside it are: in
// reference mode they equal the published files byte for byte and so can
// hold no field of clinsql's own, not even their mode.
const rescoreSummaryFile = "rescore_summary.json"

type rescoreSummary struct {
	Mode     rubric.Mode     `json:"mode"`
	Producer buildinfo.Stamp `json:"producer"`
	Grading  string          `json:"grading"`
	// Subset describes the task filter of a rescore over part of the
	// tasks (--task, --domain, a domain folder, ...); the scores are then
	// the subset's, not the split's.
	Subset string `json:"subset,omitempty"`
	Model  string `json:"model"`
	Split  string `json:"split"`
	// The split's averages, as judge_summary.json gives them per split.
	judgefmt.SplitScores
	Files []string `json:"files"`
}

func writeRescoreSummary(dir, grading, subset string, r *scoring.Rescored) error {
	b := scoring.Summarise(r.Tasks)
	s := rescoreSummary{Mode: r.Mode, Producer: buildinfo.Current(), Grading: grading, Subset: subset, Model: r.Model, Split: r.Split,
		SplitScores: judgefmt.SplitScores{Tasks: b.All.N, AverageSQLScore: scoring.Round6(b.All.SQL), AverageResultsScore: scoring.Round6(b.All.Results),
			TasksWithInvalid: b.All.InvalidTasks},
		Files: []string{scoring.ScoringFile, scoring.DifficultyFile, scoring.ScenarioFile}}
	j, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, rescoreSummaryFile), append(j, '\n'))
}

// loadTasks loads a task set and refuses to go on if any task is broken:
// scoring a smaller set without saying so is what the reference did.
func loadTasks(env *Env, dir string) ([]*datasets.Task, error) {
	tasks, err := datasets.LoadClinSQL(dir)
	if err != nil {
		return nil, fmt.Errorf("loading tasks from %s:\n%w", dir, err)
	}
	for _, t := range tasks {
		for _, w := range t.Warnings {
			fmt.Fprintln(env.Stderr, "warning:", w)
		}
	}
	return tasks, nil
}

func pct(x float64) string { return fmt.Sprintf("%.2f", 100*scoring.Round6(x)) }

// printReference prints the scenario x difficulty table and the check of
// recomputed against recorded task scores.
func printReference(w io.Writer, r *scoring.Rescored) {
	mismatch := 0
	for _, t := range r.Tasks {
		if t.SQL.Value != t.RecordedSQL || t.Results.Value != t.RecordedResults {
			mismatch++
		}
	}
	fmt.Fprintf(w, "%s  %s  mode %s  %d tasks; recomputed task scores differing from the recorded ones: %d\n\n",
		r.Model, r.Split, r.Mode, len(r.Tasks), mismatch)
	printCells(w, scoring.Summarise(r.Tasks))
}

// printCells prints SQL and execution scores (x100) per scenario and
// difficulty.
func printCells(w io.Writer, b *scoring.Breakdown) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-36s\tn\t", "scenario")
	fmt.Fprint(tw, "SQL easy\tmedium\thard\tall\tExec easy\tmedium\thard\tall\t\n")
	row := func(name string, all scoring.Average, cells map[string]scoring.Average) {
		fmt.Fprintf(tw, "%-36s\t%d\t", name, all.N)
		for _, field := range []func(scoring.Average) float64{
			func(a scoring.Average) float64 { return a.SQL },
			func(a scoring.Average) float64 { return a.Results },
		} {
			for _, d := range datasets.Difficulties {
				if a, ok := cells[d]; ok {
					fmt.Fprintf(tw, "%s\t", pct(field(a)))
				} else {
					fmt.Fprint(tw, "-\t")
				}
			}
			fmt.Fprintf(tw, "%s\t", pct(field(all)))
		}
		fmt.Fprintln(tw)
	}
	for _, s := range b.Scenarios() {
		row(s, b.ByScenario[s], b.ByCell[s])
	}
	row("all", b.All, b.ByDifficulty)
	tw.Flush()
}

// printStrict prints the strict table beside the reference one, with what
// changed and why.
func printStrict(w io.Writer, ref, strict *scoring.Rescored) {
	kinds := map[string]int{}
	kindTasks := 0
	invalidTasks, ungraded := 0, 0
	changedSQL, changedExec := 0, 0
	refByKey := map[datasets.Key]*scoring.TaskScore{}
	for _, t := range ref.Tasks {
		refByKey[t.Key] = t
	}
	for _, t := range strict.Tasks {
		n := 0
		for k, c := range t.Kinds {
			kinds[k] += c
			n += c
		}
		if n > 0 {
			kindTasks++
		}
		if t.Invalid() > 0 {
			invalidTasks++
		}
		if !t.Graded {
			ungraded++
			continue
		}
		if rt := refByKey[t.Key]; rt != nil {
			if rt.SQL.Value != t.SQL.Value {
				changedSQL++
			}
			if rt.Results.Value != t.Results.Value {
				changedExec++
			}
		}
	}
	fmt.Fprintf(w, "%s  %s  strict mode beside the published (reference) scores\n", strict.Model, strict.Split)
	fmt.Fprintf(w, "recorded judge errors: %d leaves; unreadable replies: %d; non-binary scores: %d; in %d tasks\n",
		kinds[scoring.KindJudgeError], kinds[scoring.KindUnparsed], kinds[scoring.KindNonBinary], kindTasks)
	fmt.Fprintf(w, "tasks scored differently: SQL %d, execution %d; tasks with invalid leaves: %d; tasks the grading lacks: %d\n\n",
		changedSQL, changedExec, invalidTasks, ungraded)

	rb, sb := scoring.Summarise(ref.Tasks), scoring.Summarise(strict.Tasks)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "difficulty\tn pub\tn strict\tSQL pub\tstrict\tExec pub\tstrict\tinvalid tasks\t\n")
	row := func(name string, r, s scoring.Average) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t\n", name, r.N, s.N, pct(r.SQL), pct(s.SQL), pct(r.Results), pct(s.Results), s.InvalidTasks)
	}
	for _, d := range datasets.Difficulties {
		row(d, rb.ByDifficulty[d], sb.ByDifficulty[d])
	}
	row("all", rb.All, sb.All)
	tw.Flush()
	fmt.Fprintln(w, "\nstrict scores by scenario:")
	printCells(w, sb)
	if invalidTasks > 0 {
		fmt.Fprintln(w, "\nstrict scores count invalid leaves as failures; scoring_results.json gives each task's bounds.")
	}
}

// printBrief prints one line per model: published (reference) averages and
// those of the chosen mode, x100.
func printBrief(w io.Writer, ref, r *scoring.Rescored) {
	rb, sb := scoring.Summarise(ref.Tasks), scoring.Summarise(r.Tasks)
	fmt.Fprintf(w, "%-40s %-9s %4d  SQL %6s  Exec %6s  |  %-9s %4d  SQL %6s  Exec %6s  invalid tasks %d\n",
		r.Model, ref.Mode, rb.All.N, pct(rb.All.SQL), pct(rb.All.Results), r.Mode, sb.All.N, pct(sb.All.SQL), pct(sb.All.Results), sb.All.InvalidTasks)
}
