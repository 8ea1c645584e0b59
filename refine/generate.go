package refine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine/refinefmt"
)

// DefaultConcurrency bounds the tasks in flight over all models.
const DefaultConcurrency = 8

// Options configure [Generate].
type Options struct {
	// Out is the output folder; model m's run folder is Out/<m.Name>.
	Out    string
	Tasks  []*datasets.Task
	Models []Model
	// Executor runs every query. Its Name is part of the run settings.
	Executor executor.Executor
	// Schema is shown to the models (default mimic.V31).
	Schema *mimic.Schema
	// LLM carries the cache, meter, logger and key lookup shared by every
	// model's client.
	LLM llm.Options
	// Concurrency bounds the tasks in flight over all models (default 8);
	// each model also keeps at most Model.TasksOrDefault() in flight.
	Concurrency int
	// ExecRetries and ExecRetryDelay: see [Solver].
	ExecRetries    int
	ExecRetryDelay time.Duration
	// RunID labels the tasks this call finishes (default: a UTC timestamp
	// and the process id).
	RunID string
	// Events, if set, is called once per task, from one goroutine at a time.
	Events func(Event)
	// Selection records in each run's manifest that Tasks are part of
	// their splits on purpose, and how they were chosen (--limit,
	// filters); nil when Tasks are whole splits.
	Selection *datasets.Selection
	// Database fingerprints the embedded database the answers ran on
	// (runfolder.DatabaseFingerprint), for the manifest; "" for BigQuery.
	Database string
	// NewClient replaces llm.New (tests).
	NewClient func(llm.Endpoint, llm.Options) (Completer, error)
}

// Event reports one task of one model.
type Event struct {
	Model  string
	Key    datasets.Key
	Status string
	// Resumed: the task was already finished in the run folder.
	Resumed  bool
	Attempts int
	Usage    llm.Usage
	CostUSD  float64
	Detail   string // why a task is pending
}

// ModelResult is one model's part of a [Generate] call.
type ModelResult struct {
	Model string
	Dir   string
	// Done counts tasks finished by this call, Resumed those found finished.
	Done, Resumed int
	// Pending lists tasks left to do (endpoint or engine failures, a stop).
	Pending []string
	// Stopped says why the model's remaining tasks were not started (an
	// authentication, quota, budget or request error that every further
	// call would repeat).
	Stopped string
	Summary *Tally
	Usage   llm.Usage
	CostUSD float64
}

// Result is what [Generate] did, model by model.
type Result struct {
	Models []*ModelResult
}

// Pending counts the tasks left to do over all models.
func (r *Result) Pending() int {
	n := 0
	for _, m := range r.Models {
		n += len(m.Pending)
	}
	return n
}

// PendingError says what to do about the pending tasks (nil: none): run
// again, or, when a model was stopped (a wrong model id, a refused key),
// fix what stopped it first, since running again unchanged fails the same
// way.
func (r *Result) PendingError() error {
	n := r.Pending()
	if n == 0 {
		return nil
	}
	var stopped []string
	for _, m := range r.Models {
		if m.Stopped != "" {
			stopped = append(stopped, m.Model)
		}
	}
	if len(stopped) == 0 {
		return fmt.Errorf("%d tasks pending; run the same command again to resume", n)
	}
	return fmt.Errorf("%d tasks pending: %s stopped (why is printed above); fix that, then run the same command again (finished tasks are kept)", n, strings.Join(stopped, ", "))
}

