package refine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// ReplayOptions configure [Replay].
type ReplayOptions struct {
	// Recorded is a model's run folder in the reference inference layout
	// (the released runs, or one clinsql wrote on another engine).
	Recorded string
	// Out is the new run folder.
	Out   string
	Tasks []*datasets.Task
	// Executor runs every query; its Name goes into the run settings.
	Executor executor.Executor
	// Model names the run in its summaries; default: the name the recorded
	// summaries carry.
	Model string
	// Concurrency bounds the queries in flight (default 4).
	Concurrency int
	RunID       string
	// Events, if set, is called once per task, one call at a time.
	Events func(Event)
	// Selection: Tasks are part of their splits on purpose (see
	// Options.Selection).
	Selection *datasets.Selection
	// Database: see Options.Database.
	Database string
}

// Replay runs a recorded run's final SQL again on another engine and writes
// the outcome as a run folder, in the same layout and with the same writer
// as [Generate]: one attempt per task (the recorded query; no model is
// called), the result CSV when it ran, execution_summary.json, and
// benchmark_summary.json. It is how released BigQuery runs are re-executed
// on the embedded engine, to be judged and reported offline. The recorded
// outcome of each task is kept beside the new one, under
// clinsql.recorded in its execution_summary.json.
//
// Tasks already replayed in Out are not run again; a task the recorded run
// lacks gets no answer and is listed in the result's Pending. An engine
// failure that is not the query's fault (after retries) also leaves the
// task pending; only failures to read or write files, or ctx ending, stop
// the replay.
func Replay(ctx context.Context, o ReplayOptions) (*ModelResult, error) {
	if o.Executor == nil {
		return nil, errors.New("replay: no executor")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.RunID == "" {
		o.RunID = fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid())
	}
	outs, err := runfolder.LoadOutputs(o.Recorded)
	if err != nil {
		return nil, fmt.Errorf("replay: recorded run: %w", err)
	}
	recorded := make(map[datasets.Key]*runfolder.Output, len(outs))
	names := map[string]int{}
	for _, out := range outs {
		recorded[out.Key] = out
		names[out.Summary.Model]++
	}
	recordedModel := majority(names, "recorded")
	if o.Model == "" {
		o.Model = recordedModel
	}
	set := refinefmt.Settings{Model: o.Model, Kind: refinefmt.RequestRecorded, Engine: o.Executor.Name(), EngineSemantics: engineSemantics(o.Executor)}
	if err := checkSettings(o.Out, set); err != nil {
		return nil, err
	}
	recordedRun, err := filepath.Abs(o.Recorded)
	if err != nil {
		return nil, err
	}
	h, err := openRun(o.Out, "exec --run", o.Model, recordedFrom{Model: recordedModel, Run: recordedRun}, o.Tasks, set, engineRecord(o.Executor, set, o.Database), o.Selection, o.RunID)
	if err != nil {
		return nil, err
	}
	defer h.lock.Release()
	if err := refinefmt.WriteSettings(o.Out, set); err != nil {
		return nil, err
	}

	mr := &ModelResult{Model: o.Model, Dir: o.Out}
	s := &Solver{Exec: o.Executor}
	var mu sync.Mutex
	emit := func(ev Event) {
		if o.Events == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		o.Events(ev)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Concurrency)
	var keys []datasets.Key
	for _, t := range o.Tasks {
		keys = append(keys, t.Key)
		rec := recorded[t.Key]
		if rec == nil {
			mu.Lock()
			mr.Pending = append(mr.Pending, t.Key.String()+": not in the recorded run")
			mu.Unlock()
			continue
		}
		if sum, done, err := refinefmt.ReadSummary(o.Out, t.Key); err != nil {
			return nil, err
		} else if done && sum.Clinsql != nil && refinefmt.Finished(sum.Clinsql.Status) {
			mu.Lock()
			mr.Resumed++
			mu.Unlock()
			emit(Event{Model: o.Model, Key: t.Key, Status: sum.Clinsql.Status, Resumed: true, Attempts: 1})
			continue
		}
		g.Go(func() error {
			r := replayTask(gctx, s, t, rec)
			ev := Event{Model: o.Model, Key: t.Key, Status: r.Status, Attempts: len(r.Attempts), Detail: r.Stopped}
			if !refinefmt.Finished(r.Status) {
				mu.Lock()
				mr.Pending = append(mr.Pending, t.Key.String()+": "+r.Stopped)
				mu.Unlock()
				emit(ev)
				return nil
			}
			sum := Summary(r, t, set, o.RunID)
			recSum := rec.Summary
			sum.Clinsql.Recorded = &recSum
			// An unreadable recorded result (oversized, a link) is no
			// result here: nothing recorded about it will be replayed.
			sum.Clinsql.RecordedResultSHA256, _ = rec.ResultSHA256()
			if err := WriteTask(o.Out, t, r, sum); err != nil {
				return fmt.Errorf("task %s: %w", t.Key, err)
			}
			mu.Lock()
			mr.Done++
			mu.Unlock()
			emit(ev)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return mr, err
	}
	if err := ctx.Err(); err != nil {
		return mr, err
	}
	sort.Strings(mr.Pending)
	// The reference shape has attempts 1 to 3; a replay only ever uses the
	// first.
	b, err := WriteBenchmarkSummary(o.Out, o.Model, 3, keys)
	if err != nil {
		return mr, err
	}
	mr.Summary = b
	if err := h.finish(b.Pending, true); err != nil {
		return mr, err
	}
	return mr, nil
}

// replayTask runs one recorded final query as a single attempt.
func replayTask(ctx context.Context, s *Solver, t *datasets.Task, out *runfolder.Output) *Record {
	rec := &Record{Key: t.Key, Question: t.Question, Final: -1, Started: time.Now()}
	defer func() { rec.Duration = time.Since(rec.Started) }()
	a := refinefmt.Attempt{Attempt: 1, Request: refinefmt.RequestRecorded, SQL: out.Summary.FinalSQL}
	if a.SQL == "" {
		a.Status, a.Error = refinefmt.AttemptNoSQL, "the recorded run has no query for this task"
		rec.Attempts = []refinefmt.Attempt{a}
		rec.Final, rec.Status = 0, refinefmt.StatusNoSQL
		return rec
	}
	var res *executor.Result
	if !s.tooLarge(&a) {
		var err error
		if res, err = s.runAttempt(ctx, &a); err != nil {
			return rec.engineFailed(ctx, a)
		}
	}
	rec.Attempts, rec.Final = []refinefmt.Attempt{a}, 0
	rec.SuccessAttempt = firstSuccess(rec.Attempts)
	switch a.Status {
	case refinefmt.AttemptOK:
		rec.Status, rec.Result = refinefmt.StatusOK, res
	case refinefmt.AttemptEmpty:
		rec.Status, rec.Result = refinefmt.StatusEmpty, res
	case refinefmt.AttemptUnsupported:
		rec.Status = refinefmt.StatusUnsupported
		rec.Stopped = "the engine cannot run this query faithfully: " + a.Error
	default:
		rec.Status = refinefmt.StatusFailed
	}
	return rec
}
