package judge

import (
	"errors"
	"fmt"
	"sort"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/runfolder"
)

// Pair matches a run's outputs with their tasks. The tasks judged are
// those the run answered. A task without an answer is not judged as an
// empty one (that would score a run that is still being generated as if
// its model had failed): callers refuse runs with missing answers
// (runfolder.Run.Missing) unless partial judging is asked for, and then
// mark the output partial. An output whose task is unknown is an error: it
// cannot be judged.
func Pair(tasks []*datasets.Task, outputs []*runfolder.Output, runDir string) ([]Item, error) {
	byKey := map[datasets.Key]*datasets.Task{}
	for _, t := range tasks {
		byKey[t.Key] = t
	}
	var items []Item
	var errs []error
	for _, o := range outputs {
		t := byKey[o.Key]
		if t == nil {
			errs = append(errs, fmt.Errorf("%s: no task %s in the task folder", o.Dir, o.Key))
			continue
		}
		items = append(items, Item{Task: t, Answer: codecheck.LoadAnswer(o, t.Question)})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Task.Key.Less(items[j].Task.Key) })
	return items, nil
}
