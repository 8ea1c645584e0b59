package bigquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/atomicfile"
)

// DryRunSource is one query to estimate.
type DryRunSource struct {
	Key      string
	SQL      string
	Attempts int // executions the run recorded for this task (model runs), 0 if unknown
}

// DryRunLine is one query's estimate, as printed and as written to
// dry_run.json.
type DryRunLine struct {
	Task             string         `json:"task"`
	OK               bool           `json:"ok"`
	StatementType    string         `json:"statement_type,omitempty"`
	BytesProcessed   int64          `json:"bytes_processed"`
	BytesBilled      int64          `json:"bytes_billed"`
	CostUSD          float64        `json:"cost_usd"`
	OverCap          bool           `json:"over_cap,omitempty"`
	ReferencedTables []string       `json:"referenced_tables,omitempty"`
	Attempts         int            `json:"attempts,omitempty"`
	Class            executor.Class `json:"class,omitempty"`
	Error            string         `json:"error,omitempty"`
}

// DryRunReport is dry_run.json.
type DryRunReport struct {
	Engine      string  `json:"engine"`
	Source      string  `json:"source"` // "gold", "run" or "sql"
	PricePerTiB float64 `json:"price_per_tib"`
	Queries     int     `json:"queries"`
	Estimated   int     `json:"estimated"`
	Failed      int     `json:"failed"`
	OverCap     int     `json:"over_cap"`
	Processed   int64   `json:"bytes_processed"`
	Billed      int64   `json:"bytes_billed"`
	CostUSD     float64 `json:"cost_usd"`
	// RunCostUSD is the cost of one model run: with gold SQL, one query per
	// task; with a model run, each task's final SQL times its recorded
	// executions (earlier attempts assumed to scan as much).
	RunCostUSD float64 `json:"run_cost_usd"`
	// RunCostMaxUSD is the cost with every task using all three
	// self-refinement attempts.
	RunCostMaxUSD float64      `json:"run_cost_max_usd"`
	Lines         []DryRunLine `json:"queries_detail"`

	limit ByteSize // the engine's MaxBytesBilled, for the text
}

// DryRunFile is the file WriteFile writes.
const DryRunFile = "dry_run.json"

// maxAttempts is ClinSQL's self-refinement bound: a task's SQL runs at most
// three times.
const maxAttempts = 3

// DryRunAll estimates what the queries would cost on BigQuery without
// running any (dry runs are free): per-query bytes, the total, and the cost
// of a model run, conc dry runs at once. Source says where the queries come
// from ("gold", "run" or "sql"). Per-query failures are data (a line with
// its class); only an interrupt is an error.
func (e *Engine) DryRunAll(ctx context.Context, source string, items []DryRunSource, conc int) (*DryRunReport, error) {
	cfg := e.Config()
	lines := make([]DryRunLine, len(items))
	var g errgroup.Group
	g.SetLimit(max(conc, 1))
	for i, it := range items {
		g.Go(func() error {
			lines[i] = e.dryRunLine(ctx, it, int64(cfg.MaxBytesBilled))
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Task < lines[j].Task })

	rep := &DryRunReport{Engine: e.Name(), Source: source, PricePerTiB: cfg.PricePerTiB, Queries: len(lines), Lines: lines, limit: cfg.MaxBytesBilled}
	var runBilled, maxBilled int64
	for _, l := range lines {
		if !l.OK {
			rep.Failed++
			continue
		}
		rep.Estimated++
		if l.OverCap {
			rep.OverCap++
			continue // refused before any cost
		}
		rep.Processed += l.BytesProcessed
		rep.Billed += l.BytesBilled
		runBilled += l.BytesBilled * int64(max(l.Attempts, 1))
		maxBilled += l.BytesBilled * maxAttempts
	}
	rep.CostUSD = CostUSD(rep.Billed, cfg.PricePerTiB)
	rep.RunCostUSD = CostUSD(runBilled, cfg.PricePerTiB)
	rep.RunCostMaxUSD = CostUSD(maxBilled, cfg.PricePerTiB)
	return rep, nil
}

// dryRunLine is one query's estimate; limit is the byte cap.
func (e *Engine) dryRunLine(ctx context.Context, it DryRunSource, limit int64) DryRunLine {
	l := DryRunLine{Task: it.Key, Attempts: it.Attempts}
	est, err := e.DryRun(ctx, it.SQL)
	if err != nil {
		l.Class = executor.ClassOf(err)
		var xe *executor.Error
		if errors.As(err, &xe) {
			l.Error = xe.Message
		} else {
			l.Error = err.Error()
		}
		return l
	}
	l.StatementType = est.StatementType
	if est.StatementType != "SELECT" {
		// Query would refuse it before any cost.
		l.Class, l.Error = executor.ClassRefused, fmt.Sprintf("a %s statement: only a single SELECT query runs", est.StatementType)
		return l
	}
	l.OK = true
	l.BytesProcessed, l.BytesBilled, l.CostUSD = est.BytesProcessed, est.BytesBilled, est.CostUSD
	l.ReferencedTables = est.ReferencedTables
	l.OverCap = est.BytesProcessed > limit
	return l
}

// WriteFile writes the report as dir/dry_run.json and returns its path.
func (r *DryRunReport) WriteFile(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, DryRunFile)
	return path, atomicfile.Write(path, append(b, '\n'))
}

