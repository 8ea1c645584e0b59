package judge

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// A Job is one judge run as clinsql judge runs it: the answers of a run
// folder judged against their tasks into an output folder, resumable. It
// holds the policy around [Run]: the run is read under a shared lock and
// the output written under an exclusive one; a run with tasks missing is
// refused unless AllowPartial (then its output is marked partial);
// recorded decisions about another model are refused unless
// ReplayOtherModel, and those of a re-executed run apply only where its
// result is the recorded one; the ledger is bound to the run, the tasks
// and the backend (so it is never resumed for other answers); and the
// scores are written with what they are bound to.
type Job struct {
	// Tasks are the tasks to judge against (already filtered); Subset
	// describes the filter ("" when the run's tasks are all judged).
	Tasks  []*datasets.Task
	Subset string
	// Run is the run folder; Out the output folder ("" is <Run>/judge).
	Run, Out string
	// Options are the engine's; Backend is left to NewBackend.
	Options Options
	// NewBackend sets opts.Backend once the folders are locked and the run
	// read (a judge configuration may also set the grouping and the
	// reference-guided mode); the caller closes what it opened.
	NewBackend func(run *runfolder.Run, opts *Options) error
	// AllowPartial judges a run with missing answers (the output is
	// marked partial); ReplayOtherModel replays decisions recorded about
	// another model's answers.
	AllowPartial, ReplayOtherModel bool
	// Note receives the job's warnings and notes; nil discards them.
	Note func(format string, a ...any)
	// Estimated, if set, is called with the estimate before any leaf is
	// judged; an error ends the job (ErrEstimateOnly ends it cleanly).
	Estimated func(JobEstimate) error
}

// JobEstimate is what a job will judge, before it does.
type JobEstimate struct {
	Model string
	// Tasks are the tasks judged, Resumed the leaves the ledger holds.
	Tasks, Resumed int
	Estimate
	// Options are the job's, backend included.
	Options Options
}

// JobResult is a finished (or stopped) job: its outcome scored and
// written to Out. Outcome.Stopped says why a run stopped early.
type JobResult struct {
	Out     string
	Outcome *Outcome
	Scored  *Scored
}

// ErrEstimateOnly, returned by Job.Estimated, ends a job after its
// estimate: RunJob then returns (nil, nil).
var ErrEstimateOnly = fmt.Errorf("estimate only")

