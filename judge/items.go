package judge

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/clinsql/clinsql/datasets"
)

// Pair matches a run's outputs with their tasks. The tasks judged are
// those of the splits the run has outputs for; a task of such a split
// without an output is judged as an empty answer (no SQL, no result), as
// the reference scores a missing file 0. An output whose task is unknown
// is an error: it cannot be judged.
func Pair(tasks []*datasets.Task, outputs []*datasets.Output, runDir string) ([]Item, error) {
	byKey := map[datasets.Key]*datasets.Task{}
	for _, t := range tasks {
		byKey[t.Key] = t
	}
	splits := map[string]bool{}
	have := map[datasets.Key]bool{}
	var items []Item
	var errs []error
	for _, o := range outputs {
		t := byKey[o.Key]
		if t == nil {
			errs = append(errs, fmt.Errorf("%s: no task %s in the task folder", o.Dir, o.Key))
			continue
		}
		splits[o.Key.Split] = true
		have[o.Key] = true
		items = append(items, Item{Task: t, Answer: LoadAnswer(o, t.Question)})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, t := range tasks {
		if splits[t.Split] && !have[t.Key] {
			items = append(items, Item{Task: t, Answer: &Answer{Key: t.Key, Question: t.Question,
				Dir: filepath.Join(runDir, filepath.FromSlash(t.Key.String()))}})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Task.Key.Less(items[j].Task.Key) })
	return items, nil
}

// ModelName returns the model named by most of the outputs'
// execution summaries, or fallback.
func ModelName(outputs []*datasets.Output, fallback string) string {
	n := map[string]int{}
	best := ""
	for _, o := range outputs {
		m := o.Summary.Model
		if m == "" {
			continue
		}
		n[m]++
		if n[m] > n[best] || (n[m] == n[best] && m < best) {
			best = m
		}
	}
	if best == "" {
		return fallback
	}
	return best
}
