package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
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
	a, err := loadJudged(pos[0])
	if err != nil {
		return err
	}
	b, err := loadJudged(pos[1])
	if err != nil {
		return err
	}
	var kinds map[string]map[string]string // task -> results leaf -> kind
	if *tasksDir != "" {
		tasks, err := loadTasks(env, *tasksDir)
		if err != nil {
			return err
		}
		kinds = map[string]map[string]string{}
		for _, t := range tasks {
			m := map[string]string{}
			for _, l := range t.ResultsRubric.Root.Leaves() {
				m[l.ID] = string(codecheck.KindOf(l))
			}
			kinds[t.Key.String()] = m
		}
	}
	results := map[string]map[string]bool{} // model -> task -> has a result
	for _, dir := range runs {
		outputs, err := runfolder.LoadOutputs(dir)
		if err != nil && len(outputs) == 0 {
			return err
		}
		m := map[string]bool{}
		for _, o := range outputs {
			m[o.Key.String()] = codecheck.LoadAnswer(o, "").HasResult()
		}
		results[filepath.Base(filepath.Clean(dir))] = m
	}
	items, pairs, err := pairJudged(a, b, kinds, results)
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
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{"agreement.tsv": rep.WriteSlicesTSV, "disagreements.tsv": rep.WriteDisagreementsTSV} {
		var sb strings.Builder
		if err := write(&sb); err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(*out, name), []byte(sb.String())); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stdout, "wrote %s and %s\n", filepath.Join(*out, "agreement.tsv"), filepath.Join(*out, "disagreements.tsv"))
	return nil
}

// judged is one side's decisions: per model, per leaf.
type judged map[string]map[leafRef]leafDecision

type leafRef struct{ task, tree, leaf string }

type leafDecision struct {
	status, source, kind, explanation string
}