// Generate answers every task with every model, in the reference inference
// layout under Out/<model>/, and writes each model's benchmark_summary.json.
// Tasks already finished in a run folder are not redone; a folder written
// with other settings (model id, sampling, prompt, rounds, engine, ...) is
// refused. A task whose model endpoint or engine failed is left pending and
// reported; only failures to write outputs, or ctx ending, stop the run.
func Generate(ctx context.Context, opts Options) (*Result, error) {
	if len(opts.Models) == 0 {
		return nil, errors.New("generate: no models")
	}
	if opts.Executor == nil {
		return nil, errors.New("generate: no executor")
	}
	if opts.Schema == nil {
		opts.Schema = mimic.V31
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.RunID == "" {
		opts.RunID = fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid())
	}
	newClient := opts.NewClient
	if newClient == nil {
		newClient = func(ep llm.Endpoint, o llm.Options) (Completer, error) { return llm.New(ep, o) }
	}
	schemaSum := sha256.Sum256([]byte(SchemaText(opts.Schema)))

	// Everything that can be checked is checked before any call is made.
	type plan struct {
		model    Model
		dir      string
		settings refinefmt.Settings
		client   Completer
	}
	var plans []*plan
	var errs []error
	for _, m := range opts.Models {
		if err := m.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("model %q: %w", m.Name, err))
			continue
		}
		p := &plan{model: m, dir: filepath.Join(opts.Out, m.Name)}
		p.settings = settingsOf(m, opts.Executor.Name(), hex.EncodeToString(schemaSum[:]))
		p.settings.EngineSemantics = engineSemantics(opts.Executor)
		if err := checkSettings(p.dir, p.settings); err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := newClient(m.Endpoint, BatchIn(opts.LLM, m.Endpoint, p.dir))
		if err != nil {
			errs = append(errs, fmt.Errorf("model %q: %w", m.Name, err))
			continue
		}
		p.client = c
		plans = append(plans, p)
	}
	// The clients give back their endpoints' shares of the process-wide
	// load limits when the run ends (see llm.Client.Close).
	defer func() {
		for _, p := range plans {
			if c, ok := p.client.(interface{ Close() }); ok {
				c.Close()
			}
		}
	}()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	var evMu sync.Mutex
	emit := func(e Event) {
		if opts.Events != nil {
			evMu.Lock()
			defer evMu.Unlock()
			opts.Events(e)
		}
	}
	// Each model's folder is locked and its manifest opened before any
	// call: a second generate on the same folder is refused here.
	handles := make([]*runHandle, len(plans))
	defer func() {
		for _, h := range handles {
			if h != nil {
				h.lock.Release()
			}
		}
	}()
	for i, p := range plans {
		h, err := openRun(p.dir, "generate", p.model.Name, recordedFrom{}, opts.Tasks, p.settings, engineRecord(opts.Executor, p.settings, opts.Database), opts.Selection, opts.RunID)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", p.model.Name, err)
		}
		handles[i] = h
	}

	global := semaphore.NewWeighted(int64(opts.Concurrency))
	res := &Result{}
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range plans {
		mr := &ModelResult{Model: p.model.Name, Dir: p.dir}
		res.Models = append(res.Models, mr)
		if err := os.MkdirAll(p.dir, 0o755); err != nil {
			return nil, err
		}
		if err := refinefmt.WriteSettings(p.dir, p.settings); err != nil {
			return nil, err
		}
		solver := &Solver{
			Model: p.model, LLM: p.client, Exec: opts.Executor,
			Prompter:    NewPrompter(p.model.PromptOrDefault(), opts.Schema),
			ExecRetries: opts.ExecRetries, ExecRetryDelay: opts.ExecRetryDelay,
		}
		g.Go(func() error {
			return runModel(gctx, p.dir, p.settings, solver, opts, mr, global, emit)
		})
	}
	err := g.Wait()
	if ctx.Err() != nil {
		err = errors.Join(err, fmt.Errorf("generate: interrupted: %w", context.Cause(ctx)))
	}
	// Summaries are written whatever happened, from what is on disk.
	keys := make([]datasets.Key, len(opts.Tasks))
	for i, t := range opts.Tasks {
		keys[i] = t.Key
	}
	for i, p := range plans {
		bs, serr := WriteBenchmarkSummary(p.dir, p.model.Name, p.model.RoundsOrDefault()+1, keys)
		if serr != nil {
			err = errors.Join(err, fmt.Errorf("model %q: benchmark summary: %w", p.model.Name, serr))
			continue
		}
		res.Models[i].Summary = bs
		res.Models[i].Pending = bs.Pending
		if merr := handles[i].finish(bs.Pending, err == nil && res.Models[i].Stopped == ""); merr != nil {
			err = errors.Join(err, fmt.Errorf("model %q: manifest: %w", p.model.Name, merr))
		}
		handles[i] = nil
	}
	return res, err
}

