package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/clinsql/clinsql/agreement/labelset"
	"path/filepath"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/reports"
	"github.com/clinsql/clinsql/rubric"
)

const reportUsage = `usage: clinsql report --tasks DIR --out DIR (--run DIR | --grading FILE)... [--ehrsql DIR]...
       clinsql report --out DIR --ehrsql DIR...
                      [--mode strict|reference] [--seed N] [--resamples N] [--rank-by exec|sql|rs0|rs10]
                      [--compare A,B]... [--abstain-marker null] [--correct-at 1]
                      [--task KEY]... [--domain D] [--difficulty D] [--limit N]

Writes the tables and pictures of a paper for any number of models into --out:
leaderboard.md/.csv (SQL and execution score per split x difficulty with 95%
bootstrap intervals, task and invalid-leaf counts, both aggregation modes),
scenarios.md/.csv, comparisons.csv (paired differences), taxonomy.md/.csv
(error taxonomy), refinement.md/.csv, health.csv (judge health), report.json,
the reference's summary files per model under models/, and report.html (one
self-contained file with charts and a drill-down from model to task to leaf).

--grading is a recorded detailed_grading.json (the model name comes from its
summary). --run is a run folder in the reference inference layout; its
judge/ folder (written by clinsql judge) holds the decisions. A run without
judge/ decisions lends its outputs (SQL, results, refinement attempts) to the
--grading of the same model. Both flags repeat.

--tasks may name part of the tasks (a domain, difficulty or task folder, a
manifest line FILE.jsonl:N), and --task, --domain, --difficulty and --limit
keep only some: the report is then over those tasks only, from the inputs'
decisions about them, and says "Subset: ..." in every file (report.json
"subset", a leaderboard.csv column, the Markdown and HTML headers).

Judge outputs that are partial (a run judged with --allow-partial) or
interrupted (leaves left undecided) are refused; --include-incomplete reports
them with the marker "[partial]" or "[interrupted]" after the model's name.

--mode picks the main tables' mode: strict (the default, as for judge,
rescore and run) or reference (reproduces the published scorer); the other
mode is shown beside it. Every table, CSV row, report.json and the HTML
name the mode of each figure.

RS(0) and RS(10), the EHRSQL 2024 reliability scores, stand beside the scores
of models with run outputs: a task scores +1 when its execution score reaches
--correct-at, 0 when its final SQL is --abstain-marker, -c otherwise.

--audit DIR adds to report.html the judge audit written by clinsql audit
--out DIR (known-verdict answers: false fails on gold, missed fails on
mutations, rubric lint).

--labels FILE (a label set: datasets/labels/validation.jsonl or one in its
format) adds "How accurate is this judge?": each model's judge against the
labelled leaves of its answers (error rate, false pass and false fail with
95% Wilson intervals, the code checks' share), and the leaderboard corrected
by the labels: each labelled leaf taking its label, the SQL and execution
scores computed again beside the judged ones, the leaves changed per model.

--ehrsql is an EHRSQL run folder (clinsql generate --benchmark ehrsql); it
adds the EHRSQL section: ehrsql.md and ehrsql.csv (RS(0), RS(5), RS(10),
RS(N) per model x strategy with 95% bootstrap intervals, coverage and the
thresholds with their calibration split), and in report.html the same
table, each strategy's questions (prediction, gold, outcome, why it
abstained), risk and RS(c) against coverage on the evaluation split and the
calibration sweep. Without --tasks, only that section is written.

Every chart is also written as its own SVG file under figures/, and the
leaderboard as LaTeX tables in leaderboard.tex.
`

// reportRequest is what clinsql report is asked to do: from its flags, or
// from a benchmark config (clinsql run).
type reportRequest struct {
	TasksDir, Out                  string
	Gradings, Runs, Judged, EHRSQL []string
	Filter                         *taskFilter
	Mode                           rubric.Mode
	Metric                         reports.Metric
	Compare                        [][2]string
	AuditDir                       string
	LabelsFile                     string
	Seed                           uint64
	Resamples, PreviewRows         int
	Marker                         string
	Threshold                      float64
	IncludeIncomplete              bool
}

// defaultReportRequest is clinsql report's defaults.
func defaultReportRequest() reportRequest {
	return reportRequest{Mode: rubric.Strict, Metric: reports.MetricExec, Seed: 1, Resamples: 2000, PreviewRows: 10, Marker: "null", Threshold: 1}
}

