package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/agreement/judged"
	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/datasets"
)

const agreeUsage = `usage: clinsql agree A B [--out DIR] [--tasks DIR] [--run DIR]... [--seed N] [--resamples N]
       clinsql agree --labels FILE A [B ...] [--out DIR] [--tasks DIR] [--run DIR]...

Measures how well two judges agree on the same models' answers. A and B are
each a judge output folder (clinsql judge --out), a ledger.jsonl, a recorded
detailed_grading.json, or a folder holding any number of these (one per
model: the released outputs/evaluation folder, a benchmark folder). Models
are paired by name (a single model on each side pairs whatever the names).

Prints, over every leaf both decided as pass or fail: raw agreement and
Cohen's kappa with a 95% bootstrap interval over tasks, overall, per rubric
tree, leaf kind (csv_exists, column_exists, no_null, band, other, sql),
deciding source and kind x source, over all answers and over answers with a
result. A replayed decision paired with the recorded one it replays agrees
by construction: it counts under its source only, never in the overall,
tree and kind rows. Code decisions of SQL leaves (answers without SQL) are
source code:no-sql. --out receives agreement.tsv (the table) and
disagreements.tsv (every leaf decided differently, with both verdicts,
sources and explanations).

With --labels FILE (a label set: datasets/labels/validation.jsonl, or your
own in its format), measures each judge output A, B, ... against the
labels: per slice (overall, source, leaf kind, kind x source; all answers,
with a result, without), the error rate, false pass and false fail shares,
precision and recall of fail, each with a 95% Wilson interval, and the
error rate weighted back to the population the labels were drawn from.
Labels "arguable" and leaves the judge left undecided are counted, never
rated. --out receives accuracy.tsv and wrong.tsv (every leaf decided
against its label, with the judge's explanation and the label's
rationale), one row group per judge output.

A ledger knows each leaf's kind and, from the code check of "CSV File
Exists", whether the answer has a result. For recorded gradings, --tasks
(the ClinSQL task folder) gives the leaf kinds and --run (a run folder in
the reference inference layout, named after its model; repeatable) whether
each answer has a result.
`

func runAgree(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "agree")
	fs.Usage = func() { fmt.Fprint(env.Stderr, agreeUsage); cliflag.PrintDefaults(fs) }
	out := fs.String("out", "", "`folder` for the TSV files")
	tasksDir := fs.String("tasks", "", "ClinSQL task `folder` or manifest, for the kinds of recorded leaves")
	var runs cliflag.StringList
	fs.Var(&runs, "run", "model run `folder` (named after the model), for which answers have a result; repeatable")
	labelsFile := fs.String("labels", "", "label set `file` (JSON lines): measure each judge output against it")
	seed := fs.Uint64("seed", 1, "bootstrap `seed`")
	resamples := fs.Int("resamples", 1000, "bootstrap `replicates`")
	// Flags may follow the two folders: parse, take a positional, repeat.
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *labelsFile == "" && len(pos) != 2 {
		return usagef("want two judge outputs A and B, got %d argument(s)", len(pos))
	}
	if *labelsFile != "" && len(pos) == 0 {
		return usagef("--labels: want at least one judge output")
	}
	if *resamples < 10 || *resamples > 100_000 {
		return usagef("--resamples %d: want 10 to 100000", *resamples)
	}
	var tasks []*datasets.Task
	if *tasksDir != "" {
		if tasks, err = loadTasks(env, *tasksDir); err != nil {
			return err
		}
	}
	jctx, err := judged.NewContext(tasks, runs)
	if err != nil {
		return err
	}
	if *labelsFile != "" {
		return agreeLabels(ctx, env, *labelsFile, pos, jctx, *out)
	}
	items, pairs, err := judged.LoadPair(pos[0], pos[1], jctx)
	if err != nil {
		return err
	}
	rep := agreement.Compute(items, agreement.Options{Seed: *seed, Resamples: *resamples})
	fmt.Fprintf(env.Stdout, "A: %s\nB: %s\n", pos[0], pos[1])
	for _, p := range pairs {
		fmt.Fprintf(env.Stdout, "model %s\n", p)
	}
	fmt.Fprintln(env.Stdout)
	if err := rep.WriteTable(env.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n%d disagreement(s)\n", len(rep.Disagreements))
	return writeFiles(env, *out, rep.WriteFiles)
}

// agreeLabels measures each judge output against the label set.
func agreeLabels(_ context.Context, env *Env, file string, outputs []string, jctx judged.Context, out string) error {
	labels, err := labelset.ReadFile(file)
	if err != nil {
		return err
	}
	var reps []*agreement.LabelReport
	for _, path := range outputs {
		o, err := judged.Load(path)
		if err != nil {
			return err
		}
		items, m := judged.Labels(o, labels, jctx)
		if m.Judged == 0 {
			return fmt.Errorf("%s: judges none of the %d labelled leaves of %s (labelled models it lacks: %s)", path, m.Labels, file, strings.Join(m.Missing, ", "))
		}
		rep := agreement.Score(items)
		rep.Judge = path
		reps = append(reps, rep)
		fmt.Fprintf(env.Stdout, "judge %s: %d of %d labelled leaves on the tasks it judged (%d model(s))\n\n", path, m.Judged, m.Labels, len(rep.Models))
		if err := rep.WriteTable(env.Stdout); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "\n%d leaf(s) decided against the label\n\n", len(rep.Wrong))
	}
	return writeFiles(env, out, func(dir string) ([]string, error) { return agreement.WriteLabelFiles(dir, reps) })
}

// writeFiles writes the files into dir ("" writes nothing) and says
// which.
func writeFiles(env *Env, dir string, write func(dir string) ([]string, error)) error {
	if dir == "" {
		return nil
	}
	paths, err := write(dir)
	if err == nil {
		fmt.Fprintf(env.Stdout, "wrote %s\n", strings.Join(paths, " and "))
	}
	return err
}
