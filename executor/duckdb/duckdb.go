package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/clinsql/clinsql/executor"
)

// EngineName is the name of this engine on the command line.
const EngineName = "duckdb"

// Defaults applied to zero fields of Options.
const (
	DefaultTimeout     = 300 * time.Second // the reference pipeline's BigQuery result wait
	DefaultMaxRows     = 100_000
	DefaultMemoryLimit = "2GB"
	// DefaultThreads is one thread per query: DuckDB's parallel
	// aggregation adds floating-point partial sums in whatever order its
	// threads finish, and returns unordered rows (and ARRAY_AGG elements)
	// in thread order, so with more threads the same query on the same
	// data can print 3.6102362204724407 one run and ...416 the next. One
	// thread makes every result CSV identical run to run (and the judge's
	// prompts, hence its cache, with them); queries still run side by side
	// up to MaxConns. Raise it for speed on the full database.
	DefaultThreads   = 1
	DefaultMaxConns  = 4
	DefaultTempLimit = "8GB"
)

// Translator rewrites the SQL a caller submits (BigQuery dialect) into SQL
// DuckDB runs. The dialect bridge provides one; nil means identity. binds
// are further statements that must bind for the query to be valid in the
// caller's dialect: parts DuckDB would not bind itself (BigQuery analyses
// every CTE, DuckDB only those the query reads). Each is prepared, never
// run, before the query; an error fails the query as the query's own.
// ctx carries the query's timeout: translation is part of the query's time
// (a hostile query can be slow to translate), so a translator should stop
// when ctx is done and return an error wrapping ctx.Err().
type Translator func(ctx context.Context, sql string) (query string, binds []string, err error)

// Options configure an Engine. Zero fields take the defaults above.
type Options struct {
	Limits executor.Limits
	// MemoryLimit is DuckDB's memory_limit ("2GB").
	MemoryLimit string
	// Threads is DuckDB's threads setting.
	Threads int
	// MaxConns bounds the connections, hence the queries running at once.
	MaxConns int
	// TempLimit is DuckDB's max_temp_directory_size: how much a query may spill
	// to the engine's private temporary folder.
	TempLimit string
	// Translate rewrites each query before it is checked and run.
	Translate Translator
	// Shape, when set with Translate, renders the submitted (untranslated)
	// SQL in a form DuckDB's parser can read (identifiers quoted its way,
	// literals blanked) so that a statement which is not a SELECT is
	// refused as such before translation, rather than surfacing as whatever
	// error its translation causes. Several SELECTs pass (a script the
	// dialect runs as one query; Translate returns its statements, each
	// checked again as exactly one SELECT). A shape DuckDB cannot parse is
	// ignored: the translated SQL is checked in any case. An empty shape
	// of a query that is not empty skips the check: the dialect classifies the statement itself (the
	// bridge's procedural scripts, whose SET, CALL and EXECUTE DuckDB's
	// parser would read as its own statements; Translate never returns
	// SQL for them).
	Shape func(sql string) string
	// Settings is SQL (one or more SET statements) run once, on the first
	// connection, before external access is switched off and the
	// configuration locked: DuckDB settings are global, and locked afterwards.
	// The bridge's session settings (NULL order, time zone) go here.
	Settings string
	// Prelude is SQL run on every new connection before its first query (the
	// bridge's CREATE TEMP MACRO statements; several statements allowed). It
	// may only create temporary objects: the database is read-only and the
	// configuration locked.
	Prelude string
	// Functions names sets of Go functions (scalar UDFs, database-wide)
	// to register when the engine opens, each defined under its name by
	// DefineFunctions: BigQuery functions no SQL macro can compute
	// (FARM_FINGERPRINT).
	Functions []string
	// Explain, when set, rewrites the message of an error DuckDB raised
	// while running a query into the one the user's engine would have
	// given (the bridge's macros raise BigQuery's errors through failed
	// casts, which DuckDB reports as conversion errors quoting them), and
	// says whether the failure is the translation's limit rather than the
	// query's fault: such a query is classed unsupported. It returns the
	// message unchanged when it has nothing to say.
	Explain func(msg string) (out string, unsupported bool)
	// Relax, when set, is offered every query that failed at run time, with
	// its (explained) message. If it returns ok, the engine runs redefine on
	// the query's connection (statements that replace some of Prelude's
	// temporary macros), runs the query again under them, records warning
	// in Result.Warnings, and runs Prelude again to restore the macros. The
	// bridge uses it on a sample database, where a division by zero is
	// usually the sample's doing (a group empty in 100 patients is not in
	// MIMIC-IV) rather than the query's.
	Relax func(msg string) (redefine, warning string, ok bool)
}

