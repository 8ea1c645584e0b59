package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/runfolder"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bigquery"
)

func init() { engines[bigquery.Name] = openBigQueryEngine }

// openBigQueryEngine opens the BigQuery engine for exec: the configuration
// from --bq-config and the --bq-* flags; exec's own --timeout and
// --max-rows override it only when given.
func openBigQueryEngine(ctx context.Context, cfg engineConfig) (executor.Executor, error) {
	eng, err := openBigQuery(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &bigqueryExec{Engine: eng, log: cfg.Log}, nil
}

// bigqueryExec reports what the run cost when exec closes the engine.
type bigqueryExec struct {
	*bigquery.Engine
	log io.Writer
}

func (b *bigqueryExec) Close() error {
	if t := b.Totals(); t.Queries > 0 && b.log != nil {
		price := b.Config().PricePerTiB
		fmt.Fprintf(b.log, "bigquery: %d queries, %d jobs (%d from cache), %s processed, %s billed: $%.4f at $%.2f/TiB; %d retries, %d jobs cancelled\n",
			t.Queries, t.Jobs, t.CacheHits, human(t.BytesProcessed), human(t.BytesBilled), t.Cost(price), price, t.Retries, t.Cancelled)
	}
	return b.Engine.Close()
}

func openBigQuery(ctx context.Context, cfg engineConfig) (*bigquery.Engine, error) {
	if cfg.BigQuery == nil {
		return nil, usagef("the bigquery engine needs its flags (--bq-config FILE or --bq-project)")
	}
	bq, err := cfg.BigQuery.Config()
	if err != nil {
		return nil, fmt.Errorf("bigquery configuration:\n%w", err)
	}
	if cfg.Explicit["timeout"] {
		bq.Timeout = cfg.Limits.Timeout
	}
	if cfg.Explicit["max-rows"] {
		bq.MaxRows = cfg.Limits.MaxRows
	}
	if cfg.Explicit["max-result-bytes"] {
		bq.MaxResultBytes = bigquery.ByteSize(cfg.Limits.MaxResultBytes)
	}
	var opts []bigquery.Option
	if cfg.Log != nil {
		opts = append(opts, bigquery.WithLogger(slog.New(slog.NewTextHandler(cfg.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	}
	return bigquery.Open(ctx, bq, opts...)
}

// execDryRun is exec --dry-run: the queries come from --sql/--sql-file,
// --tasks (gold SQL) or --run (a model run's final SQL).
func execDryRun(ctx context.Context, env *Env, cfg engineConfig, query, sqlFile, tasks, runDir, out string) error {
	var items []dryRunSource
	var source string
	var err error
	switch {
	case tasks != "":
		source = "gold"
		items, err = goldSources(env, tasks)
	case runDir != "":
		source = "run"
		items, err = runSources(env, runDir)
	default:
		source = "sql"
		text := query
		if sqlFile != "" {
			text, err = readSQLFile(env, sqlFile)
		}
		items = []dryRunSource{{Key: "query", SQL: text}}
	}
	if err != nil {
		return err
	}
	eng, err := openBigQuery(ctx, cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	conc := 8 // dry runs are cheap for BigQuery; a few at once
	if cfg.Explicit["concurrency"] {
		conc = cfg.Conns
	}
	return runBigQueryDryRun(ctx, env, eng, source, items, conc, out)
}

// dryRunSource is one query to estimate.
type dryRunSource struct {
	Key      string
	SQL      string
	Attempts int // executions the run recorded for this task (model runs), 0 if unknown
}

// dryRunLine is one query's estimate, as printed and as written to
// dry_run.json.
type dryRunLine struct {
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

// dryRunReport is dry_run.json.
type dryRunReport struct {
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
	Lines         []dryRunLine `json:"queries_detail"`
}

// maxAttempts is ClinSQL's self-refinement bound: a task's SQL runs at most
// three times.
const maxAttempts = 3

// runBigQueryDryRun estimates what the queries would cost on BigQuery
// without running any (dry runs are free): per-query bytes, the total, and
// the cost of a model run. It prints a table on env.Stdout and, with out
// set, writes out/dry_run.json. Per-query failures are reported as data.
func runBigQueryDryRun(ctx context.Context, env *Env, eng *bigquery.Engine, source string, items []dryRunSource, conc int, out string) error {
	cfg := eng.Config()
	lines := make([]dryRunLine, len(items))
	var g errgroup.Group
	g.SetLimit(max(conc, 1))
	for i, it := range items {
		g.Go(func() error {
			l := dryRunLine{Task: it.Key, Attempts: it.Attempts}
			est, err := eng.DryRun(ctx, it.SQL)
			if err != nil {
				l.Class = executor.ClassOf(err)
				var xe *executor.Error
				if errors.As(err, &xe) {
					l.Error = xe.Message
				} else {
					l.Error = err.Error()
				}
				lines[i] = l
				return nil
			}
			l.StatementType = est.StatementType
			if est.StatementType != "SELECT" {
				// Query would refuse it before any cost.
				l.Class, l.Error = executor.ClassRefused, fmt.Sprintf("a %s statement: only a single SELECT query runs", est.StatementType)
				lines[i] = l
				return nil
			}
			l.OK = true
			l.BytesProcessed, l.BytesBilled, l.CostUSD = est.BytesProcessed, est.BytesBilled, est.CostUSD
			l.ReferencedTables = est.ReferencedTables
			l.OverCap = est.BytesProcessed > int64(cfg.MaxBytesBilled)
			lines[i] = l
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Task < lines[j].Task })

	rep := dryRunReport{Engine: eng.Name(), Source: source, PricePerTiB: cfg.PricePerTiB, Queries: len(lines), Lines: lines}
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
	rep.CostUSD = bigquery.CostUSD(rep.Billed, cfg.PricePerTiB)
	rep.RunCostUSD = bigquery.CostUSD(runBilled, cfg.PricePerTiB)
	rep.RunCostMaxUSD = bigquery.CostUSD(maxBilled, cfg.PricePerTiB)

	printDryRun(env.Stdout, &rep, bigquery.ByteSize(cfg.MaxBytesBilled))
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		path := filepath.Join(out, "dry_run.json")
		if err := atomicfile.Write(path, append(b, '\n')); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "details: %s\n", path)
	}
	if len(items) == 1 && !lines[0].OK {
		return &ExitError{Code: exitCodeOf(lines[0].Class), Err: fmt.Errorf("%s: %s", lines[0].Class, lines[0].Error)}
	}
	return nil
}

func printDryRun(w io.Writer, rep *dryRunReport, limit bigquery.ByteSize) {
	width := len("query")
	for _, l := range rep.Lines {
		width = max(width, len(l.Task))
	}
	fmt.Fprintf(w, "%-*s  %10s  %10s  %9s\n", width, "query", "processed", "billed", "USD")
	for _, l := range rep.Lines {
		switch {
		case !l.OK:
			fmt.Fprintf(w, "%-*s  %s: %s\n", width, l.Task, l.Class, firstLine(l.Error))
		case l.OverCap:
			fmt.Fprintf(w, "%-*s  %10s  over the %s cap: refused before any cost\n", width, l.Task, human(l.BytesProcessed), limit)
		default:
			fmt.Fprintf(w, "%-*s  %10s  %10s  %9.4f\n", width, l.Task, human(l.BytesProcessed), human(l.BytesBilled), l.CostUSD)
		}
	}
	fmt.Fprintf(w, "\n%d queries: %d estimated, %d failed the dry run or were refused, %d over the %s cap\n",
		rep.Queries, rep.Estimated, rep.Failed, rep.OverCap, limit)
	fmt.Fprintf(w, "total: %s processed, %s billed on demand at $%.2f/TiB: $%.2f\n",
		human(rep.Processed), human(rep.Billed), rep.PricePerTiB, rep.CostUSD)
	switch rep.Source {
	case "gold":
		fmt.Fprintf(w, "per model run, if its SQL scans like the gold SQL: $%.2f with one query per task, up to $%.2f with all %d self-refinement attempts\n",
			rep.RunCostUSD, rep.RunCostMaxUSD, maxAttempts)
	case "run":
		fmt.Fprintf(w, "this model run: $%.2f for its recorded executions (earlier attempts assumed to scan like the final SQL), at most $%.2f with %d attempts per task\n",
			rep.RunCostUSD, rep.RunCostMaxUSD, maxAttempts)
	}
	fmt.Fprintln(w, "(estimates before the free tier and the query cache; dry runs cost nothing)")
}

// human formats bytes with a binary unit, three significant digits.
func human(b int64) string {
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

// goldSources are every task's gold SQL.
func goldSources(env *Env, root string) ([]dryRunSource, error) {
	tasks, err := datasets.LoadClinSQL(root)
	if err != nil && len(tasks) == 0 {
		return nil, fmt.Errorf("load tasks: %w", err)
	}
	for _, e := range unwrapAll(err) {
		if e != nil {
			fmt.Fprintf(env.Stderr, "clinsql exec: task not loaded: %v\n", e)
		}
	}
	var out []dryRunSource
	for _, t := range tasks {
		out = append(out, dryRunSource{Key: t.Key.String(), SQL: t.GoldSQL})
	}
	return out, nil
}

// runSources are a model run's final SQL, with each task's recorded number
// of executions. Tasks with no SQL (generation failed) are skipped and
// counted on stderr.
func runSources(env *Env, dir string) ([]dryRunSource, error) {
	outs, err := runfolder.LoadOutputs(dir)
	if err != nil && len(outs) == 0 {
		return nil, fmt.Errorf("load run: %w", err)
	}
	for _, e := range unwrapAll(err) {
		if e != nil {
			fmt.Fprintf(env.Stderr, "clinsql exec: output not loaded: %v\n", e)
		}
	}
	var out []dryRunSource
	skipped := 0
	for _, o := range outs {
		if strings.TrimSpace(o.Summary.FinalSQL) == "" {
			skipped++
			continue
		}
		out = append(out, dryRunSource{Key: o.Key.String(), SQL: o.Summary.FinalSQL, Attempts: max(len(o.Summary.RefinementAttempts), 1)})
	}
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, "clinsql exec: %d tasks have no SQL (generation failed) and cost nothing\n", skipped)
	}
	return out, nil
}
