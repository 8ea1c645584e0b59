package scoring

import "github.com/clinsql/clinsql/datasets"

// Only returns a copy of g holding the evaluations of the given tasks: a
// subset of the tasks is scored from the decisions about those tasks alone.
// Evaluations whose sample_path names no task are kept, so that Rescore
// still reports them.
func (g *Grading) Only(tasks []*datasets.Task) *Grading {
	keep := make(map[datasets.Key]bool, len(tasks))
	for _, t := range tasks {
		keep[t.Key] = true
	}
	out := *g
	out.Evaluations = nil
	for _, e := range g.Evaluations {
		if k, err := datasets.ParseKey(e.SamplePath); err != nil || keep[k] {
			out.Evaluations = append(out.Evaluations, e)
		}
	}
	return &out
}
