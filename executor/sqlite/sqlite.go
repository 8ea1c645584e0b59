package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite/internal/csqlite"
)

// Engine is the name the engine goes by on the command line.
const Engine = "sqlite"

// Defaults for zero Limits and Options fields.
const (
	DefaultTimeout = 30 * time.Second
	DefaultMaxRows = 100_000
	// DefaultMemoryLimit bounds SQLite's heap (Options.MemoryLimit): 30
	// times the EHRSQL database (33 MiB), which the page caches of the
	// pooled connections hold a copy of at most each.
	DefaultMemoryLimit int64 = 1 << 30
)

// cacheKiB is the page cache of each pooled connection. The EHRSQL database
// is 33 MiB; a cache that holds it saves re-reading pages from the OS.
const cacheKiB = 64 << 10

// Immutable says whether the file is opened with immutable=1.
type Immutable int

const (
	// ImmutableAuto: immutable when the file has no write permission bit,
	// i.e. nobody is expected to change it while it is open.
	ImmutableAuto Immutable = iota
	ImmutableOn
	ImmutableOff
)

// Options configure a DB.
type Options struct {
	Limits    executor.Limits // Timeout, MaxRows and MaxResultBytes; MaxBytesBilled does not apply
	Immutable Immutable
	// MaxIdle bounds the pooled idle connections (default 4). More
	// concurrent queries open more connections; the surplus is closed.
	MaxIdle int
	// MemoryLimit bounds the bytes SQLite allocates (page caches, sorts,
	// values being built), default DefaultMemoryLimit: a query that needs
	// more fails (out of memory). SQLite's heap limit is the process's
	// (sqlite3_hard_heap_limit64), so the last Open sets it for every DB.
	MemoryLimit int64
}

// DB runs queries on one SQLite file.
type DB struct {
	path    string
	uri     string
	timeout time.Duration
	maxRows int
	// maxBytes is Limits.MaxResultBytes, defaulted.
	maxBytes int64
	maxIdle  int
	memory   int64 // Options.MemoryLimit, defaulted

	mu     sync.Mutex
	idle   []*csqlite.Conn
	closed bool
}

var _ executor.Executor = (*DB)(nil)

// Open checks that path is an SQLite database and returns a DB for it.
func Open(path string, opt Options) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("sqlite: %s: is a directory", path)
	}
	q := url.Values{"mode": {"ro"}}
	immutable := opt.Immutable == ImmutableOn || (opt.Immutable == ImmutableAuto && st.Mode().Perm()&0o222 == 0)
	if immutable {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}
	db := &DB{
		path:     path,
		uri:      u.String(),
		timeout:  opt.Limits.Timeout,
		maxRows:  opt.Limits.MaxRows,
		maxBytes: executor.ResultBytes(opt.Limits.MaxResultBytes),
		maxIdle:  opt.MaxIdle,
	}
	if db.timeout <= 0 {
		db.timeout = DefaultTimeout
	}
	if db.maxRows <= 0 {
		db.maxRows = DefaultMaxRows
	}
	if db.maxIdle <= 0 {
		db.maxIdle = 4
	}
	db.memory = opt.MemoryLimit
	if db.memory <= 0 {
		db.memory = DefaultMemoryLimit
	}
	csqlite.HardHeapLimit(db.memory)
	c, err := db.open()
	if err != nil {
		return nil, err
	}
	// Reading the schema proves the file is a database.
	stmt, _, err := c.Prepare("SELECT count(*) FROM sqlite_master")
	if err == nil {
		_, err = stmt.Step()
		stmt.Finalize()
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("sqlite: %s: %v", path, err)
	}
	db.idle = append(db.idle, c)
	return db, nil
}

// LibraryVersion is the version of the SQLite library queries run on.
func LibraryVersion() string { return csqlite.Version() }

// Name implements executor.Executor.
func (db *DB) Name() string { return Engine }

// Path returns the database file the DB was opened on.
func (db *DB) Path() string { return db.path }