// runModel answers the tasks of one model, at most Model.TasksOrDefault()
// at a time and within the global bound.
func runModel(ctx context.Context, dir string, set refinefmt.Settings, s *Solver, opts Options, mr *ModelResult, global *semaphore.Weighted, emit func(Event)) error {
	// A model is stopped by closing stopped: tasks not yet started are left
	// pending, calls in flight finish (they would only fail the same way).
	stopped := make(chan struct{})
	var stopOnce sync.Once
	isStopped := func() bool {
		select {
		case <-stopped:
			return true
		default:
			return false
		}
	}
	// down counts the tasks in a row whose calls failed on the endpoint's
	// side: an endpoint that is down stops the model, its tasks left
	// pending, rather than failing them one by one, each after its retries.
	var down atomic.Int64
	var mu sync.Mutex
	g, tctx := errgroup.WithContext(ctx)
	g.SetLimit(s.Model.TasksOrDefault())
	batched := s.Model.Endpoint.Batched()
	// In batch mode the client is told how many tasks are under way, so
	// that it sends a round's requests as soon as every task waits on
	// one, however long the engine takes with the others.
	expect := func(int) {}
	if e, ok := s.LLM.(interface{ Expect(int) }); ok && batched {
		expect = e.Expect
	}
	// The loop counts as a unit until every task is launched: a batch of
	// the first tasks alone must not go out while the rest start.
	expect(1)
	var launched sync.Once
	launchedAll := func() { launched.Do(func() { expect(-1) }) }
	defer launchedAll()
	if batched {
		// Every task at once: each batch holds every request that is
		// ready (the first attempts, then each round's fixes); the global
		// bound applies to the engine's queries instead.
		g.SetLimit(-1)
		solver := *s
		solver.ExecGate = global
		s = &solver
	}
	for _, t := range opts.Tasks {
		if tctx.Err() != nil || isStopped() {
			break
		}
		sum, done, err := refinefmt.ReadSummary(dir, t.Key)
		if err != nil {
			return err
		}
		if done && (sum.Clinsql == nil || refinefmt.Finished(sum.Clinsql.Status)) {
			mu.Lock()
			mr.Resumed++
			mu.Unlock()
			emit(Event{Model: s.Model.Name, Key: t.Key, Status: statusOf(sum), Resumed: true, Attempts: len(sum.RefinementAttempts)})
			continue
		}
		expect(1)
		g.Go(func() error {
			defer expect(-1)
			if isStopped() {
				return nil // the task stays pending
			}
			if !batched {
				if err := global.Acquire(tctx, 1); err != nil {
					return nil // interrupted: the task stays pending
				}
				defer global.Release(1)
			}
			if isStopped() {
				return nil
			}
			rec := s.Solve(tctx, t)
			if !endpointFailed(rec) {
				down.Store(0)
			}
			u, usd, _ := rec.Usage()
			ev := Event{Model: s.Model.Name, Key: t.Key, Status: rec.Status, Attempts: len(rec.Attempts), Usage: u, CostUSD: usd}
			if !refinefmt.Finished(rec.Status) {
				ev.Detail = rec.Stopped
				reason := fatalFor(rec)
				if reason == "" && endpointFailed(rec) {
					if n := down.Add(1); n >= llm.MaxDownInARow {
						reason = fmt.Sprintf("stopped: the endpoint failed %d tasks in a row, each after its retries (last: %s); the tasks stay pending: run again once it is back", n, rec.Stopped)
					}
				}
				if reason != "" {
					stopOnce.Do(func() { close(stopped) })
					mu.Lock()
					if mr.Stopped == "" {
						mr.Stopped = reason
					}
					mu.Unlock()
				}
				emit(ev)
				return nil
			}
			if err := WriteTask(dir, t, rec, Summary(rec, t, set, opts.RunID)); err != nil {
				return fmt.Errorf("model %q, task %s: %w", s.Model.Name, t.Key, err)
			}
			mu.Lock()
			mr.Done++
			mr.Usage = mr.Usage.Add(u)
			mr.CostUSD += usd
			mu.Unlock()
			emit(ev)
			return nil
		})
	}
	launchedAll()
	return g.Wait()
}