func runReport(ctx context.Context, env *Env, args []string) error {
	r, err := parseReportFlags(env, args)
	if err != nil {
		return err
	}
	return reportRun(ctx, env, r)
}

func parseReportFlags(env *Env, args []string) (reportRequest, error) {
	r := defaultReportRequest()
	fs := newFlagSet(env, "report")
	fs.Usage = func() { fmt.Fprint(env.Stderr, reportUsage); printFlags(fs) }
	var gradings, runs, judged, compares, ehrsqlRuns stringList
	fs.StringVar(&r.TasksDir, "tasks", "", "ClinSQL task `folder` or manifest")
	fs.StringVar(&r.Out, "out", "", "output `folder`")
	fs.Var(&gradings, "grading", "recorded detailed_grading.json (repeatable)")
	fs.Var(&runs, "run", "run folder (repeatable)")
	fs.Var(&judged, "judged", "judge output `folder` (clinsql judge --out; repeatable): reported with the run it judged, which must still hold the answers judged")
	fs.Var(&ehrsqlRuns, "ehrsql", "EHRSQL run `folder` (repeatable): adds the EHRSQL section")
	modeName := fs.String("mode", string(rubric.Strict), "main aggregation `mode`: strict or reference")
	fs.StringVar(&r.AuditDir, "audit", "", "judge audit `folder` (clinsql audit --out) to show in report.html")
	fs.StringVar(&r.LabelsFile, "labels", "", "label set `file` (JSON lines): the judges' accuracy and the leaderboard corrected by the labels")
	fs.Uint64Var(&r.Seed, "seed", 1, "bootstrap `seed`")
	fs.IntVar(&r.Resamples, "resamples", 2000, "bootstrap `resamples`")
	rankBy := fs.String("rank-by", string(reports.MetricExec), "rank models by `metric`: exec, sql, rs0 or rs10")
	fs.Var(&compares, "compare", "paired difference of models `A,B` (repeatable; default: each model against the next in rank)")
	fs.IntVar(&r.PreviewRows, "preview-rows", 10, "result `rows` shown per task in the HTML")
	fs.StringVar(&r.Marker, "abstain-marker", "null", "final SQL that means the model abstained, for RS(c)")
	fs.Float64Var(&r.Threshold, "correct-at", 1, "execution `score` at which a task counts as correct for RS(c)")
	fs.BoolVar(&r.IncludeIncomplete, "include-incomplete", false, "report partial or interrupted judge outputs, flagged in every table (refused otherwise)")
	r.Filter = addTaskFilter(fs)
	if err := parseFlags(fs, args); err != nil {
		return r, err
	}
	r.Gradings, r.Runs, r.Judged, r.EHRSQL = gradings, runs, judged, ehrsqlRuns
	if r.Out != "" && r.TasksDir == "" && len(gradings)+len(runs)+len(judged) == 0 && len(ehrsqlRuns) > 0 {
		return r, nil // the EHRSQL section alone
	}
	if r.TasksDir == "" || r.Out == "" {
		return r, usagef("--tasks and --out are required")
	}
	if len(gradings)+len(runs)+len(judged) == 0 {
		return r, usagef("give at least one --run, --judged or --grading")
	}
	var err error
	if r.Mode, err = rubric.ParseMode(*modeName); err != nil {
		return r, usageError{err.Error()}
	}
	if r.Metric, err = reports.ParseMetric(*rankBy); err != nil {
		return r, usageError{err.Error()}
	}
	if !(r.Threshold > 0 && r.Threshold <= 1) {
		return r, usagef("--correct-at must be in (0, 1]")
	}
	if r.Resamples < 1 {
		return r, usagef("--resamples must be at least 1")
	}
	for _, c := range compares {
		a, b, ok := strings.Cut(c, ",")
		if !ok || a == "" || b == "" {
			return r, usagef("--compare %q: want two model names separated by a comma", c)
		}
		r.Compare = append(r.Compare, [2]string{a, b})
	}
	return r, nil
}