// Engine is an executor.Executor over a DuckDB database file, opened
// read-only in a worker process (worker.go). It is safe for concurrent use.
type Engine struct {
	opts      Options
	sup       *supervisor
	tempDir   string
	closeOnce sync.Once
	closeErr  error
}

var _ executor.Executor = (*Engine)(nil)

// Open starts the engine's worker process, which opens the DuckDB database
// at path read-only, with external access and extension autoloading
// disabled, memory and thread limits set and the configuration locked.
// The binary must call ServeIfWorker first thing in main (and in TestMain).
func Open(path string, opts Options) (*Engine, error) {
	if opts.Limits.Timeout <= 0 {
		opts.Limits.Timeout = DefaultTimeout
	}
	if opts.Limits.MaxRows <= 0 {
		opts.Limits.MaxRows = DefaultMaxRows
	}
	opts.Limits.MaxResultBytes = executor.ResultBytes(opts.Limits.MaxResultBytes)
	if opts.MemoryLimit == "" {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	if opts.Threads <= 0 {
		opts.Threads = DefaultThreads
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.TempLimit == "" {
		opts.TempLimit = DefaultTempLimit
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open duckdb %s: the path may not contain '?' or '#'", path)
	}
	memory, err := parseSize(opts.MemoryLimit)
	if err != nil {
		return nil, fmt.Errorf("open duckdb %s: memory limit: %w", path, err)
	}
	for _, name := range opts.Functions {
		if _, ok := definedFunctions(name); !ok {
			return nil, fmt.Errorf("open duckdb %s: no functions defined as %q (duckdb.DefineFunctions)", path, name)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("open duckdb %s: is a directory", path)
	}
	reclaimTempDirs(os.TempDir())
	tempDir, err := os.MkdirTemp("", tempPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("open duckdb %s: temporary folder: %w", path, err)
	}
	cfg := setup{
		Path: abs, MemoryLimit: opts.MemoryLimit, Threads: opts.Threads, MaxConns: opts.MaxConns,
		TempDir: tempDir, TempLimit: opts.TempLimit, Settings: opts.Settings, Prelude: opts.Prelude,
		Functions: opts.Functions, MaxRows: opts.Limits.MaxRows, MaxResultBytes: opts.Limits.MaxResultBytes,
	}
	e := &Engine{opts: opts, tempDir: tempDir, sup: newSupervisor(cfg, memory)}
	// Start the worker now so that a bad file or a failing prelude is
	// reported by Open rather than by the first query.
	if err := e.sup.start(); err != nil {
		e.Close()
		return nil, fmt.Errorf("open duckdb %s: %w", path, err)
	}
	return e, nil
}

// Name implements executor.Executor.
func (e *Engine) Name() string { return EngineName }

// Limits returns the limits in force (defaults filled in).
func (e *Engine) Limits() executor.Limits { return e.opts.Limits }

// Close stops the worker (queries still running fail) and removes the
// temporary folder.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.closeErr = e.sup.close()
		os.RemoveAll(e.tempDir)
	})
	return e.closeErr
}

