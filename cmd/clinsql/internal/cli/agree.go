package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/agreement/judged"
)

const agreeUsage = `usage: clinsql agree A B [--out DIR] [--tasks DIR] [--run DIR]... [--seed N] [--resamples N]

Measures how well two judges agree on the same models' answers. A and B are
each a judge output folder (clinsql judge --out), a ledger.jsonl, a recorded
detailed_grading.json, or a folder holding any number of these (one per
model: the released outputs/evaluation folder, a benchmark folder). Models
are paired by name (a single model on each side pairs whatever the names).

Prints, over every leaf both decided as pass or fail: raw agreement and
Cohen's kappa with a 95% bootstrap interval over tasks, overall, per rubric
tree, leaf kind (csv_exists, column_exists, no_null, band, other, sql) and
deciding source, over all answers and over answers with a result. --out
receives agreement.tsv (the table) and disagreements.tsv (every leaf
decided differently, with both verdicts, sources and explanations).

A ledger knows each leaf's kind and, from the code check of "CSV File
Exists", whether the answer has a result. For recorded gradings, --tasks
(the ClinSQL task folder) gives the leaf kinds and --run (a run folder in
the reference inference layout, named after its model; repeatable) whether
each answer has a result.
`

func runAgree(_ context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "agree")
	fs.Usage = func() { fmt.Fprint(env.Stderr, agreeUsage); printFlags(fs) }
	out := fs.String("out", "", "`folder` for agreement.tsv and disagreements.tsv")
	tasksDir := fs.String("tasks", "", "ClinSQL task `folder` or manifest, for the kinds of recorded leaves")
	var runs stringList
	fs.Var(&runs, "run", "model run `folder` (named after the model), for which answers have a result; repeatable")
	seed := fs.Uint64("seed", 1, "bootstrap `seed`")
	resamples := fs.Int("resamples", 1000, "bootstrap `replicates`")
	// Flags may follow the two folders: parse, take a positional, repeat.
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want two judge outputs A and B, got %d argument(s)", len(pos))
	}
	if *resamples < 10 || *resamples > 100_000 {
		return usagef("--resamples %d: want 10 to 100000", *resamples)
	}
	a, err := judged.Load(pos[0])
	if err != nil {
		return err
	}
	b, err := judged.Load(pos[1])
	if err != nil {
		return err
	}
	var kinds map[string]map[string]string // task -> results leaf -> kind
	if *tasksDir != "" {
		tasks, err := loadTasks(env, *tasksDir)
		if err != nil {
			return err
		}
		kinds = judged.Kinds(tasks)
	}
	results, err := judged.Results(runs) // model -> task -> has a result
	if err != nil {
		return err
	}
	items, pairs, err := judged.Pair(a, b, kinds, results)
	if err != nil {
		return fmt.Errorf("%s and %s: %w", pos[0], pos[1], err)
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
	if *out == "" {
		return nil
	}
	if err := rep.WriteFiles(*out); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %s and %s\n", filepath.Join(*out, agreement.SlicesFile), filepath.Join(*out, agreement.DisagreementsFile))
	return nil
}
