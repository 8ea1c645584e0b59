package reports

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// InputSubset is the subset of tasks that the run folders of a report
// were judged on (or, not judged yet, generated on): the default task set
// of a report over them, so that a subset flows from generate to judge to
// report with no flag typed again.
type InputSubset struct {
	Keys []datasets.Key
	// Label says how the subset was chosen ("the run's subset: --limit 6").
	Label string
	// Runs are the run folders it was read from.
	Runs []string
}

// RunsSubset reads the subset the runs were judged on: the tasks of each
// judge output marked "subset" (judge_summary.json), else of a run whose
// manifest records a subset. It returns nil when every run is whole, and
// an error naming two runs when they were judged on different subsets (a
// report compares models on the same tasks).
func RunsSubset(runs []string) (*InputSubset, error) {
	var out *InputSubset
	for _, dir := range runs {
		keys, label, err := runSubset(dir)
		if err != nil {
			return nil, fmt.Errorf("--run %s: %w", dir, err)
		}
		if keys == nil {
			continue
		}
		slices.SortFunc(keys, func(a, b datasets.Key) int { return strings.Compare(a.String(), b.String()) })
		switch {
		case out == nil:
			out = &InputSubset{Keys: keys, Label: label, Runs: []string{dir}}
		case slices.Equal(out.Keys, keys):
			out.Runs = append(out.Runs, dir)
		default:
			return nil, &SubsetMismatchError{A: out.Runs[0], LabelA: out.Label, NA: len(out.Keys), B: dir, LabelB: label, NB: len(keys)}
		}
	}
	return out, nil
}

// SubsetMismatchError: two runs of a report were judged on different
// subsets.
type SubsetMismatchError struct {
	A, LabelA string
	NA        int
	B, LabelB string
	NB        int
}

func (e *SubsetMismatchError) Error() string {
	return fmt.Sprintf("--run %s was judged on %d tasks (%s), --run %s on %d other tasks (%s): a report compares models on the same tasks; "+
		"report them apart, or choose tasks both were judged on with --task, --domain, --difficulty or --limit", e.A, e.NA, e.LabelA, e.B, e.NB, e.LabelB)
}

// runSubset is the subset one run was judged on: its judge output's
// tasks when it is marked subset, else the manifest's recorded subset of
// a run not judged yet; nil keys for a whole run.
func runSubset(dir string) ([]datasets.Key, string, error) {
	jdir := filepath.Join(dir, runfolder.JudgeDir)
	b, err := runfolder.ReadFile(filepath.Join(jdir, JudgeSummaryFile), runfolder.MaxJudgeFileBytes)
	if err != nil {
		if runfolder.Exists(filepath.Join(jdir, JudgeSummaryFile)) {
			return nil, "", err
		}
		return runfolder.RunSubset(dir)
	}
	js, err := judgefmt.DecodeSummary(b)
	if err != nil || js.Completeness != "subset" {
		return nil, "", nil // an unreadable summary is the report's warning
	}
	paths, err := judgeGradings(jdir)
	if err != nil {
		return nil, "", err
	}
	var keys []datasets.Key
	for _, p := range paths {
		g, err := scoring.ReadGrading(p)
		if err != nil {
			return nil, "", err
		}
		for i, e := range g.Evaluations {
			k, err := datasets.ParseKey(e.SamplePath)
			if err != nil {
				return nil, "", fmt.Errorf("%s: detailed_evaluations[%d]: %w", p, i, err)
			}
			keys = append(keys, k)
		}
	}
	label := js.Subset
	if label == "" {
		label = "judged on a subset"
	}
	return keys, label, nil
}