// Query implements executor.Executor: sql is translated, checked to be exactly
// one SELECT statement by DuckDB's parser, run under the timeout, and its
// first Limits.MaxRows rows are returned with the true row count.
func (e *Engine) Query(ctx context.Context, query string) (*executor.Result, error) {
	return e.timed(ctx, query, true)
}

// QueryNative runs DuckDB SQL as it is, without the dialect translation, under
// the same checks and limits as Query. It serves callers that speak DuckDB
// (reading the catalog for the bridge, debugging a translation).
func (e *Engine) QueryNative(ctx context.Context, query string) (*executor.Result, error) {
	return e.timed(ctx, query, false)
}

func (e *Engine) timed(ctx context.Context, query string, translate bool) (*executor.Result, error) {
	start := time.Now()
	res, err := e.query(ctx, query, translate)
	if err != nil {
		return nil, err
	}
	res.Stats.Duration = time.Since(start)
	return res, nil
}

func (e *Engine) query(parent context.Context, query string, translate bool) (*executor.Result, error) {
	if err := parent.Err(); err != nil {
		return nil, e.errorf(executor.ClassInfra, err, "query not started: %v", err)
	}
	// The timeout starts before the statement check and the translation:
	// both take time that grows with the query (issue 13: a 1.2 MB query
	// once took 117 s to translate under a 2 s timeout).
	ctx, cancel := context.WithTimeout(parent, e.opts.Limits.Timeout)
	defer cancel()
	translated := query
	if translate && e.opts.Translate != nil && e.opts.Shape != nil {
		shape := e.opts.Shape(query)
		var ref *refusal
		var err error
		if shape != "" || strings.TrimSpace(query) == "" {
			_, err = e.sup.do(parent, ctx, e.opts.Limits.Timeout, request{Op: opCheck, SQL: shape, Script: true})
		}
		if errors.As(err, &ref) {
			return nil, e.errorf(executor.ClassRefused, err, "%s", ref.msg)
		}
		if err != nil && ctx.Err() != nil {
			return nil, e.classify(parent, ctx, err)
		}
	}
	var checks []string
	if translate && e.opts.Translate != nil {
		t, binds, err := e.opts.Translate(ctx, query)
		if err != nil {
			if ctx.Err() != nil {
				return nil, e.classify(parent, ctx, err)
			}
			return nil, e.translateError(err)
		}
		translated, checks = t, binds
	}
	if strings.TrimSpace(translated) == "" {
		return nil, e.errorf(executor.ClassSyntax, nil, "empty query")
	}

	run := request{Op: opRun, SQL: translated, Checks: checks}
	res, err := e.sup.do(parent, ctx, e.opts.Limits.Timeout, run)
	if err != nil && e.opts.Relax != nil {
		if xe, ok := e.classify(parent, ctx, err).(*executor.Error); ok && xe.Class == executor.ClassRuntime {
			if redefine, warning, ok := e.opts.Relax(xe.Message); ok {
				run.Redefine = redefine
				if res, err = e.sup.do(parent, ctx, e.opts.Limits.Timeout, run); err == nil {
					res.Warnings = append(res.Warnings, warning)
				}
			}
		}
	}
	if err != nil {
		if errors.Is(err, errBadConnection) {
			// The prelude could not be restored: the connection is
			// dropped, and the query's failure is the engine's.
			return nil, e.errorf(executor.ClassInfra, err, "%v", err)
		}
		return nil, e.classify(parent, ctx, err)
	}
	return res, nil
}

func (e *Engine) errorf(class executor.Class, err error, format string, a ...any) *executor.Error {
	return &executor.Error{Class: class, Engine: EngineName, Message: fmt.Sprintf(format, a...), Err: err}
}

// translateError classifies a failure of the dialect bridge: its own
// *executor.Error keeps its class, an error reporting Unsupported() is
// ClassUnsupported, anything else is a syntax error in the submitted SQL
// (the bridge failed to read it).
func (e *Engine) translateError(err error) error {
	var xe *executor.Error
	if errors.As(err, &xe) {
		out := *xe
		out.Engine = EngineName
		return &out
	}
	var u interface{ Unsupported() bool }
	if errors.As(err, &u) && u.Unsupported() {
		return e.errorf(executor.ClassUnsupported, err, "%v", err)
	}
	return e.errorf(executor.ClassSyntax, err, "%v", err)
}

