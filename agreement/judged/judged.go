package judged

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// Outputs is one judge output's decisions: per model, per leaf.
type Outputs map[string]*decisions

// decisions are one model's decisions by leaf, and the answers they were
// made on when the output records them (clinsql judge does; published
// gradings, made on the released runs, do not).
type decisions struct {
	leaves map[leafRef]leafDecision
	run    *runfolder.Identity
}

type leafRef struct{ task, tree, leaf string }

type leafDecision struct {
	status, source, kind, explanation string
}

// Load reads a ledger, a grading, or every ledger and grading under
// a folder. A grading beside or below a ledger's folder is that ledger's
// own output (clinsql judge writes both) and is not read again.
func Load(path string) (Outputs, error) {
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
	out := Outputs{}
	add := func(model, file string, run *runfolder.Identity) (map[leafRef]leafDecision, error) {
		if out[model] != nil {
			return nil, fmt.Errorf("%s: model %q already read from another file", file, model)
		}
		m := &decisions{leaves: map[leafRef]leafDecision{}, run: run}
		out[model] = m
		return m.leaves, nil
	}
	for _, l := range ledgers {
		c, err := judgefmt.ReadLedger(l)
		if err != nil {
			return nil, err
		}
		model, run := ledgerModel(l)
		m, err := add(model, l, run)
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
		model := folderName(gr.Model())
		if model == "" {
			model = filepath.Base(filepath.Dir(filepath.Dir(g)))
		}
		m, err := add(model, g, gr.Summary.Run)
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

// ledgerModel names a ledger's model and the answers it judged: the judge
// summary beside it says, else the folder names the model (a run's judge/
// folder is named after the run) and the answers are unknown.
func ledgerModel(ledger string) (string, *runfolder.Identity) {
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
			Model string              `json:"model"`
			Run   *runfolder.Identity `json:"run"`
		}
		if json.Unmarshal(b, &sum) == nil && folderName(sum.Model) != "" {
			return folderName(sum.Model), sum.Run
		}
	}
	if filepath.Base(dir) == "judge" {
		dir = filepath.Dir(dir)
	}
	return filepath.Base(dir), nil
}

// Context is what a judge output may not say about a leaf: its kind and
// whether its answer has a result. A ledger knows both (the kind, and the
// code check of "CSV File Exists"); a recorded grading knows neither.
type Context struct {
	// Kinds is the kind of each results leaf: task key -> leaf -> kind.
	Kinds map[string]map[string]string
	// Results says whether each answer has a result: model -> task key
	// -> has a result.
	Results map[string]map[string]bool
}

// NewContext is the context of the tasks (nil: none) and the run folders
// (each named after its model): the kind of every results leaf of the
// tasks, and whether each answer of each run has a result.
func NewContext(tasks []*datasets.Task, runs []string) (Context, error) {
	c := Context{Kinds: map[string]map[string]string{}, Results: map[string]map[string]bool{}}
	for _, t := range tasks {
		m := map[string]string{}
		for _, l := range t.ResultsRubric.Root.Leaves() {
			m[l.ID] = string(codecheck.KindOf(l))
		}
		c.Kinds[t.Key.String()] = m
	}
	for _, dir := range runs {
		outputs, err := runfolder.LoadOutputs(dir)
		if err != nil && len(outputs) == 0 {
			return c, err
		}
		res := map[string]bool{}
		for _, o := range outputs {
			res[o.Key.String()] = codecheck.LoadAnswer(o, "").HasResult()
		}
		c.Results[filepath.Base(filepath.Clean(dir))] = res
	}
	return c, nil
}

// LoadPair loads two judge outputs (Load) and pairs them (Pair).
func LoadPair(a, b string, ctx Context) ([]agreement.Item, []string, error) {
	oa, err := Load(a)
	if err != nil {
		return nil, nil, err
	}
	ob, err := Load(b)
	if err != nil {
		return nil, nil, err
	}
	items, pairs, err := Pair(oa, ob, ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s and %s: %w", a, b, err)
	}
	return items, pairs, nil
}

// results says whether each answer of the model has a result: the runs,
// else a code check of "CSV File Exists" in any of the decisions.
func (c Context) results(model string, ds ...*decisions) map[string]bool {
	res := map[string]bool{}
	for t, v := range c.Results[model] {
		res[t] = v
	}
	for _, d := range ds {
		for r, x := range d.leaves {
			if _, ok := res[r.task]; !ok && x.kind == string(codecheck.KindCSV) && x.source == string(judgefmt.SourceCode) {
				res[r.task] = x.status == agreement.Pass
			}
		}
	}
	return res
}

// kind is the leaf's kind: the decisions', else the SQL tree's, else the
// tasks'.
func (c Context) kind(r leafRef, ds ...leafDecision) string {
	for _, d := range ds {
		if d.kind != "" {
			return d.kind
		}
	}
	if r.tree == string(judgefmt.TreeSQL) {
		return string(codecheck.KindSQL)
	}
	return c.Kinds[r.task][r.leaf]
}

