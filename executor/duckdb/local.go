package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/clinsql/clinsql/executor"
)

// setup is what a worker needs to open the database: every Options field
// that is data rather than Go code, filled in with the defaults. It is sent
// to the worker over its pipe (see worker.go).
type setup struct {
	Path           string
	MemoryLimit    string
	Threads        int
	MaxConns       int
	TempDir        string
	TempLimit      string
	Settings       string
	Prelude        string
	Functions      []string
	MaxRows        int
	MaxResultBytes int64
}

// local is a DuckDB database opened in this process: what a worker serves.
// The parent process never opens one (see worker.go).
type local struct {
	db  *sql.DB
	cfg setup
}

// openLocal opens cfg.Path read-only with external access and extension
// autoloading disabled, memory and thread limits set and the configuration
// locked, and registers the result filter and cfg.Functions.
func openLocal(cfg setup) (*local, error) {
	q := url.Values{}
	q.Set("access_mode", "READ_ONLY")
	q.Set("autoload_known_extensions", "false")
	q.Set("autoinstall_known_extensions", "false")
	q.Set("allow_community_extensions", "false")
	q.Set("allow_unsigned_extensions", "false")
	q.Set("memory_limit", cfg.MemoryLimit)
	q.Set("threads", strconv.Itoa(cfg.Threads))
	// Spill to a private folder, not beside the database file (which may
	// sit in a read-only data folder).
	q.Set("temp_directory", cfg.TempDir)
	q.Set("max_temp_directory_size", cfg.TempLimit)
	settings, prelude := cfg.Settings, cfg.Prelude
	// External access is switched off, and the configuration locked, by the
	// first connection (openLocal pings before any query can run): the
	// driver applies DSN options in no fixed order, and DuckDB refuses to
	// set temp_directory once external access is off.
	var lockMu sync.Mutex
	locked := false
	connector, err := duck.NewConnector(cfg.Path+"?"+q.Encode(), func(ex driver.ExecerContext) error {
		lockMu.Lock()
		defer lockMu.Unlock()
		if !locked {
			if strings.TrimSpace(settings) != "" {
				if _, err := ex.ExecContext(context.Background(), settings, nil); err != nil {
					return fmt.Errorf("duckdb settings: %w", err)
				}
			}
			for _, stmt := range []string{"SET enable_external_access = false", "SET lock_configuration = true"} {
				if _, err := ex.ExecContext(context.Background(), stmt, nil); err != nil {
					return fmt.Errorf("duckdb: %s: %w", stmt, err)
				}
			}
			locked = true
		}
		if strings.TrimSpace(prelude) != "" {
			if _, err := ex.ExecContext(context.Background(), prelude, nil); err != nil {
				return fmt.Errorf("duckdb prelude: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The parser's private instance (parse.go) is opened now, with the
	// database, rather than by the first query, against its timeout.
	if _, err := parser(); err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(cfg.MaxConns)
	db.SetMaxIdleConns(cfg.MaxConns)
	l := &local{db: db, cfg: cfg}
	// Open one connection now so that a bad file or a failing prelude is
	// reported by the open rather than by the first query.
	if err := db.PingContext(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	if err := l.register(context.Background(), func(_ context.Context, conn *sql.Conn) error {
		return duck.RegisterScalarUDF(conn, keepFunc, keepUDF{})
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("register %s: %w", keepFunc, err)
	}
	for _, name := range cfg.Functions {
		fns, ok := definedFunctions(name)
		if !ok {
			db.Close()
			return nil, fmt.Errorf("no functions defined as %q (duckdb.DefineFunctions)", name)
		}
		if err := l.register(context.Background(), func(ctx context.Context, conn *sql.Conn) error {
			return RegisterFunctions(ctx, conn, fns())
		}); err != nil {
			db.Close()
			return nil, fmt.Errorf("register the dialect's functions %q: %w", name, err)
		}
	}
	return l, nil
}

func (l *local) close() error { return l.db.Close() }

// register runs a registration on one connection (functions are
// registered database-wide).
func (l *local) register(ctx context.Context, f func(context.Context, *sql.Conn) error) error {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return f(ctx, conn)
}

// exec prepares every statement of checks (never running them), then runs
// query, with redefine first when it is not empty (see relaxed).
func (l *local) exec(ctx context.Context, query string, checks []string, redefine string) (*executor.Result, error) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var res *executor.Result
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*duck.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		for _, check := range checks {
			s, err := prepareOne(ctx, c, check)
			if err != nil {
				return err
			}
			s.Close()
		}
		if redefine != "" {
			res, err = l.relaxed(ctx, c, query, redefine)
			return err
		}
		res, err = l.prepareRun(ctx, c, query)
		return err
	})
	return res, err
}

func (l *local) prepareRun(ctx context.Context, c *duck.Conn, query string) (*executor.Result, error) {
	// The query as submitted is prepared first: its errors, and its column
	// names, are its own, not the wrapper's (which renames duplicates).
	stmt, err := prepareOne(ctx, c, query)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	if l.cfg.Threads != 1 {
		return l.run(ctx, stmt, nil, nil)
	}
	n, err := stmt.ColumnCount()
	if err != nil {
		return nil, err
	}
	names := make([]string, n)
	for i := range names {
		if names[i], err = stmt.ColumnName(i); err != nil {
			return nil, err
		}
	}
	wrapped, err := prepareOne(ctx, c, wrapKeep(query))
	if err != nil {
		// A query the wrapper cannot hold (a trailing semicolon before a
		// comment) runs as it is, capped on the Go side only.
		return l.run(ctx, stmt, nil, nil)
	}
	defer wrapped.Close()
	b := &budget{keep: executor.NewKeeper(l.cfg.MaxRows, l.cfg.MaxResultBytes)}
	return l.run(context.WithValue(ctx, budgetKey{}, b), wrapped, names, b)
}

// relaxed runs query again with some macros redefined, then restores them
// from the prelude. A connection whose prelude cannot be restored is
// reported bad, so database/sql discards it rather than let a later query
// run under the relaxed definitions.
func (l *local) relaxed(ctx context.Context, c *duck.Conn, query, redefine string) (*executor.Result, error) {
	if _, err := c.ExecContext(ctx, redefine, nil); err != nil {
		return nil, fmt.Errorf("duckdb relax: %w: %w", err, driver.ErrBadConn)
	}
	res, err := l.prepareRun(ctx, c, query)
	// Restore even if ctx has ended: the connection goes back to the pool.
	if _, rerr := c.ExecContext(context.Background(), l.cfg.Prelude, nil); rerr != nil {
		return nil, fmt.Errorf("duckdb prelude restore: %w: %w", rerr, driver.ErrBadConn)
	}
	return res, err
}

// refusal is a query turned away before it ran.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// prepareOne parses query with DuckDB's own parser and prepares it, refusing
// anything but exactly one SELECT statement. Nothing is executed: the driver's
// Prepare (unlike PrepareContext) refuses a multi-statement string instead of
// running its leading statements, and the prepared statement's type is
// checked again before it runs.
func prepareOne(ctx context.Context, c *duck.Conn, query string) (*duck.Stmt, error) {
	if err := checkSelect(ctx, query); err != nil {
		return nil, err
	}
	ds, err := c.Prepare(query)
	if err != nil {
		return nil, err
	}
	stmt, ok := ds.(*duck.Stmt)
	if !ok {
		ds.Close()
		return nil, fmt.Errorf("unexpected driver statement %T", ds)
	}
	typ, err := stmt.StatementType()
	if err != nil {
		stmt.Close()
		return nil, err
	}
	if typ != duck.STATEMENT_TYPE_SELECT {
		stmt.Close()
		return nil, &refusal{fmt.Sprintf("only a read-only SELECT (or WITH ... SELECT) statement is allowed; this is a %s statement", statementTypeName(typ))}
	}
	return stmt, nil
}

// run executes the prepared SELECT, keeping the first MaxRows rows and
// counting the rest without holding them. With b, stmt is the query wrapped
// in clinsql_keep (see budget.go): the rows it returns are the ones kept,
// b counted them all, and names are the query's own column names.
func (l *local) run(ctx context.Context, stmt *duck.Stmt, names []string, b *budget) (*executor.Result, error) {
	rows, err := stmt.QueryContext(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if names == nil {
		names = rows.Columns()
	}
	typed, ok := rows.(driver.RowsColumnTypeDatabaseTypeName)
	if !ok {
		return nil, fmt.Errorf("driver rows %T do not report column types", rows)
	}
	res := &executor.Result{Columns: make([]executor.Column, len(names))}
	types := make([]*duckType, len(names))
	for i, name := range names {
		t, err := parseDuckType(typed.ColumnTypeDatabaseTypeName(i))
		if err != nil {
			return nil, &unsupported{fmt.Sprintf("column %q: %v", name, err)}
		}
		types[i] = t
		res.Columns[i] = executor.Column{Name: name, Type: executor.Type(t.bigQuery())}
	}
	keep := executor.NewKeeper(l.cfg.MaxRows, l.cfg.MaxResultBytes)
	dst := make([]driver.Value, len(names))
	var total int64
	for {
		if total&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		err := rows.Next(dst)
		if errors.Is(err, errEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		total++
		if keep.Full() {
			continue
		}
		row := make([]any, len(dst))
		for i, v := range dst {
			cv, err := types[i].convert(v)
			if err != nil {
				return nil, &unsupported{fmt.Sprintf("column %q: %v", names[i], err)}
			}
			row[i] = cv
		}
		if keep.Keep(row) {
			res.Rows = append(res.Rows, row)
		}
	}
	if b != nil {
		// The filter kept a prefix within the caps; the Go side may have
		// measured the converted values a little larger and kept fewer.
		b.mu.Lock()
		defer b.mu.Unlock()
		if keep.Finish(res, b.total); b.keep.ByteCapped() {
			res.ByteCapped = res.Truncated
		}
		return res, nil
	}
	keep.Finish(res, total)
	return res, nil
}

// unsupported marks a result this engine cannot represent faithfully.
type unsupported struct{ msg string }

func (u *unsupported) Error() string { return u.msg }
