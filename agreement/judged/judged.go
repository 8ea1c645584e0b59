package judged

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// Decisions are one side's decisions: per model, per leaf.
type Decisions map[string]map[Ref]Decision

// Ref names a leaf of one task's rubric tree.
type Ref struct{ Task, Tree, Leaf string }

// Decision is a leaf's verdict ("pass", "fail", ...), who decided it, the
// leaf's kind when known, and the explanation.
type Decision struct {
	Status, Source, Kind, Explanation string
}

// Models are the models decided, sorted.
func (d Decisions) Models() []string {
	var out []string
	for m := range d {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Load reads a ledger, a grading, or every ledger and grading under a
// folder.
func Load(path string) (Decisions, error) {
	ledgers, gradings, err := find(path)
	if err != nil {
		return nil, err
	}
	out := Decisions{}
	add := func(model, file string) (map[Ref]Decision, error) {
		if out[model] != nil {
			return nil, fmt.Errorf("%s: model %q already read from another file", file, model)
		}
		m := map[Ref]Decision{}
		out[model] = m
		return m, nil
	}
	for _, l := range ledgers {
		m, err := add(ledgerModel(l), l)
		if err != nil {
			return nil, err
		}
		if err := readLedger(l, m); err != nil {
			return nil, err
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
		if err := readGrading(g, gr, m); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no %s or %s", path, judgefmt.LedgerFile, judgefmt.GradingFile)
	}
	return out, nil
}

// find lists the ledgers and gradings path is or holds.
func find(path string) (ledgers, gradings []string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		if filepath.Base(path) == judgefmt.LedgerFile {
			return []string{path}, nil, nil
		}
		return nil, []string{path}, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
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
	return ledgers, gradings, err
}

// readLedger adds the ledger's last decision of each leaf to m.
func readLedger(file string, m map[Ref]Decision) error {
	c, err := judgefmt.ReadLedger(file)
	if err != nil {
		return err
	}
	for k, r := range c.Last() {
		m[Ref{k.Task, string(k.Tree), k.Leaf}] = Decision{Status: r.Verdict.String(), Source: string(r.Source),
			Kind: string(r.Kind), Explanation: r.Explanation}
	}
	return nil
}

// readGrading adds the recorded grading's leaf decisions to m (inner nodes
// are aggregates, not decisions).
func readGrading(file string, gr *scoring.Grading, m map[Ref]Decision) error {
	for _, e := range gr.Evaluations {
		key, err := datasets.ParseKey(e.SamplePath)
		if err != nil {
			return fmt.Errorf("%s: sample_path %q: %w", file, e.SamplePath, err)
		}
		for tree, recs := range map[judgefmt.Tree]map[string]scoring.Record{judgefmt.TreeSQL: e.SQLEvaluations, judgefmt.TreeResults: e.ResultsEvaluations} {
			for id, r := range recs {
				if strings.HasPrefix(r.Explanation, "Aggregated from children") {
					continue // an inner node
				}
				v, _, _ := scoring.Classify(r)
				m[Ref{key.String(), string(tree), id}] = Decision{Status: v.Status.String(), Source: "recorded", Explanation: r.Explanation}
			}
		}
	}
	return nil
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

// Kinds gives each results leaf's kind: task -> leaf -> kind.
func Kinds(tasks []*datasets.Task) map[string]map[string]string {
	kinds := map[string]map[string]string{}
	for _, t := range tasks {
		m := map[string]string{}
		for _, l := range t.ResultsRubric.Root.Leaves() {
			m[l.ID] = string(codecheck.KindOf(l))
		}
		kinds[t.Key.String()] = m
	}
	return kinds
}

// Results says which answers of the run folders have a result: model (the
// folder's name) -> task -> has a result.
func Results(runs []string) (map[string]map[string]bool, error) {
	results := map[string]map[string]bool{}
	for _, dir := range runs {
		outputs, err := runfolder.LoadOutputs(dir)
		if err != nil && len(outputs) == 0 {
			return nil, err
		}
		m := map[string]bool{}
		for _, o := range outputs {
			m[o.Key.String()] = codecheck.LoadAnswer(o, "").HasResult()
		}
		results[filepath.Base(filepath.Clean(dir))] = m
	}
	return results, nil
}