// WriteText prints the report as a table: one line per query, the total
// and the cost of a model run.
func (r *DryRunReport) WriteText(w io.Writer) {
	width := len("query")
	for _, l := range r.Lines {
		width = max(width, len(l.Task))
	}
	fmt.Fprintf(w, "%-*s  %10s  %10s  %9s\n", width, "query", "processed", "billed", "USD")
	for _, l := range r.Lines {
		switch {
		case !l.OK:
			line, _, _ := strings.Cut(l.Error, "\n")
			fmt.Fprintf(w, "%-*s  %s: %s\n", width, l.Task, l.Class, line)
		case l.OverCap:
			fmt.Fprintf(w, "%-*s  %10s  over the %s cap: refused before any cost\n", width, l.Task, HumanBytes(l.BytesProcessed), r.limit)
		default:
			fmt.Fprintf(w, "%-*s  %10s  %10s  %9.4f\n", width, l.Task, HumanBytes(l.BytesProcessed), HumanBytes(l.BytesBilled), l.CostUSD)
		}
	}
	fmt.Fprintf(w, "\n%d queries: %d estimated, %d failed the dry run or were refused, %d over the %s cap\n",
		r.Queries, r.Estimated, r.Failed, r.OverCap, r.limit)
	fmt.Fprintf(w, "total: %s processed, %s billed on demand at $%.2f/TiB: $%.2f\n",
		HumanBytes(r.Processed), HumanBytes(r.Billed), r.PricePerTiB, r.CostUSD)
	switch r.Source {
	case "gold":
		fmt.Fprintf(w, "per model run, if its SQL scans like the gold SQL: $%.2f with one query per task, up to $%.2f with all %d self-refinement attempts\n",
			r.RunCostUSD, r.RunCostMaxUSD, maxAttempts)
	case "run":
		fmt.Fprintf(w, "this model run: $%.2f for its recorded executions (earlier attempts assumed to scan like the final SQL), at most $%.2f with %d attempts per task\n",
			r.RunCostUSD, r.RunCostMaxUSD, maxAttempts)
	}
	fmt.Fprintln(w, "(estimates before the free tier and the query cache; dry runs cost nothing)")
}

// HumanBytes formats bytes with a binary unit, three significant digits.
func HumanBytes(b int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f := float64(b)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.3g %s", f, units[i])
}

// Summary is the line that says what a run of queries cost: queries, jobs,
// bytes, the bill at pricePerTiB, retries and cancellations.
func (t Totals) Summary(pricePerTiB float64) string {
	return fmt.Sprintf("bigquery: %d queries, %d jobs (%d from cache), %s processed, %s billed: $%.4f at $%.2f/TiB; %d retries, %d jobs cancelled",
		t.Queries, t.Jobs, t.CacheHits, HumanBytes(t.BytesProcessed), HumanBytes(t.BytesBilled), t.Cost(pricePerTiB), pricePerTiB, t.Retries, t.Cancelled)
}
