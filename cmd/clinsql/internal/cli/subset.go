package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/datasets"
)

// taskFilter holds the subset flags shared by every command that takes
// tasks: --task KEY (repeatable), --domain, --difficulty and --limit. --tasks
// itself may already name a part of the tree (see datasets.LoadClinSQL).
type taskFilter struct {
	keys       stringList
	domain     string
	difficulty string
	limit      int
}

// addTaskFilter registers the subset flags; withLimit is false for a
// command with a --limit of its own (generate).
func addTaskFilter(fs *flag.FlagSet, withLimit bool) *taskFilter {
	f := &taskFilter{}
	fs.Var(&f.keys, "task", "only this task `KEY` (split/Domain/difficulty_level_queries/id, or a path ending so; repeatable)")
	fs.StringVar(&f.domain, "domain", "", "only tasks of this `domain` (e.g. Laboratory_Results_Analysis)")
	fs.StringVar(&f.difficulty, "difficulty", "", "only tasks of this `difficulty` (easy, medium or hard)")
	if withLimit {
		fs.IntVar(&f.limit, "limit", 0, "only the first `N` tasks (in key order) after the other filters")
	}
	return f
}

// apply keeps the selected tasks, in their order. A key, domain or
// difficulty that selects nothing is an error naming it, never an empty run.
func (f *taskFilter) apply(tasks []*datasets.Task) ([]*datasets.Task, error) {
	if f == nil || !f.active() {
		return tasks, nil
	}
	if f.difficulty != "" {
		f.difficulty = strings.TrimSuffix(f.difficulty, "_level_queries")
		if !slices.Contains(datasets.Difficulties, f.difficulty) {
			return nil, usagef("--difficulty must be easy, medium or hard, not %q", f.difficulty)
		}
	}
	want := map[datasets.Key]bool{}
	for _, k := range f.keys {
		key, err := datasets.ParseKey(k)
		if err != nil {
			return nil, usagef("--task: %v", err)
		}
		want[key] = false
	}
	domains := map[string]bool{}
	var out []*datasets.Task
	for _, t := range tasks {
		domains[t.Domain] = true
		if len(want) > 0 {
			if _, ok := want[t.Key]; !ok {
				continue
			}
			want[t.Key] = true
		}
		if f.domain != "" && t.Domain != f.domain || f.difficulty != "" && t.Difficulty != f.difficulty {
			continue
		}
		if f.limit > 0 && len(out) == f.limit {
			break
		}
		out = append(out, t)
	}
	for k, found := range want {
		if !found {
			return nil, fmt.Errorf("--task %s: no such task in --tasks", k)
		}
	}
	if f.domain != "" && !domains[f.domain] {
		names := make([]string, 0, len(domains))
		for d := range domains {
			names = append(names, d)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("--domain %s: no such domain in --tasks (have: %s)", f.domain, strings.Join(names, ", "))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no task matches %s", f.describe())
	}
	return out, nil
}

func (f *taskFilter) active() bool {
	return len(f.keys) > 0 || f.domain != "" || f.difficulty != "" || f.limit > 0
}

// describe names the filters, for messages and outputs ("" when none).
func (f *taskFilter) describe() string {
	if f == nil || !f.active() {
		return ""
	}
	var parts []string
	for _, k := range f.keys {
		parts = append(parts, "--task "+k)
	}
	if f.domain != "" {
		parts = append(parts, "--domain "+f.domain)
	}
	if f.difficulty != "" {
		parts = append(parts, "--difficulty "+f.difficulty)
	}
	if f.limit > 0 {
		parts = append(parts, fmt.Sprintf("--limit %d", f.limit))
	}
	return strings.Join(parts, " ")
}

// subsetNote says, on stderr, that a command works on a subset, and which
// (a score over a subset is not comparable with one over the split), and
// returns that description ("" for a whole task set) for the outputs.
func subsetNote(env *Env, f *taskFilter, root string, n int) string {
	what := f.describe()
	if kind := datasets.PartKind(root); kind != "" {
		what = strings.TrimSpace(fmt.Sprintf("--tasks %s (one %s) %s", root, kind, what))
	} else if strings.Contains(root, ".jsonl:") {
		what = strings.TrimSpace(fmt.Sprintf("--tasks %s (one manifest line) %s", root, what))
	}
	if what != "" {
		fmt.Fprintf(env.Stderr, "subset: %d tasks (%s)\n", n, what)
	}
	return what
}