// fatalFor returns why no further task of the model should be started when
// rec's failure would repeat on every call (wrong key, exhausted quota or
// budget, a request the endpoint refuses, the batch wait ran out), or "".
func fatalFor(rec *Record) string {
	if rec.Status != refinefmt.StatusLLMError {
		return ""
	}
	switch rec.LLMError {
	case llm.KindAuth, llm.KindQuota, llm.KindBudget, llm.KindBadRequest, llm.KindBatchPending:
		return fmt.Sprintf("stopped after %s: %s", rec.LLMError, rec.Stopped)
	}
	return ""
}

// endpointFailed reports whether rec failed because the endpoint did (down,
// 5xx, timeouts, rate limits outlasting the retries, replies garbled on the
// wire), as the judge counts its calls.
func endpointFailed(rec *Record) bool {
	return rec.Status == refinefmt.StatusLLMError && rec.EndpointDown
}

func statusOf(s *refinefmt.TaskSummary) string {
	if s.Clinsql != nil {
		return s.Clinsql.Status
	}
	if s.ExecutionSuccess {
		return refinefmt.StatusOK
	}
	return refinefmt.StatusFailed
}

func settingsOf(m Model, engine, schemaSum string) refinefmt.Settings {
	ep := m.Endpoint.WithDefaults()
	host := ""
	if u, err := url.Parse(ep.BaseURL); err == nil {
		host = strings.ToLower(u.Host) + strings.TrimRight(u.Path, "/")
	}
	return refinefmt.Settings{
		Model: m.Name, ModelID: ep.Model, Kind: string(ep.Kind), Host: host, Deployment: ep.Deployment,
		Sampling: ep.Sampling, Prompt: m.PromptOrDefault(), PromptVersion: PromptVersion, SchemaSHA256: schemaSum,
		Rounds: m.RoundsOrDefault(), RefineOnEmpty: m.RefineOnEmpty, History: m.History, Engine: engine,
	}
}

// compared are the settings a resumed run must share with the folder's:
// everything that shapes an answer. The host may change (a local server on
// another port) and is only recorded.
func compared(s refinefmt.Settings) map[string]string {
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return map[string]string{
		"model_id": s.ModelID, "kind": s.Kind, "deployment": s.Deployment, "sampling": enc(s.Sampling),
		"prompt": string(s.Prompt), "prompt_version": s.PromptVersion, "schema_sha256": s.SchemaSHA256,
		"rounds": enc(s.Rounds), "refine_on_empty": enc(s.RefineOnEmpty), "history": enc(s.History), "engine": s.Engine,
		"engine_semantics": s.EngineSemantics,
	}
}

// checkSettings refuses to resume a run folder written with other settings.
func checkSettings(dir string, want refinefmt.Settings) error {
	have, ok, err := refinefmt.ReadSettings(dir)
	if err != nil || !ok {
		return err
	}
	h, w := compared(have), compared(want)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if h[k] != w[k] {
			diffs = append(diffs, fmt.Sprintf("%s %s (folder) vs %s (now)", k, h[k], w[k]))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s: the run folder of model %q was generated with other settings: %s; "+
			"use another output folder, or remove this one to start over",
			filepath.Join(dir, refinefmt.SettingsFile), want.Model, strings.Join(diffs, "; "))
	}
	return nil
}

// BatchIn returns o for a client of ep whose output folder is dir: for an
// endpoint in batch mode, its batches are recorded in dir (see
// llm.BatchOptions), with o.Batch's wait and progress.
func BatchIn(o llm.Options, ep llm.Endpoint, dir string) llm.Options {
	if !ep.Batched() {
		return o
	}
	var b llm.BatchOptions
	if o.Batch != nil {
		b = *o.Batch
	}
	b.Dir = dir
	o.Batch = &b
	return o
}
