package engine

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bigquery"
	"github.com/clinsql/clinsql/executor/bqduck"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/runfolder"
)

// Config is what every engine may be opened with.
type Config struct {
	DB      string
	Limits  executor.Limits
	Memory  string
	Threads int
	Conns   int
	// BigQuery holds the --bq-* flags (the bigquery engine's configuration).
	BigQuery *bigquery.Flags
	// Explicit names the flags given on the command line, so that an engine
	// with a configuration file of its own lets only those override it.
	Explicit map[string]bool
	// Log receives the engine's warnings (retries, cancellations) and, for
	// BigQuery, what the queries cost when the engine closes.
	Log io.Writer
	// ZeroDivision is the duckdb engine's --zero-division mode.
	ZeroDivision string
}

// UsageError is a setting the engine cannot be opened with.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// openers are the engines by name.
var openers = map[string]func(context.Context, Config) (executor.Executor, error){
	duckdb.EngineName: func(ctx context.Context, c Config) (executor.Executor, error) { return OpenDuckDB(ctx, c) },
	bigquery.Name:     openBigQueryExec,
}

// Known reports whether name is an engine.
func Known(name string) bool { _, ok := openers[name]; return ok }

// Names lists the engines, sorted and comma-separated, for messages.
func Names() string {
	var names []string
	for n := range openers {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Open opens the engine called name.
func Open(ctx context.Context, name string, c Config) (executor.Executor, error) {
	open, ok := openers[name]
	if !ok {
		return nil, usagef("unknown engine %q (available: %s)", name, Names())
	}
	return open(ctx, c)
}

// OpenDuckDB opens the embedded engine (executor/bqduck). Counting the
// patients for --zero-division auto runs under the timeout too: a timeout
// there is an error of class timeout, as any query's.
func OpenDuckDB(ctx context.Context, c Config) (*bqduck.Engine, error) {
	if c.DB == "" {
		return nil, usagef("--db is required for the duckdb engine")
	}
	if err := CheckDuckDBFile(c.DB); err != nil {
		return nil, err
	}
	z, err := bqduck.ParseZeroDivision(c.ZeroDivision)
	if err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	return bqduck.Open(ctx, bqduck.Options{DB: c.DB, Limits: c.Limits, Memory: c.Memory, Threads: c.Threads, Conns: c.Conns, ZeroDivision: z})
}

// CheckDuckDBFile refuses a database file that is not there, saying how to
// build one, so that a command can refuse before anything is written.
func CheckDuckDBFile(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("database %s does not exist: build it with clinsql db build --mimic MIMIC_DIR --out %s (make demo builds the MIMIC-IV demo's as out/demo/mimic-iv-demo.duckdb)", path, path)
	}
	return nil
}

// OpenBigQuery opens the BigQuery engine: the configuration from
// --bq-config and the --bq-* flags; the shared --timeout, --max-rows and
// --max-result-bytes override it only when given (Config.Explicit).
func OpenBigQuery(ctx context.Context, c Config) (*bigquery.Engine, error) {
	if c.BigQuery == nil {
		return nil, usagef("the bigquery engine needs its flags (--bq-config FILE or --bq-project)")
	}
	bq, err := c.BigQuery.Config()
	if err != nil {
		return nil, fmt.Errorf("bigquery configuration:\n%w", err)
	}
	if c.Explicit["timeout"] {
		bq.Timeout = c.Limits.Timeout
	}
	if c.Explicit["max-rows"] {
		bq.MaxRows = c.Limits.MaxRows
	}
	if c.Explicit["max-result-bytes"] {
		bq.MaxResultBytes = bigquery.ByteSize(c.Limits.MaxResultBytes)
	}
	var opts []bigquery.Option
	if c.Log != nil {
		opts = append(opts, bigquery.WithLogger(slog.New(slog.NewTextHandler(c.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	}
	return bigquery.Open(ctx, bq, opts...)
}

func openBigQueryExec(ctx context.Context, c Config) (executor.Executor, error) {
	eng, err := OpenBigQuery(ctx, c)
	if err != nil {
		return nil, err
	}
	return &bigqueryExec{Engine: eng, log: c.Log}, nil
}

// bigqueryExec reports what the run cost when the engine closes.
type bigqueryExec struct {
	*bigquery.Engine
	log io.Writer
}

func (b *bigqueryExec) Close() error {
	if t := b.Totals(); t.Queries > 0 && b.log != nil {
		fmt.Fprintln(b.log, t.Summary(b.Config().PricePerTiB))
	}
	return b.Engine.Close()
}

// Database fingerprints the embedded database of c for a run's manifest
// ("" for BigQuery).
func (c Config) Database() string {
	if c.DB == "" {
		return ""
	}
	return runfolder.DatabaseFingerprint(c.DB)
}

// Flags are the flags of every command that runs queries: the engine, the
// limits every engine shares, and each engine's own.
type Flags struct {
	fs        *flag.FlagSet
	Engine    string
	timeout   time.Duration
	maxRows   int
	maxResult bigquery.ByteSize
	duck      *bqduck.Flags
	bq        *bigquery.Flags
}

// AddFlags registers --engine, --timeout, --max-rows, --max-result-bytes
// and each engine's flags on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs, maxResult: bigquery.ByteSize(executor.DefaultMaxResultBytes)}
	fs.StringVar(&f.Engine, "engine", duckdb.EngineName, "engine to run on ("+Names()+")")
	fs.DurationVar(&f.timeout, "timeout", duckdb.DefaultTimeout, "per-query timeout")
	fs.IntVar(&f.maxRows, "max-rows", duckdb.DefaultMaxRows, "rows kept per result (the true count is still reported)")
	fs.Var(&f.maxResult, "max-result-bytes", "bytes of rows kept per result, e.g. 64MiB; later rows are counted, not kept (default 32MiB)")
	f.duck = bqduck.AddFlags(fs)
	f.bq = bigquery.AddFlags(fs)
	return f
}

// Config checks the parsed flags and gives the engine's configuration, with
// conns queries at once and log for the engine's warnings.
func (f *Flags) Config(log io.Writer, conns int) (Config, error) {
	if f.timeout <= 0 || f.maxRows <= 0 || f.maxResult <= 0 {
		return Config{}, usagef("--timeout, --max-rows and --max-result-bytes must be positive")
	}
	explicit := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { explicit[fl.Name] = true })
	return Config{DB: f.duck.DB, Limits: executor.Limits{Timeout: f.timeout, MaxRows: f.maxRows, MaxResultBytes: int64(f.maxResult)},
		Memory: f.duck.Memory, Threads: f.duck.Threads, Conns: conns, ZeroDivision: f.duck.ZeroDivision,
		BigQuery: f.bq, Explicit: explicit, Log: log}, nil
}

// IsUsage reports whether err is a setting the engine cannot take, and its
// message.
func IsUsage(err error) (string, bool) {
	var ue *UsageError
	if errors.As(err, &ue) {
		return ue.Msg, true
	}
	return "", false
}
