package mimic

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver

	"github.com/clinsql/clinsql/executor"
)

// BuildOptions configure [Build].
type BuildOptions struct {
	// MimicDir holds the PhysioNet CSV layout: hosp/<table>.csv.gz and
	// icu/<table>.csv.gz (plain .csv also accepted).
	MimicDir string
	// Out is the DuckDB file to create.
	Out string
	// Force replaces an existing Out.
	Force bool
	// Restart discards a partial build of Out (Out.building) instead of
	// resuming it.
	Restart bool
	// Schema defaults to V31.
	Schema *Schema
	// Threads and MemoryLimit bound DuckDB while loading (defaults 2, "4GB").
	// Tables load Threads at a time, each on one DuckDB thread: DuckDB reads
	// a gzip file on one thread whatever its setting (more threads only add
	// coordination), so the parallelism is across files.
	Threads     int
	MemoryLimit string
	// Progress, when set, receives one line per table as it is loaded,
	// and every ProgressEvery (default 10 s) a line with the tables being
	// loaded (share read, estimated rows and rows/s, ETA) and the overall
	// estimate.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Table, when set, is called once per table as it is loaded, derived
	// or found done by an earlier attempt (TableReport.Resumed). Calls may
	// come from several goroutines, one at a time.
	Table func(TableReport)
	// Digest computes each table's content digest into the report and the
	// manifest (a full scan of every table: minutes at MIMIC-IV's size).
	Digest bool
}