// folderName is the name a model's folders carry: a provider's model id
// "org/name" is named by its last element (the release's inference and
// evaluation folders are), so a grading that records "org/name" pairs
// with the run and the labels named "name".
func folderName(model string) string {
	return model[strings.LastIndex(model, "/")+1:]
}

// Pair pairs the two sides' decisions of the models both judged, on
// the tasks both judged.
func Pair(a, b Outputs, ctx Context) ([]agreement.Item, []string, error) {
	type pair struct{ name, a, b string }
	var pairs []pair
	for m := range a {
		if b[m] != nil {
			pairs = append(pairs, pair{m, m, m})
		}
	}
	// Two outputs of one model each, named differently, are paired only
	// when both record the same answers: a judge of one model's answers
	// says nothing about another model's, leaf by leaf.
	if len(pairs) == 0 && len(a) == 1 && len(b) == 1 {
		for ma, da := range a {
			for mb, db := range b {
				if da.run != nil && db.run != nil && da.run.Answers == db.run.Answers && da.run.Tasks == db.run.Tasks {
					pairs = append(pairs, pair{ma, ma, mb})
				}
			}
		}
	}
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("no model judged by both (A: %s; B: %s)", strings.Join(names(a), ", "), strings.Join(names(b), ", "))
	}
	// Both sides must have judged the same answers where both say what
	// they judged: judges of a BigQuery run and of its re-execution on a
	// sample database decided different results, and agreeing or not on
	// them measures nothing.
	for _, p := range pairs {
		ra, rb := a[p.a].run, b[p.b].run
		if ra != nil && rb != nil && (ra.Answers != rb.Answers || ra.Tasks != rb.Tasks) {
			return nil, nil, fmt.Errorf("model %s: A judged other answers than B (A: %s; B: %s): judges are compared only on the same answers", p.name, ra, rb)
		}
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
		tasksA, tasksB := da.tasks(), db.tasks()
		res := ctx.results(p.name, da, db)
		refs := map[leafRef]bool{}
		for r := range da.leaves {
			refs[r] = true
		}
		for r := range db.leaves {
			refs[r] = true
		}
		for r := range refs {
			if !tasksA[r.task] || !tasksB[r.task] {
				continue
			}
			x, okA := da.leaves[r]
			y, okB := db.leaves[r]
			it := agreement.Item{Model: p.name, Task: r.task, Tree: r.tree, Leaf: r.leaf, Kind: ctx.kind(r, x, y),
				A: verdictOf(x, okA), B: verdictOf(y, okB)}
			it.Result, it.ResultKnown = res[r.task]
			items = append(items, it)
		}
	}
	return items, labels, nil
}

// Match says how a judge output covered a label set.
type Match struct {
	// Labels counts the labels; Judged those of a task the output judged
	// for the label's model (the items returned).
	Labels, Judged int
	// Missing lists the labelled models the output holds no decision of.
	Missing []string
}

// Labels pairs a judge output's decisions with the labels: one item per
// label of a task the output judged for the label's model (a leaf the
// output does not hold on such a task is Missing: undecided). The label's
// own kind is its tree's or the tasks'; the weight is its stratum's
// population over its draw.
func Labels(out Outputs, labels []labelset.Label, ctx Context) ([]agreement.Labelled, Match) {
	m := Match{Labels: len(labels)}
	tasks := map[string]map[string]bool{}
	results := map[string]map[string]bool{}
	missing := map[string]bool{}
	var items []agreement.Labelled
	for _, l := range labels {
		d := out[l.Model]
		if d == nil {
			missing[l.Model] = true
			continue
		}
		if tasks[l.Model] == nil {
			tasks[l.Model] = d.tasks()
			results[l.Model] = ctx.results(l.Model, d)
		}
		task := l.Key.String()
		if !tasks[l.Model][task] {
			continue
		}
		r := leafRef{task, l.Tree, l.Leaf}
		x, ok := d.leaves[r]
		it := agreement.Labelled{Item: agreement.Item{Model: l.Model, Task: task, Tree: l.Tree, Leaf: l.Leaf, Kind: ctx.kind(r, x),
			A: verdictOf(x, ok), B: agreement.Verdict{Status: l.Label, Source: "label", Explanation: l.Rationale}}, Chosen: l.Chosen, Weight: 1}
		if l.Drawn > 0 && l.Population > 0 {
			it.Weight = float64(l.Population) / float64(l.Drawn)
		}
		it.Result, it.ResultKnown = results[l.Model][task]
		items = append(items, it)
	}
	m.Judged = len(items)
	for model := range missing {
		m.Missing = append(m.Missing, model)
	}
	sort.Strings(m.Missing)
	return items, m
}

func (d *decisions) tasks() map[string]bool {
	t := map[string]bool{}
	for r := range d.leaves {
		t[r.task] = true
	}
	return t
}

func verdictOf(d leafDecision, ok bool) agreement.Verdict {
	if !ok {
		return agreement.Verdict{Status: agreement.Missing}
	}
	return agreement.Verdict{Status: d.status, Source: d.source, Explanation: d.explanation}
}

func names(j Outputs) []string {
	var out []string
	for m := range j {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
