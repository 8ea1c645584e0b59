package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/atomicfile"
)

// Item is one query to run.
type Item struct {
	Key string // stable name, e.g. a task key
	SQL string
	// CSV is where the result goes, relative to Options.Out; no file when empty.
	CSV string
}

// Options configure Run.
type Options struct {
	// Out receives the CSVs and summary.json.
	Out string
	// Concurrency bounds the queries in flight (default 1).
	Concurrency int
	// Progress, when set, receives one line per finished item.
	Progress func(Outcome)
	// Subset, when the items are a subset of a task set, says which (the
	// command's filters); it is recorded in summary.json.
	Subset string
}

// Outcome is what one item's query did.
type Outcome struct {
	Task      string         `json:"task"`
	OK        bool           `json:"ok"`
	Class     executor.Class `json:"class,omitempty"`
	Error     string         `json:"error,omitempty"`
	Columns   int            `json:"columns,omitempty"`
	Rows      int            `json:"rows"`
	TotalRows int64          `json:"total_rows"`
	Truncated bool           `json:"truncated,omitempty"`
	// ByteCapped: the result byte cap, not the row cap, cut the rows kept.
	ByteCapped bool    `json:"byte_capped,omitempty"`
	DurationMS float64 `json:"duration_ms"`
	CSV        string  `json:"csv,omitempty"`
	// Warnings are the result's (executor.Result.Warnings).
	Warnings []string `json:"warnings,omitempty"`
}

// Failure is one failed item in the summary.
type Failure struct {
	Task  string         `json:"task"`
	Class executor.Class `json:"class"`
	Error string         `json:"error"`
}

// Summary is summary.json.
type Summary struct {
	Engine      string                 `json:"engine"`
	Subset      string                 `json:"subset,omitempty"`
	Total       int                    `json:"total"`
	Succeeded   int                    `json:"succeeded"`
	Failed      int                    `json:"failed"`
	Interrupted bool                   `json:"interrupted,omitempty"`
	ByClass     map[executor.Class]int `json:"by_class,omitempty"`
	Failures    []Failure              `json:"failures"`
	// Warned counts the successful items whose result carries a warning
	// (see Outcome.Warnings): they ran, but not exactly as the dialect's
	// own engine would have.
	Warned int `json:"warned,omitempty"`
	// LoadErrors are items that could not be run at all (for example a task
	// folder that did not load); they are not counted in Total.
	LoadErrors []string  `json:"load_errors,omitempty"`
	Outcomes   []Outcome `json:"outcomes"`
	DurationMS float64   `json:"duration_ms"`
	// Latency over the successful queries, in milliseconds.
	LatencyMS *Latency `json:"latency_ms,omitempty"`
}

// Latency summarises per-query durations.
type Latency struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
}

// SummaryFile is the summary's name inside Options.Out.
const SummaryFile = "summary.json"