// classify maps a failure to its executor class. parent is the caller's
// context, ctx the one carrying the engine's timeout.
func (e *Engine) classify(parent, ctx context.Context, err error) error {
	var ref *refusal
	var uns *unsupported
	var de *duck.Error
	var k *killed
	switch {
	case errors.As(err, &ref):
		return e.errorf(executor.ClassRefused, err, "%s", ref.msg)
	case errors.As(err, &uns):
		return e.errorf(executor.ClassUnsupported, err, "%s", uns.msg)
	case errors.As(err, &k) && k.culprit && k.reason == killMemory:
		// BigQuery's words for a query out of memory; but the limit is
		// this engine's (--memory), far below BigQuery's, so the query is
		// not charged for it.
		return e.errorf(executor.ClassUnsupported, err, "Resources exceeded during query execution: the query used more than the embedded engine's memory limit (%s) and was stopped", e.opts.MemoryLimit)
	case errors.As(err, &k) && k.culprit && k.reason == killCrash:
		return e.errorf(executor.ClassUnsupported, err, "%s", k.msg)
	case parent.Err() != nil:
		// The caller gave up (interrupt, shutdown): not the query's fault.
		return e.errorf(executor.ClassInfra, err, "query cancelled: %v", parent.Err())
	case ctx.Err() != nil:
		return e.errorf(executor.ClassTimeout, err, "query exceeded the %s timeout and was interrupted", e.opts.Limits.Timeout)
	case errors.As(err, &de) && strings.Contains(de.Msg, "database/sql/driver: "):
		// A Go function failed inside DuckDB. The dialect's own functions
		// (Options.Register) fail on the query's values (an unparsable
		// CAST … FORMAT input, an unknown time zone) in words its Explain
		// recognises: then the class is the query's (run time), or
		// unsupported where Explain says so. Otherwise it is the result
		// filter failing on a value it cannot represent (a STRUCT with an
		// unnamed field): the engine's failure, not the query's.
		msg := de.Msg[strings.Index(de.Msg, "database/sql/driver: "):]
		if e.opts.Explain != nil {
			if out, unsupported := e.opts.Explain(msg); out != msg {
				class := executor.ClassRuntime
				if unsupported {
					class = executor.ClassUnsupported
				}
				return e.errorf(class, err, "%s", out)
			}
		}
		return e.errorf(executor.ClassInfra, err, "%s", msg)
	case errors.As(err, &de):
		msg, class := de.Msg, classOfDuckError(de.Type)
		if e.opts.Explain != nil {
			var unsupported bool
			if msg, unsupported = e.opts.Explain(msg); unsupported {
				class = executor.ClassUnsupported
			}
		}
		return e.errorf(class, err, "%s", msg)
	}
	return e.errorf(executor.ClassInfra, err, "%v", err)
}

