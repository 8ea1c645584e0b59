package ehrsqlbench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/reliability"
)

// Sample is one answer to a question: the refinement loop's attempts and
// what its final SQL gives on the database.
type Sample struct {
	Index  int    `json:"index"`
	Status string `json:"status"` // refine's task status (ok, empty, failed, no_sql, abstained)
	// SQL is the final query as the model wrote it ("null" when it
	// abstained, "" when it wrote none); the official post-processing is
	// applied only to run it, as the scorer applies it.
	SQL string `json:"sql"`
	// Logprobs summarises the final reply's token log-probabilities, when
	// they were asked for.
	Logprobs *llmfmt.Logprobs `json:"logprobs,omitempty"`
	// Answer is the final SQL's result normalised as the scorer normalises
	// it (abstain, error, or rows).
	Answer   reliability.Answer  `json:"answer"`
	Attempts []refinefmt.Attempt `json:"attempts"`
}

// Record is one question answered by one model.
type Record struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Samples  []Sample `json:"samples"`
}

// Options configure Generate.
type Options struct {
	Layout Layout
	Split  *ehrsql.Split
	// IDs are the items to answer (default: every item of Split).
	IDs    []string
	Models []Model
	// DB is mimic_iv.sqlite (executor/sqlite); queries run on it after the
	// official post-processing.
	DB executor.Executor
	// Schema is shown in every prompt (SchemaText of DB).
	Schema string
	// Retriever gives few-shot examples (nil: none, whatever Model.Shots).
	Retriever *Retriever
	LLM       llm.Options
	// Concurrency bounds the (model, question) pairs in flight (default 8).
	Concurrency int
	// Progress, if set, is called after each item, from one goroutine at a time.
	Progress func(model, id string, resumed bool, rec *Record)
	// NewClient replaces llm.New (tests).
	NewClient func(llm.Endpoint, llm.Options) (refine.Completer, error)
}

// ModelResult is what Generate did for one model.
type ModelResult struct {
	Model   string
	Done    int // items with a record (resumed ones included)
	Resumed int
	Pending int
	Stopped string // why the model was stopped, if it was
	Usage   llm.Usage
	CostUSD float64
}

// postProcessed runs a query after the official post-processing, so that
// what a model's answer gives here is what the scorer will see. At most
// cap(slots) queries run at once: SQLite is CPU-bound, and a few warm
// connections do the work of many cold ones (each connection has its own
// page cache).
type postProcessed struct {
	executor.Executor
	slots chan struct{}
}

func (p postProcessed) Query(ctx context.Context, sql string) (*executor.Result, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, &executor.Error{Class: executor.ClassInfra, Message: ctx.Err().Error(), Err: ctx.Err()}
	}
	defer func() { <-p.slots }()
	return p.Executor.Query(ctx, reliability.PostProcessSQL(sql))
}

// memo runs each distinct query of one question once: the k samples of
// self-consistency mostly write the same SQL, and the database is read
// only. Only successful results are kept (a failure may be the engine's,
// to be tried again), and only for the question at hand, which bounds
// what is held.
type memo struct {
	executor.Executor
	mu   sync.Mutex
	seen map[string]*executor.Result
}

func (m *memo) Query(ctx context.Context, sql string) (*executor.Result, error) {
	m.mu.Lock()
	res, ok := m.seen[sql]
	m.mu.Unlock()
	if ok {
		return res, nil
	}
	res, err := m.Executor.Query(ctx, sql)
	if err == nil {
		m.mu.Lock()
		if m.seen == nil {
			m.seen = map[string]*executor.Result{}
		}
		m.seen[sql] = res
		m.mu.Unlock()
	}
	return res, err
}

// settings are what a model's answers depend on; a run folder written
// under other settings is refused rather than mixed.
type settings struct {
	Model         string          `json:"model"`
	Kind          llm.Kind        `json:"kind"`
	BaseURL       string          `json:"base_url,omitempty"`
	Sampling      llmfmt.Sampling `json:"sampling"`
	Rounds        int             `json:"rounds"`
	Shots         int             `json:"shots"`
	Samples       int             `json:"samples"`
	Temperature   float64         `json:"sample_temperature,omitempty"`
	Null          bool            `json:"null_invited"`
	Logprobs      bool            `json:"logprobs"`
	PromptVersion string          `json:"prompt_version"`
	SchemaSHA256  string          `json:"schema_sha256"`
}