// Run executes every item (in order of Key in the outputs, whatever the
// order of completion), writes each successful result as CSV, and writes
// summary.json at the end, also when ctx is cancelled part way (items not run
// are then failures of class infra_error and the summary is marked
// interrupted). Per-item failures are data; Run's error reports only a failure
// to write outputs.
func Run(ctx context.Context, ex executor.Executor, items []Item, loadErrors []string, opts Options) (*Summary, error) {
	start := time.Now()
	if opts.Concurrency <= 0 {
		opts.Concurrency = 1
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, fmt.Errorf("batch: %w", err)
	}
	outcomes := make([]Outcome, len(items))
	var writeErr error
	var mu sync.Mutex
	g := new(errgroup.Group)
	g.SetLimit(opts.Concurrency)
	for i, it := range items {
		g.Go(func() error {
			o := runOne(ctx, ex, it, opts.Out)
			mu.Lock()
			defer mu.Unlock()
			if o.writeErr != nil && writeErr == nil {
				writeErr = o.writeErr
			}
			outcomes[i] = o.Outcome
			if opts.Progress != nil {
				opts.Progress(o.Outcome)
			}
			return nil
		})
	}
	g.Wait()

	s := &Summary{Engine: ex.Name(), Subset: opts.Subset, Total: len(items), ByClass: map[executor.Class]int{},
		Failures: []Failure{}, LoadErrors: loadErrors, Outcomes: outcomes, Interrupted: ctx.Err() != nil}
	var durations []float64
	for _, o := range outcomes {
		if o.OK {
			s.Succeeded++
			if len(o.Warnings) > 0 {
				s.Warned++
			}
			durations = append(durations, o.DurationMS)
			continue
		}
		s.ByClass[o.Class]++
		s.Failures = append(s.Failures, Failure{Task: o.Task, Class: o.Class, Error: o.Error})
	}
	s.Failed = s.Total - s.Succeeded
	sort.Slice(s.Outcomes, func(i, j int) bool { return s.Outcomes[i].Task < s.Outcomes[j].Task })
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Task < s.Failures[j].Task })
	s.LatencyMS = latency(durations)
	s.DurationMS = ms(time.Since(start))
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return s, fmt.Errorf("batch: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(opts.Out, SummaryFile), append(b, '\n')); err != nil {
		return s, fmt.Errorf("batch: %w", err)
	}
	if writeErr != nil {
		return s, fmt.Errorf("batch: %w", writeErr)
	}
	return s, nil
}

type result struct {
	Outcome
	writeErr error
}

func runOne(ctx context.Context, ex executor.Executor, it Item, out string) result {
	o := Outcome{Task: it.Key}
	var csvPath string
	if it.CSV != "" {
		csvPath = filepath.Join(out, filepath.FromSlash(it.CSV))
		// A stale result of an earlier run must not pass for this one's.
		os.Remove(csvPath)
	}
	if err := ctx.Err(); err != nil {
		o.Class, o.Error = executor.ClassInfra, "not run: "+err.Error()
		return result{Outcome: o}
	}
	start := time.Now()
	res, err := ex.Query(ctx, it.SQL)
	o.DurationMS = ms(time.Since(start))
	if err != nil {
		o.Class = executor.ClassOf(err)
		var xe *executor.Error
		if errors.As(err, &xe) {
			o.Error = xe.Message
		} else {
			o.Error = err.Error()
		}
		return result{Outcome: o}
	}
	o.OK = true
	o.Columns, o.Rows, o.TotalRows, o.Truncated, o.ByteCapped = len(res.Columns), len(res.Rows), res.TotalRows, res.Truncated, res.ByteCapped
	o.Warnings = res.Warnings
	if res.Stats.Duration > 0 {
		o.DurationMS = ms(res.Stats.Duration)
	}
	if csvPath == "" {
		return result{Outcome: o}
	}
	var buf bytes.Buffer
	if err := executor.WriteCSV(&buf, res); err != nil {
		o.OK, o.Class, o.Error = false, executor.ClassUnsupported, "result not writable as CSV: "+err.Error()
		return result{Outcome: o}
	}
	if err := os.MkdirAll(filepath.Dir(csvPath), 0o755); err != nil {
		return result{Outcome: o, writeErr: err}
	}
	if err := atomicfile.Write(csvPath, buf.Bytes()); err != nil {
		return result{Outcome: o, writeErr: err}
	}
	o.CSV = it.CSV
	return result{Outcome: o}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func latency(ds []float64) *Latency {
	if len(ds) == 0 {
		return nil
	}
	s := append([]float64(nil), ds...)
	sort.Float64s(s)
	var sum float64
	for _, d := range s {
		sum += d
	}
	at := func(q float64) float64 { return s[int(q*float64(len(s)-1)+0.5)] }
	return &Latency{Mean: sum / float64(len(s)), Median: at(0.5), P95: at(0.95), Max: s[len(s)-1]}
}