// reportRun writes a requested report (reports.Run) with a progress line,
// and prints its ranking.
func reportRun(ctx context.Context, env *Env, r reportRequest) error {
	if r.TasksDir == "" && len(r.Gradings)+len(r.Runs)+len(r.Judged) == 0 {
		return writeEHRSQLOnly(env, r.Out, r.EHRSQL)
	}
	tasks, err := loadTasks(env, r.TasksDir)
	if err != nil {
		return err
	}
	tasks, subset, err := r.selectTasks(env, tasks)
	if err != nil {
		return err
	}
	warnTasks(env, tasks)
	// Two stages (reading and computing, then writing); on a terminal the
	// line's clock shows the report is working.
	bar := newBar(env, "report: stages", 2, false)
	defer bar.Finish()
	var sec *reports.EHRSQL
	if len(r.EHRSQL) > 0 {
		if sec, err = writeEHRSQLReport(env, r.Out, r.EHRSQL); err != nil {
			return err
		}
	}
	var labels []labelset.Label
	if r.LabelsFile != "" {
		if labels, err = labelset.ReadFile(r.LabelsFile); err != nil {
			return fmt.Errorf("--labels: %w", err)
		}
	}
	rep, files, err := reports.Run(ctx, reports.Job{Out: r.Out, AuditDir: r.AuditDir, EHRSQL: sec, Labels: labels, LabelsFile: r.LabelsFile,
		Options: reports.Options{Tasks: tasks, Gradings: r.Gradings, Runs: r.Runs, Judged: r.Judged, Mode: r.Mode,
			Bootstrap: reports.Bootstrap{Seed: r.Seed, Resamples: r.Resamples}, RankBy: r.Metric, Compare: r.Compare, PreviewRows: r.PreviewRows,
			Reliability:       reports.Reliability{Abstention: reliability.Abstention{Marker: r.Marker}, Threshold: r.Threshold},
			IncludeIncomplete: r.IncludeIncomplete, Subset: subset},
		Built: func(rep *reports.Report) {
			bar.Step("built", 0, 0, false)
			const shown = 10
			for i, w := range rep.Warnings {
				if i == shown {
					fmt.Fprintf(env.Stderr, "warning: ... %d more in %s\n", len(rep.Warnings)-shown, filepath.Join(r.Out, reports.ReportJSON))
					break
				}
				fmt.Fprintln(env.Stderr, "warning:", w)
			}
		}})
	if err != nil {
		return err
	}
	bar.Step("written", 0, 0, false)
	bar.Finish()
	rep.WriteBrief(env.Stdout)
	fmt.Fprintf(env.Stdout, "\nwrote %d files to %s\nreport: %s\n", len(files), r.Out, files[len(files)-1])
	return nil
}

// selectTasks is the report's task set: the subset its runs were judged
// on (reports.RunsSubset), narrowed by the subset flags. Runs judged on
// different subsets are refused unless the flags choose the tasks.
func (r reportRequest) selectTasks(env *Env, tasks []*datasets.Task) ([]*datasets.Task, string, error) {
	in, err := reports.RunsSubset(r.Runs)
	var mismatch *reports.SubsetMismatchError
	switch {
	case errors.As(err, &mismatch) && r.Filter.given():
		in = nil // the flags choose; each model must cover their tasks
	case err != nil:
		return nil, "", err
	}
	if in == nil {
		return r.Filter.selectTasks(env, tasks, r.TasksDir, nil, "", "")
	}
	return r.Filter.selectTasks(env, tasks, r.TasksDir, in.Keys, in.Label, "--run "+in.Runs[0])
}

// writeEHRSQLOnly writes the report of EHRSQL runs alone: the section's
// tables, its figures and report.html.
func writeEHRSQLOnly(env *Env, out string, dirs []string) error {
	sec, err := writeEHRSQLReport(env, out, dirs)
	if err != nil {
		return err
	}
	files, err := reports.NewEHRSQLReport(sec).Write(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "report: %s\n", files[len(files)-1])
	return nil
}

// writeEHRSQLReport writes the EHRSQL section's tables of the runs into
// out and returns the section for report.html.
func writeEHRSQLReport(env *Env, out string, dirs []string) (*reports.EHRSQL, error) {
	var runs []*ehrsqlbench.RunReport
	for _, d := range dirs {
		r, err := ehrsqlbench.ReadRun(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	files, err := ehrsqlbench.WriteReport(out, runs)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		printEHRSQLResults(env.Stdout, r.Results)
	}
	fmt.Fprintf(env.Stdout, "wrote the EHRSQL section (%d files) to %s\n", len(files), out)
	return ehrsqlbench.Section(runs)
}