// RunJob judges the job's run into its output folder.
func RunJob(ctx context.Context, j Job) (*JobResult, error) {
	note := j.Note
	if note == nil {
		note = func(string, ...any) {}
	}
	out := j.Out
	if out == "" {
		out = filepath.Join(j.Run, runfolder.JudgeDir)
	}
	// The run is read under a shared lock (no generate may write it
	// meanwhile), the output written under an exclusive one (one judge at
	// a time per output folder).
	runLock, err := runfolder.LockShared(j.Run)
	if err != nil {
		return nil, err
	}
	defer runLock.Release()
	outLock, err := runfolder.LockExclusive(out)
	if err != nil {
		return nil, err
	}
	defer outLock.Release()
	run, items, missing, err := j.pair(note)
	if err != nil {
		return nil, err
	}
	opts := j.Options
	if err := j.NewBackend(run, &opts); err != nil {
		return nil, err
	}
	if err := j.checkReplay(opts.Backend, run, note); err != nil {
		return nil, err
	}
	runID, err := run.Identity()
	if err != nil {
		// Refused result files (links, FIFOs, devices, oversized) are
		// judged as unreadable results; say which.
		note("warning: some results cannot be read and are judged as having none:\n%v", err)
	}
	binding := Binding{Run: &runID, TasksSHA256: runfolder.TaskFingerprint(tasksOfItems(items)),
		Backend: BackendIdentity(opts.Backend), Missing: missing, Subset: j.Subset}
	led, err := OpenLedger(filepath.Join(out, judgefmt.LedgerFile), opts, binding)
	if err != nil {
		return nil, err
	}
	defer led.Close()
	if led.Recovered {
		note("note: %s ended in a torn line (a killed run); it was dropped and that leaf is judged again", led.Path())
	}
	model := run.Model()
	if j.Estimated != nil {
		prompter, _ := opts.Backend.(Prompter)
		maxTokens := 0
		if m, ok := opts.Backend.(interface{ MaxTokens() int }); ok {
			maxTokens = m.MaxTokens()
		}
		est := EstimateRun(items, led, opts, prompter, samplesOf(opts.Backend), maxTokens)
		err := j.Estimated(JobEstimate{Model: model, Tasks: len(items), Resumed: led.Len(), Estimate: est, Options: opts})
		if err == ErrEstimateOnly {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	o, err := Run(ctx, items, led, opts)
	if err != nil {
		return nil, err
	}
	sc := Score(o, model)
	sc.Bind(binding)
	if err := sc.WriteFiles(out, o); err != nil {
		return nil, err
	}
	return &JobResult{Out: out, Outcome: o, Scored: sc}, nil
}

// pair reads the run and pairs its answers with the job's tasks; missing
// are the tasks the run has no answer for (refused unless AllowPartial).
func (j *Job) pair(note func(string, ...any)) (*runfolder.Run, []Item, []string, error) {
	run, err := runfolder.Load(j.Run)
	if err != nil {
		if run == nil || len(run.Outputs) == 0 {
			return nil, nil, nil, err
		}
		// An unreadable answer is judged as no answer; say which.
		note("warning: some outputs cannot be read and are judged as empty answers:\n%v", err)
	}
	outputs := run.Outputs
	if j.Subset != "" {
		outputs = outputsOf(outputs, j.Tasks) // the run's other tasks are not judged
	}
	var missing []string
	if m := run.Missing(j.Tasks); len(m) > 0 {
		for _, k := range m {
			missing = append(missing, k.String())
		}
		if !j.AllowPartial {
			return nil, nil, nil, fmt.Errorf("run %s (model %q) is partial: %d of %d tasks have no final answer (first: %s); "+
				"finish it (run the same clinsql generate again), or pass --allow-partial to judge the %d answered tasks with the output marked partial",
				j.Run, run.Model(), len(m), len(m)+len(outputs), m[0], len(outputs))
		}
		note("note: judging a partial run: %d tasks have no answer; the output is marked partial", len(m))
	}
	items, err := Pair(j.Tasks, outputs, j.Run)
	return run, items, missing, err
}

// checkReplay refuses recorded decisions about another model's answers
// (unless ReplayOtherModel), and limits those of a re-executed run's
// results leaves to the answers whose result is the recorded one.
func (j *Job) checkReplay(b Backend, run *runfolder.Run, note func(string, ...any)) error {
	rp, ok := b.(*Replay)
	if !ok {
		return nil
	}
	model, recorded := run.Model(), ""
	if run.Manifest != nil {
		recorded = run.Manifest.RecordedModel
	}
	if rm := rp.Model(); !SameModel(rm, model) && (recorded == "" || !SameModel(rm, recorded)) {
		if !j.ReplayOtherModel {
			return fmt.Errorf("--judge %s: the recorded decisions are about model %q, but --run %s holds model %q: "+
				"replaying them would score one model's answers with another's verdicts; pass --replay-other-model to do it on purpose", rp.Name(), rm, j.Run, model)
		}
		note("warning: replaying decisions about model %q for run %q (--replay-other-model)", rm, model)
	}
	if recorded != "" {
		same := sameResults(run.Outputs)
		engine := run.Manifest.Engine.Name
		rp.ReExecuted(same, engine)
		note("note: %s re-executed %s's SQL on %s: recorded SQL decisions are replayed, but recorded results decisions only for the %d of %d answers whose result is byte for byte the recorded one; "+
			"results leaves code cannot decide on the others are invalid (judge them with --judge-config)", j.Run, recorded, engine, len(same), len(run.Outputs))
	}
	return nil
}

// OpenLedger opens (or resumes) the ledger that judging with opts writes,
// bound to b: clinsql judge's and the audit's ledgers have one header.
func OpenLedger(path string, opts Options, b Binding) (*judgefmt.Ledger, error) {
	name := ""
	if opts.Backend != nil {
		name = opts.Backend.Name()
	}
	return judgefmt.OpenLedger(path, judgefmt.LedgerHeader{Mode: opts.Mode, Judge: name, ReferenceGuided: opts.ReferenceGuided,
		CodeChecks: opts.CodeChecks, Skipping: opts.Skipping, Samples: samplesOf(opts.Backend), Group: string(opts.Group), GroupGated: opts.GroupGated,
		Run: b.Run, TasksSHA256: b.TasksSHA256, Backend: b.Backend, Partial: len(b.Missing) > 0})
}

// samplesOf is a backend's samples per leaf (1 unless it votes).
func samplesOf(b Backend) int {
	if s, ok := b.(interface{ Samples() int }); ok {
		return max(1, s.Samples())
	}
	return 1
}

// outputsOf keeps the outputs of the tasks given.
func outputsOf(outputs []*runfolder.Output, tasks []*datasets.Task) []*runfolder.Output {
	keep := make(map[datasets.Key]bool, len(tasks))
	for _, t := range tasks {
		keep[t.Key] = true
	}
	var out []*runfolder.Output
	for _, o := range outputs {
		if keep[o.Key] {
			out = append(out, o)
		}
	}
	return out
}

// sameResults are the answers of a re-executed run whose result is the
// recorded one, byte for byte.
func sameResults(outputs []*runfolder.Output) map[datasets.Key]bool {
	same := map[datasets.Key]bool{}
	for _, o := range outputs {
		if o.SameResultAsRecorded() {
			same[o.Key] = true
		}
	}
	return same
}