// Close closes the pooled connections. Queries still running finish and
// close their connection when they return.
func (db *DB) Close() error {
	db.mu.Lock()
	idle := db.idle
	db.idle, db.closed = nil, true
	db.mu.Unlock()
	var errs []error
	for _, c := range idle {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

func (db *DB) open() (*csqlite.Conn, error) {
	c, err := csqlite.Open(db.uri, csqlite.OpenReadOnly|csqlite.OpenURI|csqlite.OpenNoMutex)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %v", db.path, err)
	}
	setup := func() error {
		if err := c.DoubleQuotedStrings(true); err != nil {
			return err
		}
		if err := c.Exec(fmt.Sprintf("PRAGMA cache_size = -%d", cacheKiB)); err != nil {
			return err
		}
		// No string or BLOB, final or intermediate, longer than the result
		// byte cap (a value that long could never be kept): SQLite fails
		// the statement when one would be built (SQLITE_TOOBIG), before it
		// allocates it. hex(zeroblob(300000000)) took 2.7 GB, and a single
		// function call is not interrupted (issue 25).
		c.SetLimit(csqlite.LimitLength, int(min(db.maxBytes, math.MaxInt32)))
		return c.ReadOnlyAuthorizer()
	}
	if err := setup(); err != nil {
		c.Close()
		return nil, fmt.Errorf("sqlite: open %s: %v", db.path, err)
	}
	return c, nil
}

func (db *DB) get() (*csqlite.Conn, error) {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil, errors.New("sqlite: DB is closed")
	}
	if n := len(db.idle); n > 0 {
		c := db.idle[n-1]
		db.idle = db.idle[:n-1]
		db.mu.Unlock()
		return c, nil
	}
	db.mu.Unlock()
	return db.open()
}

func (db *DB) put(c *csqlite.Conn) {
	db.mu.Lock()
	if !db.closed && len(db.idle) < db.maxIdle {
		db.idle = append(db.idle, c)
		db.mu.Unlock()
		return
	}
	db.mu.Unlock()
	c.Close()
}

// errMultiple is Python's sqlite3 message for a second statement.
const errMultiple = "You can only execute one statement at a time."

// Query implements executor.Executor.
func (db *DB) Query(ctx context.Context, sql string) (*executor.Result, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, db.ctxError(err)
	}
	if strings.IndexByte(sql, 0) >= 0 {
		return nil, db.fail(executor.ClassRefused, "the query contains a null character", nil)
	}
	c, err := db.get()
	if err != nil {
		return nil, &executor.Error{Class: executor.ClassInfra, Engine: Engine, Message: err.Error(), Err: err}
	}
	defer db.put(c)
	qctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()

	// The watcher interrupts SQLite itself when the query's context ends.
	// It is stopped, and has returned, before the connection goes back to
	// the pool, so a late interrupt cannot hit the next query; an interrupt
	// that lands after the statement finished is a no-op.
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-qctx.Done():
			c.Interrupt()
		case <-done:
		}
	}()
	res, err := db.run(c, sql)
	close(done)
	<-stopped

	if err != nil {
		if csqlite.Is(err, csqlite.CodeInterrupt) || qctx.Err() != nil {
			if ctx.Err() != nil {
				return nil, db.ctxError(ctx.Err())
			}
			return nil, db.fail(executor.ClassTimeout, fmt.Sprintf("query exceeded the %s timeout", db.timeout), err)
		}
		return nil, err
	}
	res.Stats.Duration = time.Since(start)
	return res, nil
}

func (db *DB) run(c *csqlite.Conn, sql string) (*executor.Result, error) {
	stmt, tail, err := c.Prepare(sql)
	if err != nil {
		return nil, db.classify(err, executor.ClassSyntax)
	}
	if stmt == nil {
		// Only whitespace, comments or empty statements.
		return &executor.Result{Columns: []executor.Column{}, Rows: [][]any{}}, nil
	}
	defer stmt.Finalize()
	if lstripSQL(tail) != "" {
		return nil, db.fail(executor.ClassRefused, errMultiple, nil)
	}
	n := stmt.ColumnCount()
	res := &executor.Result{Columns: make([]executor.Column, n), Rows: [][]any{}}
	classes := make([]int, n) // storage class seen so far: 0 none, mixed
	keep := executor.NewKeeper(db.maxRows, db.maxBytes)
	var total int64
	for {
		ok, err := stmt.Step()
		if err != nil {
			return nil, db.classify(err, executor.ClassRuntime)
		}
		if !ok {
			break
		}
		total++
		if keep.Full() {
			continue
		}
		// The row is sized before any value is copied out of SQLite (as
		// executor.RowBytes counts: text and blobs by their bytes, other
		// values 8), so a row over the byte cap is never held in Go.
		types := make([]int, n)
		var size int64
		for i := range types {
			types[i] = stmt.ColumnType(i)
			size++
			switch types[i] {
			case csqlite.Text, csqlite.Blob:
				size += int64(stmt.Bytes(i))
			case csqlite.Integer, csqlite.Float:
				size += 8
			}
		}
		if !keep.KeepSize(size) {
			continue
		}
		row := make([]any, n)
		for i := range row {
			row[i] = value(stmt, i, types[i])
		}
		for i, t := range types {
			classes[i] = merge(classes[i], t)
		}
		res.Rows = append(res.Rows, row)
	}
	keep.Finish(res, total)
	for i := range res.Columns {
		res.Columns[i] = executor.Column{Name: stmt.ColumnName(i), Type: columnType(classes[i], stmt.ColumnDeclType(i))}
	}
	return res, nil
}