func settingsOf(m Model, schema string) settings {
	sum := sha256.Sum256([]byte(schema))
	s := settings{
		Model: m.Endpoint.Model, Kind: m.Kind, BaseURL: m.BaseURL, Sampling: m.Sampling,
		Rounds: m.RoundsOrDefault(), Shots: m.Shots, Samples: m.Samples(), Null: m.needs(StepModel),
		Logprobs: m.needs(StepLogprob), PromptVersion: PromptVersion, SchemaSHA256: hex.EncodeToString(sum[:]),
	}
	if s.Samples > 1 {
		s.Temperature = m.temperature()
	}
	return s
}

func (l Layout) checkSettings(m Model, schema string) error {
	want := settingsOf(m, schema)
	var got settings
	ok, err := readJSON(l.Settings(m.Name), &got)
	if err != nil {
		return err
	}
	if ok {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			return fmt.Errorf("%s: the run folder was generated with other settings (%s); now %s: use another --out", l.Settings(m.Name), a, b)
		}
		return nil
	}
	return writeJSON(l.Settings(m.Name), want)
}

// Generate answers every question with every model: Samples() answers
// per question, each through refine's loop (generate, run on SQLite after
// the official post-processing, feed SQLite's error back for up to the
// model's rounds). An item is finished when its record is written;
// finished items are kept on a second run, and replies come from the cache.
// Per-item failures are data: an item whose model call or engine failed is
// left pending (ModelResult.Pending), to be done on the next run.
func Generate(ctx context.Context, opt Options) ([]*ModelResult, error) {
	ids := opt.IDs
	if ids == nil {
		ids = opt.Split.Data.IDs()
	}
	questions := map[string]string{}
	for _, q := range opt.Split.Data.Questions {
		questions[q.ID] = q.Question
	}
	for _, id := range ids {
		if err := CheckID(id); err != nil {
			return nil, fmt.Errorf("%s: %w", opt.Split.Dir, err)
		}
		if _, ok := questions[id]; !ok {
			return nil, fmt.Errorf("%s: no question %q", opt.Split.Dir, id)
		}
	}
	newClient := opt.NewClient
	if newClient == nil {
		newClient = func(ep llm.Endpoint, o llm.Options) (refine.Completer, error) { return llm.New(ep, o) }
	}
	conc := opt.Concurrency
	if conc <= 0 {
		conc = 8
	}
	exec := postProcessed{opt.DB, make(chan struct{}, 2*runtime.GOMAXPROCS(0))}
	results := make([]*ModelResult, len(opt.Models))
	var mu sync.Mutex // guards results' counters and Progress
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for _, m := range opt.Models {
		if m.Endpoint.Batched() {
			// A model in batch mode needs every item in flight at once, so
			// that each batch holds every request that is ready; the
			// engine keeps its own bound (exec), the online endpoints
			// theirs.
			g.SetLimit(-1)
		}
	}
	for mi, m := range opt.Models {
		mr := &ModelResult{Model: m.Name}
		results[mi] = mr
		if err := opt.Layout.checkSettings(m, opt.Schema); err != nil {
			return results, err
		}
		client, err := newClient(m.Endpoint, refine.BatchIn(opt.LLM, m.Endpoint, filepath.Join(opt.Layout.Root, m.Name)))
		if err != nil {
			return results, fmt.Errorf("model %q: %w", m.Name, err)
		}
		if c, ok := client.(interface{ Close() }); ok {
			defer c.Close()
		}
		prompts := &Prompter{Schema: opt.Schema, Null: m.needs(StepModel)}
		if m.Shots > 0 && opt.Retriever != nil {
			shots := m.Shots
			prompts.Examples = func(q string) []Example { return opt.Retriever.Nearest(q, shots) }
		}
		logprobs := m.needs(StepLogprob)
		var stopped atomic.Value // string
		// In batch mode the client is told how many items are under way
		// (see llm.Client.Expect); the loop counts as one until every item
		// is launched.
		expect := func(int) {}
		if e, ok := client.(interface{ Expect(int) }); ok && m.Endpoint.Batched() {
			expect = e.Expect
		}
		expect(1)
		for _, id := range ids {
			if gctx.Err() != nil {
				break
			}
			expect(1)
			g.Go(func() error {
				defer expect(-1)
				if s, _ := stopped.Load().(string); s != "" {
					mu.Lock()
					mr.Pending++
					mu.Unlock()
					return nil
				}
				rec, resumed, err := opt.Layout.ReadRecord(m.Name, opt.Split.Name, id)
				if err != nil {
					return err
				}
				if !resumed {
					var fatal string
					rec, fatal = answer(gctx, m, client, exec, prompts, logprobs, opt.Split.Name, id, questions[id])
					if fatal != "" {
						stopped.CompareAndSwap(nil, fatal)
					}
					if rec != nil {
						if err := opt.Layout.WriteRecord(m.Name, opt.Split.Name, rec); err != nil {
							return err
						}
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if rec == nil {
					mr.Pending++
					return nil
				}
				mr.Done++
				if resumed {
					mr.Resumed++
				}
				for _, s := range rec.Samples {
					for _, a := range s.Attempts {
						if !a.LLM.FromCache {
							mr.Usage = mr.Usage.Add(llm.Usage{PromptTokens: a.LLM.PromptTokens, CompletionTokens: a.LLM.CompletionTokens})
						}
						mr.CostUSD += a.LLM.CostUSD
					}
				}
				if opt.Progress != nil {
					opt.Progress(m.Name, id, resumed, rec)
				}
				return nil
			})
		}
		expect(-1)
		defer func() {
			if s, _ := stopped.Load().(string); s != "" {
				mr.Stopped = s
			}
		}()
	}
	if err := g.Wait(); err != nil {
		return results, err
	}
	return results, ctx.Err()
}

// answer asks model m for Samples() answers to one question. It returns
// nil when a sample could not be finished (the item stays pending), with
// the reason to stop the model when every further call would fail alike.
func answer(ctx context.Context, m Model, client refine.Completer, exec executor.Executor, prompts *Prompter,
	logprobs bool, split, id, question string) (*Record, string) {
	task := &datasets.Task{Key: datasets.Key{Split: split, ID: id}, Question: question}
	rec := &Record{ID: id, Question: question}
	k := m.Samples()
	if k > 1 {
		exec = &memo{Executor: exec}
	}
	for i := range k {
		s := &refine.Solver{
			Model: m.Model, LLM: client, Exec: exec, Prompts: prompts, Abstains: Abstains, MaxSQLBytes: maxSQLBytes,
			Tune: func(r *llm.Request) {
				r.Logprobs = logprobs
				if i > 0 {
					// Extra samples for self-consistency: their own cache
					// entries and seeds, at the consistency temperature.
					r.Sample = i
					t := m.temperature()
					r.Sampling.Temperature = &t
				}
			},
		}
		r := s.Solve(ctx, task)
		if !refinefmt.Finished(r.Status) {
			return nil, r.Fatal()
		}
		rec.Samples = append(rec.Samples, sampleOf(i, r))
	}
	return rec, ""
}

// Bounds on the text an item record keeps, encoded (textclip.JSON): a
// record holds up to MaxK samples of up to refine.MaxRounds+1 attempts,
// and stays far below maxRecordBytes (at most about 5 MiB) whatever the
// model wrote. maxSQLBytes bounds the query run: the longest gold query of
// EHRSQL 2024 is 2,030 bytes.
const (
	maxSQLBytes         = 64 << 10
	keptSampleSQLBytes  = 128 << 10
	keptAttemptSQLBytes = 8 << 10
	keptErrorBytes      = 4 << 10
)

func sampleOf(i int, r *refine.Record) Sample {
	s := Sample{Index: i, Status: r.Status, Attempts: refinefmt.KeptAttempts(r.Attempts, keptAttemptSQLBytes, keptErrorBytes)}
	f := r.FinalAttempt()
	switch {
	case f == nil:
		s.Answer = reliability.Answer{Kind: reliability.KindError, Error: "no query in the reply"}
	case f.Status == refinefmt.AttemptAbstained:
		s.SQL, s.Answer = ehrsql.Null, reliability.Answer{Kind: reliability.KindAbstain}
	case r.Result != nil:
		s.SQL, s.Answer = textclip.JSON(f.SQL, keptSampleSQLBytes), reliability.Normalize(r.Result)
	default:
		s.SQL = textclip.JSON(f.SQL, keptSampleSQLBytes)
		msg := textclip.JSON(f.Error, keptErrorBytes)
		if msg == "" {
			msg = "no query in the reply"
		}
		s.Answer = reliability.Answer{Kind: reliability.KindError, Error: msg, Class: f.ErrorClass}
	}
	if f != nil {
		s.Logprobs = f.LLM.Logprobs
	}
	return s
}
