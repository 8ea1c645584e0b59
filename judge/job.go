package judge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// A Job is one judge run as clinsql judge runs it: the answers of a run
// folder judged against their tasks into an output folder, resumable. It
// holds the policy around [Run]: the run is read under a shared lock and
// the output written under an exclusive one; a run whose files cannot be
// read (links, FIFOs, oversized) is refused, naming them; a run with tasks
// missing is refused unless AllowPartial (then its output is marked
// partial); recorded decisions about another model are refused unless
// ReplayOtherModel, and those of a re-executed run apply only where its
// answer is verified to be the recorded one; the ledger is bound to the
// run, the tasks and the backend (so it is never resumed for other
// answers) and authenticated with this machine's key (so it is never
// resumed from decisions written elsewhere); and the scores are written
// with what they are bound to.
type Job struct {
	// Tasks are the tasks to judge against (already filtered); Subset
	// describes the filter ("" when the run's tasks are all judged).
	Tasks  []*datasets.Task
	Subset string
	// Run is the run folder (its root or one split folder); Out the
	// output folder ("" is DefaultOut of the run, outside it).
	Run, Out string
	// RecordedRun is, for a run that re-executed a recorded run's SQL, the
	// recorded run's folder, over the one the run's manifest names.
	RecordedRun string
	// Key authenticates the output folder's ledger (package localkey):
	// decisions are resumed only from a ledger this machine wrote. nil
	// authenticates nothing.
	Key localkey.Key
	// Options are the engine's; Backend is left to NewBackend.
	Options Options
	// NewBackend sets opts.Backend once the folders are locked and the run
	// read (a judge configuration may also set the grouping and the
	// reference-guided mode; an LLM backend keeps its spending record and
	// cache in out); the caller closes what it opened.
	NewBackend func(run *runfolder.Run, out string, opts *Options) error
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

// DefaultOutDir is where judge outputs go when no output folder is given:
// out/judge in the working folder, one folder per run (DefaultOut). Never
// inside the run folder: a run folder comes from its producer, and a judge
// output shipped inside it must not be taken for this machine's own.
var DefaultOutDir = filepath.Join("out", "judge")

// DefaultOut is a run's default output folder: DefaultOutDir/<model>-<the
// first 12 hex digits of its answers' fingerprint>. Judging the same
// answers again resumes there; a run whose answers changed gets another.
func DefaultOut(id runfolder.Identity) string {
	a := id.Answers
	if len(a) > 12 {
		a = a[:12]
	}
	return filepath.Join(DefaultOutDir, strings.Trim(unsafeName.ReplaceAllString(id.Model, "_"), ".")+"-"+a)
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
	// The run is read under a shared lock on its top folder, where
	// generate and exec take theirs (no writer may change it meanwhile),
	// the output written under an exclusive one (one judge at a time per
	// output folder).
	root, err := runfolder.FindRoot(j.Run)
	if err != nil {
		return nil, err
	}
	runLock, err := runfolder.LockShared(root)
	if err != nil {
		return nil, err
	}
	defer runLock.Release()
	run, items, missing, err := j.pair(note)
	if err != nil {
		return nil, err
	}
	runID, err := run.Identity()
	if err != nil {
		return nil, unreadable(j.Run, err)
	}
	out := j.Out
	if out == "" {
		out = DefaultOut(runID)
	}
	if err := refuseInside(out, j.Run, root); err != nil {
		return nil, err
	}
	outLock, err := runfolder.LockExclusive(out)
	if err != nil {
		return nil, err
	}
	defer outLock.Release()
	opts := j.Options
	if err := j.NewBackend(run, out, &opts); err != nil {
		return nil, err
	}
	if err := j.checkReplay(opts.Backend, run, note); err != nil {
		return nil, err
	}
	binding := Binding{Run: &runID, TasksSHA256: runfolder.TaskFingerprint(tasksOfItems(items)),
		Backend: BackendIdentity(opts.Backend), Missing: missing, Subset: j.Subset}
	led, err := OpenLedger(filepath.Join(out, judgefmt.LedgerFile), opts, binding, j.Key)
	if err != nil {
		return nil, err
	}
	defer led.Close()
	notedLedger(led, note)
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

// notedLedger says what of a resumed ledger was not trusted.
func notedLedger(led *judgefmt.Ledger, note func(string, ...any)) {
	if led.Recovered {
		note("note: %s ended in a torn line (a killed run); it was dropped and that leaf is judged again", led.Path())
	}
	if led.SetAside != "" {
		note("note: %s was not written on this machine (copied, shipped with a run folder, or written before ledgers were authenticated): "+
			"none of its %d decisions is trusted; it was moved to %s and every leaf is judged again", led.Path(), led.Foreign, led.SetAside)
	}
	if led.Untrusted > 0 {
		note("note: %d records of %s fail authentication (changed after they were written): they are ignored and their leaves judged again", led.Untrusted, led.Path())
	}
}

// refuseInside refuses an output folder inside the run folder being
// judged (root, read through run), other than the run's judge/ folder
// earlier versions wrote by default (resumed only as far as this machine
// wrote it: its ledger is authenticated): anything else there is the run's
// producer's.
func refuseInside(out, run, root string) error {
	o, err1 := filepath.Abs(out)
	r, err2 := filepath.Abs(root)
	d, err3 := filepath.Abs(run)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil
	}
	rel, err := filepath.Rel(r, o)
	switch {
	case err != nil, rel == "..", strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		return nil
	case rel == ".":
		return fmt.Errorf("--out %s is the run folder itself: judge into a folder of its own (the default is under %s)", out, DefaultOutDir)
	case o == filepath.Join(r, runfolder.JudgeDir), o == filepath.Join(d, runfolder.JudgeDir):
		return nil
	}
	return fmt.Errorf("--out %s lies inside the run folder %s: judge into a folder outside it (the default is under %s)", out, root, DefaultOutDir)
}

// unreadable refuses a run whose answers cannot all be read: judging them
// as empty answers would be a wrong score with exit code 0.
func unreadable(run string, err error) error {
	msg := fmt.Sprintf("run %s: some answers cannot be read, and judging them as empty answers would score them 0:\n%v", run, err)
	if errors.Is(err, runfolder.ErrNotRegular) && strings.Contains(err.Error(), "symbolic link") {
		msg += "\nrun folders are read without following links. A folder checked out by git-annex or DVC, or copied with cp -s, " +
			"holds links: judge a copy with the links resolved (cp -rL RUN COPY; git annex unlock; dvc checkout with a copy cache)"
	}
	return errors.New(msg)
}

// pair reads the run and pairs its answers with the job's tasks; missing
// are the tasks the run has no answer for (refused unless AllowPartial).
func (j *Job) pair(note func(string, ...any)) (*runfolder.Run, []Item, []string, error) {
	run, err := runfolder.Load(j.Run)
	if err != nil {
		if run == nil || len(run.Outputs) == 0 {
			return nil, nil, nil, err
		}
		return nil, nil, nil, unreadable(j.Run, err)
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
// (unless ReplayOtherModel), and limits those of a re-executed run to the
// answers verified against the recorded run (see recordedMatch).
func (j *Job) checkReplay(b Backend, run *runfolder.Run, note func(string, ...any)) error {
	rp, ok := b.(*Replay)
	if !ok {
		return nil
	}
	x := run.ReExecution()
	model, recorded := run.Model(), ""
	if x != nil {
		recorded = x.RecordedModel
	}
	if rm := rp.Model(); !SameModel(rm, model) && (recorded == "" || !SameModel(rm, recorded)) {
		if !j.ReplayOtherModel {
			return fmt.Errorf("--judge %s: the recorded decisions are about model %q, but --run %s holds model %q: "+
				"replaying them would score one model's answers with another's verdicts; pass --replay-other-model to do it on purpose", rp.Name(), rm, j.Run, model)
		}
		note("warning: replaying decisions about model %q for run %q (--replay-other-model)", rm, model)
	}
	if x == nil {
		return nil
	}
	dir, from := j.RecordedRun, "--recorded-run"
	if dir == "" {
		dir, from = x.RecordedRun, "its "+runfolder.ManifestFile
	}
	gradingModel := rp.Model()
	if j.ReplayOtherModel {
		gradingModel = "" // another model's decisions were asked for
	}
	m, why := recordedMatch(dir, from, run, gradingModel)
	if m == nil {
		rp.ReExecuted(nil, nil, x.Engine, "")
		note("note: %s re-executed %s's SQL on %s (%s); %s, so no recorded results decision is replayed: "+
			"results leaves code cannot decide are invalid. Pass --recorded-run DIR (the run whose SQL was re-executed) "+
			"to replay the recorded results decisions onto the answers whose result is that run's, byte for byte, or judge the run with --judge-config",
			j.Run, orUnknown(x.RecordedModel), x.Engine, x.Evidence, why)
		return nil
	}
	rp.ReExecuted(m.sameSQL, m.sameResult, x.Engine, m.identity)
	note("note: %s re-executed %s's SQL on %s (%s); checked against the recorded run %s: recorded SQL decisions are replayed for the %d of %d answers whose final SQL is the recorded one, "+
		"recorded results decisions for the %d whose result is the recorded one byte for byte; results leaves code cannot decide on the others are invalid (judge them with --judge-config)",
		j.Run, orUnknown(x.RecordedModel), x.Engine, x.Evidence, m.dir, len(m.sameSQL), len(run.Outputs), len(m.sameResult))
	if m.falseClaims > 0 {
		note("warning: %d answers of %s claim a recorded result digest (clinsql.recorded_result_sha256) that is not the recorded run's: the claims were ignored", m.falseClaims, j.Run)
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "an unrecorded model"
	}
	return s
}

// match is a re-executed run checked against its recorded run: the tasks
// whose final SQL, and those whose result bytes, are the recorded ones.
type match struct {
	dir                 string
	identity            string
	sameSQL, sameResult map[datasets.Key]bool
	// falseClaims counts answers whose recorded result digest (as the
	// re-executed run states it) is not the recorded run's.
	falseClaims int
}

// recordedMatch reads the recorded run in dir (from names where dir came
// from) and compares each answer of run with its recorded answer, reading
// both result files: a digest the re-executed run states about the
// recorded result is never taken alone (it is data from the same folder,
// and one equal to the answer's own result would turn replay on). nil,
// why when the recorded run cannot vouch: not given, not reachable,
// inside the run judged (a folder cannot vouch for itself), or about
// another model than the recorded decisions.
func recordedMatch(dir, from string, run *runfolder.Run, gradingModel string) (*match, string) {
	if dir == "" {
		return nil, fmt.Sprintf("it does not say where the run it re-executed is (%s, or a manifest written before clinsql recorded it)", ifNoManifest(run))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Sprintf("the recorded run %s (from %s) cannot be located: %v", dir, from, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Sprintf("the recorded run %s (from %s) is not reachable", dir, from)
	}
	if overlaps(abs, run.Root) {
		return nil, fmt.Sprintf("the recorded run %s (from %s) is the judged run's folder or overlaps it: a run cannot vouch for its own results", dir, from)
	}
	rec, err := runfolder.Load(abs)
	if rec == nil {
		return nil, fmt.Sprintf("the recorded run %s (from %s) cannot be read: %v", dir, from, err)
	}
	if rm := rec.Model(); gradingModel != "" && !SameModel(rm, gradingModel) {
		return nil, fmt.Sprintf("the recorded run %s (from %s) holds model %q, but the recorded decisions are about %q", dir, from, rm, gradingModel)
	}
	recID, _ := rec.Identity()
	m := &match{dir: abs, identity: fmt.Sprintf("%s answers sha256 %s", recID.Model, recID.Answers),
		sameSQL: map[datasets.Key]bool{}, sameResult: map[datasets.Key]bool{}}
	byKey := make(map[datasets.Key]*runfolder.Output, len(rec.Outputs))
	for _, o := range rec.Outputs {
		byKey[o.Key] = o
	}
	for _, o := range run.Outputs {
		r := byKey[o.Key]
		if r == nil {
			continue
		}
		if !r.SQLAbsent && r.Summary.FinalSQL == o.Summary.FinalSQL {
			m.sameSQL[o.Key] = true
		}
		want, werr := r.ResultSHA256()
		got, gerr := o.ResultSHA256()
		if werr == nil && gerr == nil && want != "" && got == want {
			m.sameResult[o.Key] = true
		}
		if o.RecordedResultSHA256 != "" && werr == nil && o.RecordedResultSHA256 != want {
			m.falseClaims++
		}
	}
	return m, ""
}

func ifNoManifest(run *runfolder.Run) string {
	if run.Manifest == nil {
		return "it has no " + runfolder.ManifestFile
	}
	return "its " + runfolder.ManifestFile + " names no recorded_run"
}

// overlaps reports whether one folder lies in the other (or they are the
// same), links resolved.
func overlaps(a, b string) bool {
	resolve := func(p string) string {
		p, _ = filepath.Abs(p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	a, b = resolve(a), resolve(b)
	inside := func(x, y string) bool {
		rel, err := filepath.Rel(y, x)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	return inside(a, b) || inside(b, a)
}

// OpenLedger opens (or resumes) the ledger that judging with opts writes,
// bound to b and authenticated with key: clinsql judge's and the audit's
// ledgers have one header.
func OpenLedger(path string, opts Options, b Binding, key localkey.Key) (*judgefmt.Ledger, error) {
	name := ""
	if opts.Backend != nil {
		name = opts.Backend.Name()
	}
	return judgefmt.OpenLedger(path, judgefmt.LedgerHeader{Mode: opts.Mode, Judge: name, ReferenceGuided: opts.ReferenceGuided,
		CodeChecks: opts.CodeChecks, Skipping: opts.Skipping, Samples: samplesOf(opts.Backend), Group: string(opts.Group), GroupGated: opts.GroupGated,
		Run: b.Run, TasksSHA256: b.TasksSHA256, Backend: b.Backend, Partial: len(b.Missing) > 0}, key)
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