// classOfDuckError maps DuckDB's error types onto executor classes.
func classOfDuckError(t duck.ErrorType) executor.Class {
	switch t {
	case duck.ErrorTypeParser, duck.ErrorTypeSyntax, duck.ErrorTypeBinder, duck.ErrorTypeCatalog,
		duck.ErrorTypePlanner, duck.ErrorTypeMismatchType, duck.ErrorTypeInvalidType,
		duck.ErrorTypeUnknownType, duck.ErrorTypeParameterNotResolved, duck.ErrorTypeParameterNotAllowed,
		duck.ErrorTypeOptimizer:
		return executor.ClassSyntax
	// (ErrorTypeDecimal shares its value with ErrorTypeIndex in the driver.)
	case duck.ErrorTypeConversion, duck.ErrorTypeOutOfRange, duck.ErrorTypeDivideByZero,
		duck.ErrorTypeInvalidInput, duck.ErrorTypeExpression,
		duck.ErrorTypeExecutor, duck.ErrorTypeObjectSize, duck.ErrorTypeConstraint,
		duck.ErrorTypeSequence, duck.ErrorTypeNullPointer,
		duck.ErrorTypeInvalid:
		return executor.ClassRuntime
	case duck.ErrorTypeInterrupt:
		return executor.ClassTimeout
	case duck.ErrorTypePermission, duck.ErrorTypeDependency, duck.ErrorTypeTransaction:
		return executor.ClassRefused
	case duck.ErrorTypeNotImplemented, duck.ErrorTypeMissingExtension, duck.ErrorTypeAutoLoad,
		// The engine's memory limit (--memory), not BigQuery's.
		duck.ErrorTypeOutOfMemory:
		return executor.ClassUnsupported
	case duck.ErrorTypeConnection, duck.ErrorTypeFatal, duck.ErrorTypeInternal, duck.ErrorTypeIO,
		duck.ErrorTypeNetwork, duck.ErrorTypeHTTP, duck.ErrorTypeSettings, duck.ErrorTypeScheduler,
		duck.ErrorTypeSerialization, duck.ErrorTypeStat, duck.ErrorTypeIndex,
		duck.ErrorTypeInvalidConfiguration:
		return executor.ClassInfra
	}
	// A DuckDB error without a recognised type prefix comes from the query.
	return executor.ClassRuntime
}

func statementTypeName(t duck.StmtType) string {
	names := map[duck.StmtType]string{
		duck.STATEMENT_TYPE_INSERT: "INSERT", duck.STATEMENT_TYPE_UPDATE: "UPDATE",
		duck.STATEMENT_TYPE_EXPLAIN: "EXPLAIN", duck.STATEMENT_TYPE_DELETE: "DELETE",
		duck.STATEMENT_TYPE_PREPARE: "PREPARE", duck.STATEMENT_TYPE_CREATE: "CREATE",
		duck.STATEMENT_TYPE_EXECUTE: "EXECUTE", duck.STATEMENT_TYPE_ALTER: "ALTER",
		duck.STATEMENT_TYPE_TRANSACTION: "transaction", duck.STATEMENT_TYPE_COPY: "COPY",
		duck.STATEMENT_TYPE_ANALYZE: "ANALYZE", duck.STATEMENT_TYPE_VARIABLE_SET: "SET VARIABLE",
		duck.STATEMENT_TYPE_CREATE_FUNC: "CREATE FUNCTION", duck.STATEMENT_TYPE_DROP: "DROP",
		duck.STATEMENT_TYPE_EXPORT: "EXPORT", duck.STATEMENT_TYPE_PRAGMA: "PRAGMA",
		duck.STATEMENT_TYPE_VACUUM: "VACUUM", duck.STATEMENT_TYPE_CALL: "CALL",
		duck.STATEMENT_TYPE_SET: "SET", duck.STATEMENT_TYPE_LOAD: "INSTALL/LOAD",
		duck.STATEMENT_TYPE_EXTENSION: "extension", duck.STATEMENT_TYPE_ATTACH: "ATTACH",
		duck.STATEMENT_TYPE_DETACH: "DETACH", duck.STATEMENT_TYPE_MULTI: "multi",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("type-%d", int(t))
}

// tempPrefix starts the name of each engine's spill folder, followed by the
// owning process id: "clinsql-duckdb-pid1234-567".
const tempPrefix = "clinsql-duckdb-pid"

// reclaimTempDirs removes the spill folders of engines whose process is
// gone: Close removes an engine's own folder, but a process killed with
// SIGKILL leaves it behind, with whatever DuckDB had spilled (hundreds of
// MB). Folders of live processes, and anything not named by tempPrefix, are
// left alone.
func reclaimTempDirs(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// processAlive reports whether process pid exists (signal 0 checks without
// sending anything; a process of another user answers EPERM, alive).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