// TableReport describes one table of a build.
type TableReport struct {
	Table    string        `json:"table"` // "<dataset>.<table>"
	File     string        `json:"file,omitempty"`
	Rows     int64         `json:"rows"`
	Missing  bool          `json:"missing,omitempty"` // no file: created empty
	Derived  bool          `json:"derived,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Resumed: loaded by an earlier, interrupted attempt and kept.
	Resumed bool `json:"resumed,omitempty"`
	// Attempt is the attempt of the build that loaded the table (1 unless
	// the build was interrupted and resumed).
	Attempt int `json:"attempt"`
	// Digest is the table's content digest when BuildOptions.Digest is set.
	Digest string `json:"digest,omitempty"`
}

// Report is the outcome of a build.
type Report struct {
	Out      string        `json:"out"`
	Tables   []TableReport `json:"tables"`
	Duration time.Duration `json:"duration_ns"`
	// Facts are recorded in the database (FactsTable).
	Facts Facts `json:"facts"`
	// Attempt counts the attempts of this build (1: not interrupted).
	Attempt int `json:"attempt"`
	// Bytes is the size of the database file.
	Bytes int64 `json:"bytes"`
	// Manifest is the JSON file written beside the database.
	Manifest string `json:"manifest"`
}

// Missing lists the tables created empty because their file was absent.
func (r *Report) Missing() []string {
	var out []string
	for _, t := range r.Tables {
		if t.Missing {
			out = append(out, t.Table)
		}
	}
	return out
}

// Rows is the number of rows of all tables.
func (r *Report) Rows() int64 {
	var n int64
	for _, t := range r.Tables {
		n += t.Rows
	}
	return n
}

// duckType is the DuckDB column type for a BigQuery schema type.
func duckType(t executor.Type) (string, error) {
	switch t {
	case Int64:
		return "BIGINT", nil
	case Float64:
		return "DOUBLE", nil
	case String:
		return "VARCHAR", nil
	case Date:
		return "DATE", nil
	case Datetime:
		return "TIMESTAMP", nil
	}
	return "", fmt.Errorf("no DuckDB type for %s", t)
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Build creates the DuckDB database opts.Out from the CSV files under
// opts.MimicDir: one DuckDB schema per dataset, every table of the schema
// created with explicit column types (never inferred), each loaded from its
// file when there is one and left empty (and reported) when not, then the
// derived tables computed, then the manifest written beside it
// (ManifestPath).
//
// The database is built in Out.building and renamed into place when
// complete, so Out is never partial. Each table is loaded in one
// transaction that also records it as done, so a build interrupted at any
// point (an error, Ctrl-C, kill -9, a power cut) resumes when run again
// with the same folder: the tables done are kept (unless their file
// changed: size or modification time) and only the others load. A failed
// build keeps Out.building when it holds a loaded table, and says so.
func Build(ctx context.Context, opts BuildOptions) (*Report, error) {
	start := time.Now()
	schema := opts.Schema
	if schema == nil {
		schema = V31
	}
	if opts.Threads <= 0 {
		opts.Threads = 2
	}
	if opts.MemoryLimit == "" {
		opts.MemoryLimit = "4GB"
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10 * time.Second
	}
	if err := checkMimicDir(opts.MimicDir); err != nil {
		return nil, err
	}
	if opts.Out == "" {
		return nil, errors.New("build: no output file")
	}
	if strings.ContainsAny(opts.Out, "?#") {
		return nil, fmt.Errorf("build: output path %s may not contain '?' or '#'", opts.Out)
	}
	if _, err := os.Stat(opts.Out); err == nil && !opts.Force {
		return nil, fmt.Errorf("build: %s already exists (use --force to replace it)", opts.Out)
	}
	if err := os.MkdirAll(filepath.Dir(opts.Out), 0o755); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	tmp := opts.Out + ".building"
	if opts.Restart {
		if err := removeDB(tmp); err != nil {
			return nil, fmt.Errorf("build: %w", err)
		}
	}
	rep, kept, err := build(ctx, opts, schema, tmp)
	if err != nil {
		if kept {
			return nil, fmt.Errorf("%w\nthe tables loaded so far are kept in %s: run the same command again to resume (--restart to start over)", err, tmp)
		}
		removeDB(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, opts.Out); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	os.Remove(opts.Out + ".wal")
	rep.Out = opts.Out
	rep.Duration = time.Since(start)
	st, err := os.Stat(opts.Out)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	rep.Bytes = st.Size()
	rep.Manifest = ManifestPath(opts.Out)
	if err := writeManifest(rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// removeDB removes a DuckDB file and its write-ahead log.
func removeDB(path string) error {
	for _, p := range []string{path, path + ".wal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func checkMimicDir(dir string) error {
	if dir == "" {
		return errors.New("build: no MIMIC-IV folder given")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("build: MIMIC-IV folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("build: %s is not a folder", dir)
	}
	for _, m := range []string{"hosp", "icu"} {
		if st, err := os.Stat(filepath.Join(dir, m)); err == nil && st.IsDir() {
			return nil
		}
	}
	return fmt.Errorf("build: %s has neither a hosp/ nor an icu/ folder (expected the PhysioNet CSV layout)", dir)
}

// execBeginner is a connection that runs statements and transactions.
type execBeginner interface {
	execer
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

func openBuildDB(path string, opts BuildOptions) (*sql.DB, error) {
	q := url.Values{}
	// One DuckDB thread per loading table (see BuildOptions.Threads).
	q.Set("threads", "1")
	q.Set("memory_limit", opts.MemoryLimit)
	q.Set("autoinstall_known_extensions", "false")
	q.Set("autoload_known_extensions", "false")
	return sql.Open("duckdb", path+"?"+q.Encode())
}

// build builds (or resumes) the database at path. kept reports, on error,
// whether path holds loaded tables worth resuming.
func build(ctx context.Context, opts BuildOptions, schema *Schema, path string) (rep *Report, kept bool, err error) {
	_, statErr := os.Stat(path)
	resuming := statErr == nil
	db, err := openBuildDB(path, opts)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil && resuming {
		// A partial file DuckDB cannot open: start over.
		if db != nil {
			db.Close()
		}
		if err := removeDB(path); err != nil {
			return nil, false, fmt.Errorf("build: %w", err)
		}
		resuming = false
		db, err = openBuildDB(path, opts)
	}
	if err != nil {
		return nil, false, fmt.Errorf("build: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(opts.Threads + 1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("build: %w", err)
	}
	defer conn.Close()
	st, err := openState(ctx, conn, schema, opts.MimicDir, !resuming)
	if err != nil && resuming {
		// Not a partial build of this folder and schema: start over.
		fmt.Fprintf(progressOr(opts.Progress), "build: not resuming %s (%v): starting over\n", path, err)
		conn.Close()
		db.Close()
		if err := removeDB(path); err != nil {
			return nil, false, fmt.Errorf("build: %w", err)
		}
		return build(ctx, opts, schema, path)
	}
	if err != nil {
		return nil, false, fmt.Errorf("build: %w", err)
	}
	b := &builder{opts: opts, schema: schema, db: db, conn: conn, st: st}
	rep, err = b.run(ctx)
	if err != nil {
		return nil, b.loadedAny(), err
	}
	return rep, false, nil
}

func progressOr(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// builder is one attempt of a build.
type builder struct {
	opts   BuildOptions
	schema *Schema
	db     *sql.DB
	conn   *sql.Conn
	st     *buildState

	mu      sync.Mutex
	outMu   sync.Mutex // serialises report's writes and Table calls
	reports map[string]TableReport
	loaded  bool // a table was loaded from a file (this or an earlier attempt)
}

func (b *builder) loadedAny() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.loaded
}

func (b *builder) report(tr TableReport) {
	b.mu.Lock()
	b.reports[tr.Table] = tr
	if !tr.Missing && !tr.Derived {
		b.loaded = true
	}
	b.mu.Unlock()
	// Tables load in parallel: one report at a time on the writer (a
	// caller's io.Writer need not be safe for concurrent use).
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if tr.Resumed {
		fmt.Fprintf(progressOr(b.opts.Progress), "%-40s %12d rows  done by attempt %d, kept\n", tr.Table, tr.Rows, tr.Attempt)
	} else {
		progress(b.opts.Progress, tr)
	}
	if b.opts.Table != nil {
		b.opts.Table(tr)
	}
}

func reportOf(d doneTable, resumed bool) TableReport {
	return TableReport{Table: d.Table, File: d.File, Rows: d.Rows, Missing: d.Missing, Derived: d.Derived,
		Duration: d.Duration, Resumed: resumed, Attempt: d.Attempt}
}

type loadJob struct {
	t   *Table
	src source
}

func (b *builder) run(ctx context.Context) (*Report, error) {
	b.reports = map[string]TableReport{}
	attempt := b.st.Attempts
	// The source files are hashed while DuckDB loads them (files of tables
	// kept from an earlier attempt reuse their recorded digest).
	known := map[string]string{}
	var jobs []loadJob
	var total int64
	for _, t := range b.schema.Tables {
		if t.Module == "" {
			continue
		}
		src, found, err := statSource(b.opts.MimicDir, t)
		if err != nil {
			return nil, fmt.Errorf("build: %w", err)
		}
		if d, ok := b.st.Done[t.FullName()]; ok && d.current(src, found) {
			if d.SHA256 != "" {
				known[d.File] = d.SHA256
			}
			b.report(reportOf(d, true))
			continue
		}
		if !found {
			d := doneTable{Table: t.FullName(), Missing: true, Attempt: attempt}
			if _, err := b.conn.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s.%s", ident(t.Dataset), ident(t.Name))); err != nil {
				return nil, fmt.Errorf("build: %w", err)
			}
			if err := recordDone(ctx, b.conn, d); err != nil {
				return nil, fmt.Errorf("build: %w", err)
			}
			b.report(reportOf(d, false))
			continue
		}
		jobs = append(jobs, loadJob{t, src})
		total += src.Bytes
	}
	var digests map[string]string
	var fpErr error
	hashed := make(chan struct{})
	go func() {
		defer close(hashed)
		digests, fpErr = hashSources(ctx, b.opts.MimicDir, b.schema, known)
	}()
	defer func() { <-hashed }() // never leave the hashing running

	// Largest file first: the long loads start while there is most to
	// overlap them with.
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].src.Bytes > jobs[j].src.Bytes })
	tr := newTracker(total)
	if b.opts.Progress != nil && len(jobs) > 0 {
		stop := make(chan struct{})
		defer close(stop)
		go tr.report(b.opts.Progress, b.opts.ProgressEvery, stop)
	}
	if err := b.loadAll(ctx, jobs, attempt, tr); err != nil {
		return nil, err
	}
	<-hashed
	if fpErr != nil {
		return nil, fmt.Errorf("build: fingerprinting the source files: %w", fpErr)
	}
	for _, d := range b.reports {
		if sum, ok := digests[d.File]; ok && d.File != "" && !d.Resumed {
			if _, err := b.conn.ExecContext(ctx, "UPDATE "+tablesTable+" SET file_sha256 = ? WHERE table_name = ?", sum, d.Table); err != nil {
				return nil, fmt.Errorf("build: %w", err)
			}
		}
	}
	// Derived tables: computed again when any table was loaded now.
	if _, err := b.conn.ExecContext(ctx, "SET threads = "+strconv.Itoa(b.opts.Threads)); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	for _, t := range b.schema.Tables {
		if t.Module != "" {
			continue
		}
		if d, ok := b.st.Done[t.FullName()]; ok && len(jobs) == 0 {
			b.report(reportOf(d, true))
			continue
		}
		d, err := deriveTable(ctx, b.conn, t, attempt)
		if err != nil {
			return nil, err
		}
		b.report(reportOf(d, false))
	}
	rep := &Report{Attempt: attempt}
	for _, t := range b.schema.Tables {
		rep.Tables = append(rep.Tables, b.reports[t.FullName()])
	}
	if b.opts.Digest {
		for i := range rep.Tables {
			t := b.schema.Table(strings.SplitN(rep.Tables[i].Table, ".", 2)[0], strings.SplitN(rep.Tables[i].Table, ".", 2)[1])
			sum, err := TableDigest(ctx, b.conn, t)
			if err != nil {
				return nil, err
			}
			rep.Tables[i].Digest = sum
		}
	}
	rep.Facts = Facts{Source: sourceKind(b.opts.MimicDir), Built: time.Now().UTC().Truncate(time.Second), SourceSHA256: fingerprint(digests)}
	if err := b.conn.QueryRowContext(ctx, PatientsQuery).Scan(&rep.Facts.Patients); err != nil {
		return nil, fmt.Errorf("build: counting patients: %w", err)
	}
	if err := recordFacts(ctx, b.conn, rep.Facts); err != nil {
		return nil, err
	}
	if _, err := b.conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return nil, fmt.Errorf("build: checkpoint: %w", err)
	}
	if err := b.conn.Close(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	if err := b.db.Close(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return rep, nil
}

// loadAll loads the jobs, Threads at a time, each on its own connection;
// the first error stops the others (their transactions roll back).
func (b *builder) loadAll(ctx context.Context, jobs []loadJob, attempt int, tr *tracker) error {
	g, gctx := errgroup.WithContext(ctx)
	next := make(chan loadJob)
	g.Go(func() error {
		defer close(next)
		for _, j := range jobs {
			select {
			case next <- j:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range min(b.opts.Threads, max(len(jobs), 1)) {
		g.Go(func() error {
			conn, err := b.db.Conn(gctx)
			if err != nil {
				return fmt.Errorf("build: %w", err)
			}
			defer conn.Close()
			for j := range next {
				d, err := loadTable(gctx, conn, j.t, j.src, attempt, tr)
				if err != nil {
					return err
				}
				b.report(reportOf(d, false))
			}
			return nil
		})
	}
	return g.Wait()
}

func progress(w io.Writer, tr TableReport) {
	if w == nil {
		return
	}
	switch {
	case tr.Missing:
		fmt.Fprintf(w, "%-40s no file: created empty\n", tr.Table)
	default:
		rate := ""
		if s := tr.Duration.Seconds(); s > 0 && !tr.Derived {
			rate = fmt.Sprintf("  %s rows/s", human(float64(tr.Rows)/s))
		}
		fmt.Fprintf(w, "%-40s %12d rows  %v%s\n", tr.Table, tr.Rows, tr.Duration.Round(time.Millisecond), rate)
	}
}

func createTable(ctx context.Context, conn execer, t *Table) error {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		dt, err := duckType(c.Type)
		if err != nil {
			return fmt.Errorf("build: %s.%s: %w", t.FullName(), c.Name, err)
		}
		cols[i] = ident(c.Name) + " " + dt
	}
	stmt := fmt.Sprintf("CREATE TABLE %s.%s (%s)", ident(t.Dataset), ident(t.Name), strings.Join(cols, ", "))
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("build: create %s: %w", t.FullName(), err)
	}
	return nil
}

// tableFile finds the table's file: <module>/<name>.csv.gz, else .csv.
func tableFile(dir string, t *Table) (string, bool) {
	for _, ext := range []string{".csv.gz", ".csv"} {
		p := filepath.Join(dir, t.Module, t.Name+ext)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

func deriveTable(ctx context.Context, conn execBeginner, t *Table, attempt int) (doneTable, error) {
	start := time.Now()
	d := doneTable{Table: t.FullName(), Derived: true, Attempt: attempt}
	var stmt string
	switch t.FullName() {
	case DatasetDerived + ".charlson":
		stmt = charlsonSQL()
	default:
		return d, fmt.Errorf("build: no definition for derived table %s", t.FullName())
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return d, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s.%s", ident(t.Dataset), ident(t.Name))); err != nil {
		return d, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	res, err := tx.ExecContext(ctx, stmt)
	if err != nil {
		return d, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	if d.Rows, err = res.RowsAffected(); err != nil {
		return d, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	d.Duration = time.Since(start)
	if err := recordDone(ctx, tx, d); err != nil {
		return d, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	if err := tx.Commit(); err != nil {
		return d, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	return d, nil
}
