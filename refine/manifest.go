package refine

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// runHandle is a run folder held by this process: locked, with its
// manifest saying what the run is meant to hold and whether it is final.
type runHandle struct {
	dir  string
	lock *runfolder.Lock
	man  *runfolder.Manifest
}

// openRun locks a model's run folder for writing (a second writer is
// refused at once) and writes its manifest, not complete, before any task
// is started: a process that stops for any reason leaves a manifest that
// says the run is unfinished. Tasks already in the manifest stay in it, so
// a run first made with a subset and then finished names them all.
func openRun(dir, command, model string, recorded recordedFrom, tasks []*datasets.Task, set refinefmt.Settings, engine runfolder.Engine, sel *datasets.Selection, runID string) (*runHandle, error) {
	lock, err := runfolder.LockExclusive(dir)
	if err != nil {
		return nil, err
	}
	m, err := runfolder.ReadManifest(dir)
	if err != nil {
		lock.Release()
		return nil, err
	}
	fresh := m == nil
	if fresh {
		m = &runfolder.Manifest{}
	}
	prevSplits := m.Splits
	keys := map[string]bool{}
	for _, k := range m.Tasks {
		keys[k] = true
	}
	splits := map[string]bool{}
	for _, s := range m.Splits {
		splits[s] = true
	}
	for _, t := range tasks {
		keys[t.Key.String()] = true
		splits[t.Split] = true
	}
	gen, _ := json.Marshal(set)
	m.Benchmark, m.Model, m.RecordedModel, m.RecordedRun, m.RunID, m.Command = "clinsql", model, recorded.Model, recorded.Run, runID, command
	m.Tasks = slices.Sorted(maps.Keys(keys))
	m.Splits = slices.Sorted(maps.Keys(splits))
	m.TasksSHA256 = runfolder.TaskFingerprint(tasks)
	m.Engine = engine
	m.Generation = gen
	m.Subset, m.Selection = subsetAfter(fresh, m, prevSplits, tasks, sel)
	m.Complete, m.Pending = false, nil
	if err := runfolder.WriteManifest(dir, m); err != nil {
		lock.Release()
		return nil, err
	}
	return &runHandle{dir: dir, lock: lock, man: m}, nil
}

// recordedFrom names the recorded run a re-execution re-ran: its model and
// its folder (absolute); zero for a generated run.
type recordedFrom struct{ Model, Run string }

// subsetAfter is whether a run is a subset once a call with selection sel
// (nil: whole splits) has added tasks to m, and the selection to record.
// A whole call covering every split of the earlier calls makes the run
// whole; a subset call keeps a whole run whole when it stays within its
// splits; two subset calls of different selections leave a subset with no
// one selection to name.
func subsetAfter(fresh bool, m *runfolder.Manifest, prevSplits []string, tasks []*datasets.Task, sel *datasets.Selection) (bool, *datasets.Selection) {
	sel = activeOrNil(sel)
	within := func() bool { // the earlier splits cover this call's
		for _, t := range tasks {
			if !slices.Contains(prevSplits, t.Split) {
				return false
			}
		}
		return true
	}
	covers := func() bool { // this call's splits cover the earlier ones
		for _, s := range prevSplits {
			if !slices.ContainsFunc(tasks, func(t *datasets.Task) bool { return t.Split == s }) {
				return false
			}
		}
		return true
	}
	switch {
	case fresh:
		return sel != nil, sel
	case sel == nil && (!m.Subset || covers()):
		return false, nil
	case sel == nil:
		return true, nil
	case !m.Subset && within():
		return false, nil
	case m.Subset && m.Selection.Equal(sel):
		return true, sel
	}
	return true, nil
}

func activeOrNil(s *datasets.Selection) *datasets.Selection {
	if !s.Active() {
		return nil
	}
	return s
}

// databaseFacter is an engine that knows what data its database holds.
type databaseFacter interface {
	DatabaseFacts() runfolder.DatabaseFacts
}

// engineRecord is the manifest's description of the engine a run's answers
// run on: its name and semantics (as in the settings), the database file's
// fingerprint, and the facts the engine found about its data.
func engineRecord(ex executor.Executor, set refinefmt.Settings, database string) runfolder.Engine {
	e := runfolder.Engine{Name: set.Engine, Semantics: set.EngineSemantics, Database: database}
	if f, ok := ex.(databaseFacter); ok {
		e.DatabaseFacts = f.DatabaseFacts()
	}
	return e
}

// finish records whether every task of the manifest is final and releases
// the folder. pending are the tasks this call left undone.
func (h *runHandle) finish(pending []string, complete bool) error {
	if h == nil {
		return nil
	}
	defer h.lock.Release()
	h.man.Pending = pending
	h.man.Complete = complete && len(pending) == 0
	if h.man.Complete {
		// Every task in the manifest must have its answer on disk: a
		// subset run finished now does not finish the tasks of a larger
		// earlier call.
		for _, s := range h.man.Tasks {
			k, err := datasets.ParseKey(s)
			if err != nil {
				continue
			}
			if _, ok, _ := refinefmt.ReadSummary(h.dir, k); !ok {
				h.man.Complete = false
				h.man.Pending = append(h.man.Pending, s)
			}
		}
	}
	return runfolder.WriteManifest(h.dir, h.man)
}