// loadJudged reads a ledger, a grading, or every ledger and grading under
// a folder. A grading beside or below a ledger's folder is that ledger's
// own output (clinsql judge writes both) and is not read again.
func loadJudged(path string) (judged, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var ledgers, gradings []string
	if !st.IsDir() {
		if filepath.Base(path) == judgefmt.LedgerFile {
			ledgers = append(ledgers, path)
		} else {
			gradings = append(gradings, path)
		}
	} else {
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch {
			case d.IsDir():
			case d.Name() == judgefmt.LedgerFile:
				ledgers = append(ledgers, p)
			case d.Name() == judgefmt.GradingFile:
				gradings = append(gradings, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := judged{}
	add := func(model, file string) (map[leafRef]leafDecision, error) {
		if out[model] != nil {
			return nil, fmt.Errorf("%s: model %q already read from another file", file, model)
		}
		m := map[leafRef]leafDecision{}
		out[model] = m
		return m, nil
	}
	for _, l := range ledgers {
		c, err := judgefmt.ReadLedger(l)
		if err != nil {
			return nil, err
		}
		m, err := add(ledgerModel(l), l)
		if err != nil {
			return nil, err
		}
		for k, r := range c.Last() {
			m[leafRef{k.Task, string(k.Tree), k.Leaf}] = leafDecision{status: r.Verdict.String(), source: string(r.Source),
				kind: string(r.Kind), explanation: r.Explanation}
		}
	}
next:
	for _, g := range gradings {
		for _, l := range ledgers {
			if strings.HasPrefix(g, filepath.Dir(l)+string(filepath.Separator)) {
				continue next
			}
		}
		gr, err := scoring.ReadGrading(g)
		if err != nil {
			return nil, err
		}
		model := gr.Model()
		if model == "" {
			model = filepath.Base(filepath.Dir(filepath.Dir(g)))
		}
		m, err := add(model, g)
		if err != nil {
			return nil, err
		}
		for _, e := range gr.Evaluations {
			key, err := datasets.ParseKey(e.SamplePath)
			if err != nil {
				return nil, fmt.Errorf("%s: sample_path %q: %w", g, e.SamplePath, err)
			}
			for tree, recs := range map[judgefmt.Tree]map[string]scoring.Record{judgefmt.TreeSQL: e.SQLEvaluations, judgefmt.TreeResults: e.ResultsEvaluations} {
				for id, r := range recs {
					if strings.HasPrefix(r.Explanation, "Aggregated from children") {
						continue // an inner node
					}
					v, _, _ := scoring.Classify(r)
					m[leafRef{key.String(), string(tree), id}] = leafDecision{status: v.Status.String(), source: "recorded", explanation: r.Explanation}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no %s or %s", path, judgefmt.LedgerFile, judgefmt.GradingFile)
	}
	return out, nil
}

// ledgerModel names a ledger's model: the judge summary beside it says,
// else the folder (a run's judge/ folder is named after the run).
func ledgerModel(ledger string) string {
	dir := filepath.Dir(ledger)
	sums, _ := filepath.Glob(filepath.Join(dir, judgefmt.SummaryFile))
	more, _ := filepath.Glob(filepath.Join(dir, "*", judgefmt.SummaryFile))
	sums = append(sums, more...)
	for _, s := range sums {
		b, err := runfolder.ReadFile(s, runfolder.MaxJudgeFileBytes)
		if err != nil {
			continue
		}
		var sum struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(b, &sum) == nil && sum.Model != "" {
			return sum.Model
		}
	}
	if filepath.Base(dir) == "judge" {
		dir = filepath.Dir(dir)
	}
	return filepath.Base(dir)
}

// pairJudged pairs the two sides' decisions of the models both judged, on
// the tasks both judged.
func pairJudged(a, b judged, kinds map[string]map[string]string, results map[string]map[string]bool) ([]agreement.Item, []string, error) {
	type pair struct{ name, a, b string }
	var pairs []pair
	for m := range a {
		if b[m] != nil {
			pairs = append(pairs, pair{m, m, m})
		}
	}
	if len(pairs) == 0 && len(a) == 1 && len(b) == 1 {
		for ma := range a {
			for mb := range b {
				pairs = append(pairs, pair{ma, ma, mb})
			}
		}
	}
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("no model judged by both (A: %s; B: %s)", strings.Join(names(a), ", "), strings.Join(names(b), ", "))
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].name < pairs[j].name })
	var items []agreement.Item
	var labels []string
	for _, p := range pairs {
		da, db := a[p.a], b[p.b]
		label := p.name
		if p.a != p.b {
			label = p.a + " (A) with " + p.b + " (B)"
		}
		labels = append(labels, label)
		tasksA, tasksB := map[string]bool{}, map[string]bool{}
		for r := range da {
			tasksA[r.task] = true
		}
		for r := range db {
			tasksB[r.task] = true
		}
		// Whether an answer has a result: the run, else a code check of
		// "CSV File Exists" on either side.
		res := map[string]bool{}
		for t, v := range results[p.name] {
			res[t] = v
		}
		for _, d := range []map[leafRef]leafDecision{da, db} {
			for r, x := range d {
				if _, ok := res[r.task]; !ok && x.kind == string(codecheck.KindCSV) && x.source == string(judgefmt.SourceCode) {
					res[r.task] = x.status == agreement.Pass
				}
			}
		}
		refs := map[leafRef]bool{}
		for r := range da {
			refs[r] = true
		}
		for r := range db {
			refs[r] = true
		}
		for r := range refs {
			if !tasksA[r.task] || !tasksB[r.task] {
				continue
			}
			x, okA := da[r]
			y, okB := db[r]
			kind := x.kind
			if kind == "" {
				kind = y.kind
			}
			if kind == "" && r.tree == string(judgefmt.TreeSQL) {
				kind = string(codecheck.KindSQL)
			}
			if kind == "" && kinds != nil {
				kind = kinds[r.task][r.leaf]
			}
			it := agreement.Item{Model: p.name, Task: r.task, Tree: r.tree, Leaf: r.leaf, Kind: kind,
				A: verdictOf(x, okA), B: verdictOf(y, okB)}
			it.Result, it.ResultKnown = res[r.task]
			items = append(items, it)
		}
	}
	return items, labels, nil
}

func verdictOf(d leafDecision, ok bool) agreement.Verdict {
	if !ok {
		return agreement.Verdict{Status: agreement.Missing}
	}
	return agreement.Verdict{Status: d.status, Source: d.source, Explanation: d.explanation}
}

func names(j judged) []string {
	var out []string
	for m := range j {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