// value converts cell i of the current row by its storage class.
func value(stmt *csqlite.Stmt, i int, t int) any {
	switch t {
	case csqlite.Integer:
		return stmt.Int64(i)
	case csqlite.Float:
		return stmt.Float(i)
	case csqlite.Text:
		// Python's text_factory b.decode(errors="ignore") drops every byte
		// that is not part of a valid UTF-8 sequence.
		return strings.ToValidUTF8(string(stmt.Text(i)), "")
	case csqlite.Blob:
		return stmt.Blob(i)
	}
	return nil
}

// mixed marks a column whose non-NULL cells have different storage classes
// (other than INTEGER with REAL).
const mixed = 0xff

func merge(seen, t int) int {
	switch {
	case t == csqlite.Null || seen == t:
		return seen
	case seen == 0:
		return t
	case (seen == csqlite.Integer || seen == csqlite.Float) && (t == csqlite.Integer || t == csqlite.Float):
		return csqlite.Float
	}
	return mixed
}

func columnType(class int, decl string) executor.Type {
	switch class {
	case csqlite.Integer:
		return "INT64"
	case csqlite.Float:
		return "FLOAT64"
	case csqlite.Text:
		return "STRING"
	case csqlite.Blob:
		return "BYTES"
	}
	// SQLite's affinity rules (https://sqlite.org/datatype3.html, 3.1), with
	// date and time declarations, which have NUMERIC affinity but hold ISO
	// text in practice, reported as STRING.
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return "INT64"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "STRING"
	case strings.Contains(d, "BLOB"):
		return "BYTES"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "FLOAT64"
	case strings.Contains(d, "DATE"), strings.Contains(d, "TIME"), d == "":
		return "STRING"
	}
	return "FLOAT64"
}

// lstripSQL is CPython's lstrip_sql: it skips ASCII whitespace (space, \t,
// \n, \f, \r; not \v), "--" comments to the end of the line and "/* */"
// comments, and returns what follows ("" when nothing does, including inside
// an unterminated comment).
func lstripSQL(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\f', '\n', '\r':
		case '-':
			if i+1 < len(s) && s[i+1] == '-' {
				j := strings.IndexByte(s[i+2:], '\n')
				if j < 0 {
					return ""
				}
				i += 2 + j
				continue
			}
			return s[i:]
		case '/':
			if i+1 < len(s) && s[i+1] == '*' {
				j := strings.Index(s[i+2:], "*/")
				if j < 0 {
					return ""
				}
				i += 2 + j + 1
				continue
			}
			return s[i:]
		default:
			return s[i:]
		}
	}
	return ""
}

// classify maps an SQLite error to an executor class: a denied statement is
// refused, a failure of the file or the library is infrastructure, anything
// else is the SQL's fault (def says whether at prepare or step).
func (db *DB) classify(err error, def executor.Class) error {
	var se *csqlite.Error
	if !errors.As(err, &se) {
		return db.fail(executor.ClassInfra, err.Error(), err)
	}
	class := def
	switch se.Code {
	case csqlite.CodeInterrupt:
		return err // Query tells timeout from cancellation
	case csqlite.CodeAuth, csqlite.CodeReadOnly:
		class = executor.ClassRefused
	case csqlite.CodeTooBig:
		// A value past SQLITE_LIMIT_LENGTH, the result byte cap: the
		// query's, as a result over the cap is (reliability.Normalize).
		return db.fail(executor.ClassBytesLimit, fmt.Sprintf("%s: a string or BLOB over the engine's limit of %d bytes (the result byte cap)", se.Msg, min(db.maxBytes, math.MaxInt32)), err)
	case csqlite.CodeNoMem:
		// Past the heap limit (Options.MemoryLimit): the query's, as a
		// BigQuery query out of resources is. Retrying it cannot help.
		return db.fail(executor.ClassRuntime, fmt.Sprintf("%s: the query needed more than the engine's memory limit of %d bytes", se.Msg, db.memory), err)
	case csqlite.CodeIOErr, csqlite.CodeCorrupt, csqlite.CodeNotADB, csqlite.CodeCantOpen,
		csqlite.CodeBusy, csqlite.CodeLocked, csqlite.CodeInternal, csqlite.CodeMisuse, csqlite.CodePerm,
		csqlite.CodeProtocol, csqlite.CodeNoLFS, csqlite.CodeFull:
		class = executor.ClassInfra
	}
	return db.fail(class, se.Msg, err)
}

func (db *DB) fail(class executor.Class, msg string, err error) error {
	return &executor.Error{Class: class, Engine: Engine, Message: msg, Err: err}
}

// ctxError reports the caller's own cancellation or deadline: not the SQL's
// fault when cancelled, a timeout when the caller's deadline passed.
func (db *DB) ctxError(err error) error {
	return db.fail(executor.ClassOf(err), err.Error(), err)
}
