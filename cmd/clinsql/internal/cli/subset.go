package cli

import (
	"flag"
	"fmt"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/datasets"
)

// taskFilter holds the subset flags shared by every command that takes
// tasks (--split, --task KEY (repeatable), --domain, --difficulty and
// --limit): a datasets.Selection. --tasks itself may already name a part
// of the tree (see datasets.LoadClinSQL).
type taskFilter struct {
	sel  datasets.Selection
	keys cliflag.StringList
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
	return s.ForTasks(root)
}

// given reports whether any subset flag was given.
func (f *taskFilter) given() bool { return f.selection("") != nil }

// selectTasks narrows tasks to a recorded subset (rec nil: none), then
// to the flags' (datasets.Selection.Select; flags that cannot select
// anything are a usage error), and says on stderr when the result is a
// subset. It returns the tasks and the subset's description ("" for
// whole splits).
func (f *taskFilter) selectTasks(env *Env, tasks []*datasets.Task, root string, rec *datasets.Recorded) ([]*datasets.Task, string, error) {
	s := f.selection(root)
	if err := s.Check(); err != nil {
		return nil, "", usageError{Msg: err.Error()}
	}
	if s != nil {
		f.sel.Difficulty = s.Difficulty // as Check spells it, for the run's manifest
	}
	tasks, what, err := s.Select(tasks, root, rec)
	if err != nil {
		return nil, "", err
	}
	if what != "" {
		fmt.Fprintf(env.Stderr, "subset: %d tasks (%s)\n", len(tasks), what)
	}
	if n := f.limit(); n > len(tasks) {
		// Fewer tasks than asked for: said, with where the others are.
		if rec != nil {
			fmt.Fprintf(env.Stderr, "note: --limit %d, but only %d tasks remain: %s was made on %d tasks and holds answers to no others; "+
				"to score more, generate them into its --out (generate ... --limit %d), then judge it again\n", n, len(tasks), rec.From, len(rec.Keys), n)
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
