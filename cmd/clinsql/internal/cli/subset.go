package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/clinsql/clinsql/datasets"
)

// taskFilter holds the subset flags shared by every command that takes
// tasks (--split, --task KEY (repeatable), --domain, --difficulty and
// --limit): a datasets.Selection. --tasks itself may already name a part
// of the tree (see datasets.LoadClinSQL).
type taskFilter struct {
	sel  datasets.Selection
	keys stringList
}

// addTaskFilter registers the subset flags.
func addTaskFilter(fs *flag.FlagSet) *taskFilter {
	f := &taskFilter{}
	fs.StringVar(&f.sel.Split, "split", "", "only tasks of this `split` (validation, test)")
	fs.Var(&f.keys, "task", "only this task `KEY` (split/Domain/difficulty_level_queries/id, or a path ending so; repeatable)")
	fs.StringVar(&f.sel.Domain, "domain", "", "only tasks of this `domain` (e.g. Laboratory_Results_Analysis)")
	fs.StringVar(&f.sel.Difficulty, "difficulty", "", "only tasks of this `difficulty` (easy, medium or hard)")
	fs.IntVar(&f.sel.Limit, "limit", 0, "only the first `N` tasks (in key order) after the other filters")
	return f
}

// selection is the filter with --tasks root: nil when it keeps every task.
func (f *taskFilter) selection(root string) *datasets.Selection {
	if f == nil {
		return nil
	}
	s := f.sel
	s.Keys = f.keys
	if kind := datasets.PartKind(root); kind != "" {
		s.Part = fmt.Sprintf("%s (one %s)", root, kind)
	} else if strings.Contains(root, ".jsonl:") {
		s.Part = root + " (one manifest line)"
	}
	if !s.Active() && s.Split == "" {
		return nil
	}
	return &s
}

// given reports whether any subset flag was given.
func (f *taskFilter) given() bool {
	return f != nil && (len(f.keys) > 0 || f.sel.Split != "" || f.sel.Domain != "" || f.sel.Difficulty != "" || f.sel.Limit > 0)
}

// check refuses flags that cannot select anything (a usage error).
func (f *taskFilter) check() error {
	if f == nil {
		return nil
	}
	s := f.selection("")
	if err := s.Check(); err != nil {
		return usageError{err.Error()}
	}
	if s != nil {
		f.sel.Difficulty = s.Difficulty
	}
	return nil
}

// apply keeps the tasks the flags select (with root, the --tasks they came
// from) and returns them with the subset's description ("" for whole
// splits).
func (f *taskFilter) apply(tasks []*datasets.Task, root string) ([]*datasets.Task, string, error) {
	if err := f.check(); err != nil {
		return nil, "", err
	}
	sel := f.selection(root)
	tasks, err := sel.Apply(tasks)
	if err != nil {
		return nil, "", err
	}
	return tasks, sel.String(), nil
}

// selectTasks narrows tasks to those recorded (a run's subset, with its
// label; nil keys: none recorded; from names where it is recorded, for
// errors), then to the flags', and says on stderr
// when the result is a subset. It returns the tasks and the subset's
// description ("" for whole splits).
func (f *taskFilter) selectTasks(env *Env, tasks []*datasets.Task, root string, recorded []datasets.Key, label, from string) ([]*datasets.Task, string, error) {
	if recorded != nil {
		kept, unknown := datasets.KeepKeys(tasks, recorded)
		if len(unknown) > 0 {
			return nil, "", fmt.Errorf("%s was made on %d tasks, %d of them not in --tasks %s (first: %s): give the --tasks it was made from",
				from, len(recorded), len(unknown), root, unknown[0])
		}
		tasks = kept
	}
	tasks, what, err := f.apply(tasks, root)
	if err != nil && recorded != nil {
		return nil, "", fmt.Errorf("%w among the %d tasks of %s (%s)", err, len(recorded), from, label)
	}
	if err != nil {
		return nil, "", err
	}
	if recorded != nil && what != "" {
		what = label + ", then " + what
	} else if recorded != nil {
		what = label
	}
	if what != "" {
		fmt.Fprintf(env.Stderr, "subset: %d tasks (%s)\n", len(tasks), what)
	}
	if n := f.limit(); n > len(tasks) {
		// Fewer tasks than asked for: said, with where the others are.
		if recorded != nil {
			fmt.Fprintf(env.Stderr, "note: --limit %d, but only %d tasks remain: %s was made on %d tasks and holds answers to no others; "+
				"to score more, generate them into its --out (generate ... --limit %d), then judge it again\n", n, len(tasks), from, len(recorded), n)
		} else {
			fmt.Fprintf(env.Stderr, "note: --limit %d, but only %d tasks remain after the other filters\n", n, len(tasks))
		}
	}
	return tasks, what, nil
}

// limit is --limit (0 when not given).
func (f *taskFilter) limit() int {
	if f == nil {
		return 0
	}
	return f.sel.Limit
}
