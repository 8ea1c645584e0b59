package mimic

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The build's own bookkeeping, kept in the database beside the facts: what
// a resumed build needs to know (which tables are done, from which file) and
// what the manifest reports (rows per table).
const (
	stateTable  = "clinsql_meta.build_state"
	tablesTable = "clinsql_meta.build_tables"
)

var stateDDL = []string{
	"CREATE SCHEMA IF NOT EXISTS clinsql_meta",
	"CREATE TABLE " + stateTable + " (source_dir VARCHAR, schema_sha256 VARCHAR, attempts INTEGER)",
	// One row per table, written in the transaction that loads it: a
	// table is done exactly when its row is committed.
	"CREATE TABLE " + tablesTable + ` (table_name VARCHAR PRIMARY KEY, file VARCHAR, file_bytes BIGINT,
		file_mtime_ns BIGINT, file_sha256 VARCHAR, rows BIGINT, missing BOOLEAN, derived BOOLEAN,
		attempt INTEGER, seconds DOUBLE)`,
}

// doneTable is a committed row of tablesTable.
type doneTable struct {
	Table    string
	File     string
	Bytes    int64
	MtimeNS  int64
	SHA256   string
	Rows     int64
	Missing  bool
	Derived  bool
	Attempt  int
	Duration time.Duration
}

// source is a table's file as found on disk: its identity decides whether
// a table loaded by an earlier attempt is still current.
type source struct {
	Rel     string // slash-separated, relative to the MIMIC folder
	Abs     string
	Bytes   int64
	MtimeNS int64
}

func statSource(dir string, t *Table) (source, bool, error) {
	p, ok := tableFile(dir, t)
	if !ok {
		return source{}, false, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return source{}, false, err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return source{}, false, err
	}
	rel, _ := filepath.Rel(dir, p)
	return source{Rel: filepath.ToSlash(rel), Abs: abs, Bytes: st.Size(), MtimeNS: st.ModTime().UnixNano()}, true, nil
}

// current reports whether a done table still stands for its file.
func (d doneTable) current(src source, found bool) bool {
	if d.Derived {
		return true
	}
	if !found {
		return d.Missing
	}
	return !d.Missing && d.File == src.Rel && d.Bytes == src.Bytes && d.MtimeNS == src.MtimeNS
}

// schemaSHA256 fingerprints the schema's tables and column types: a partial
// build of another schema is not resumed.
func schemaSHA256(s *Schema) string {
	h := sha256.New()
	for _, t := range s.Tables {
		fmt.Fprintf(h, "%s.%s\n", t.Dataset, t.Name)
		for _, c := range t.Columns {
			fmt.Fprintf(h, "\t%s %s\n", c.Name, c.Type)
		}
		// A partial build whose tables were stored in another order is
		// started over rather than finished in a mix.
		if t.StoreOrder != "" {
			fmt.Fprintf(h, "\torder by %s\n", t.StoreOrder)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// buildState is what an earlier attempt left in a partial database.
type buildState struct {
	SourceDir string
	SchemaSum string
	Attempts  int
	Done      map[string]doneTable
}

// readState reads the bookkeeping of a partial build; an error means the
// file cannot be resumed.
func readState(ctx context.Context, conn *sql.Conn) (*buildState, error) {
	st := &buildState{Done: map[string]doneTable{}}
	err := conn.QueryRowContext(ctx, "SELECT source_dir, schema_sha256, attempts FROM "+stateTable).Scan(&st.SourceDir, &st.SchemaSum, &st.Attempts)
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, `SELECT table_name, coalesce(file, ''), coalesce(file_bytes, 0), coalesce(file_mtime_ns, 0),
		coalesce(file_sha256, ''), rows, missing, derived, attempt, seconds FROM `+tablesTable)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var d doneTable
		var secs float64
		if err := rows.Scan(&d.Table, &d.File, &d.Bytes, &d.MtimeNS, &d.SHA256, &d.Rows, &d.Missing, &d.Derived, &d.Attempt, &secs); err != nil {
			return nil, err
		}
		d.Duration = time.Duration(secs * float64(time.Second))
		st.Done[d.Table] = d
	}
	return st, rows.Err()
}

// execer is what both *sql.Conn and *sql.Tx offer.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func recordDone(ctx context.Context, ex execer, d doneTable) error {
	var file, sum any
	if d.File != "" {
		file = d.File
	}
	if d.SHA256 != "" {
		sum = d.SHA256
	}
	_, err := ex.ExecContext(ctx, "INSERT OR REPLACE INTO "+tablesTable+" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		d.Table, file, d.Bytes, d.MtimeNS, sum, d.Rows, d.Missing, d.Derived, d.Attempt, d.Duration.Seconds())
	return err
}

// openState prepares the database at path for this attempt: it resumes a
// partial build of the same source folder and schema, or starts a new one
// (creating every schema and table). It returns the state and whether an
// earlier attempt was resumed.
func openState(ctx context.Context, conn *sql.Conn, schema *Schema, dir string, fresh bool) (*buildState, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if !fresh {
		st, err := readState(ctx, conn)
		if err != nil {
			return nil, fmt.Errorf("partial build unreadable: %w", err)
		}
		if st.SourceDir != absDir {
			return nil, fmt.Errorf("partial build is of %s, not %s", st.SourceDir, absDir)
		}
		if st.SchemaSum != schemaSHA256(schema) {
			return nil, errors.New("partial build is of another schema")
		}
		st.Attempts++
		if _, err := conn.ExecContext(ctx, "UPDATE "+stateTable+" SET attempts = ?", st.Attempts); err != nil {
			return nil, err
		}
		return st, nil
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	seen := map[string]bool{}
	for _, t := range schema.Tables {
		if !seen[t.Dataset] {
			seen[t.Dataset] = true
			if _, err := tx.ExecContext(ctx, "CREATE SCHEMA "+ident(t.Dataset)); err != nil {
				return nil, fmt.Errorf("create schema %s: %w", t.Dataset, err)
			}
		}
		if err := createTable(ctx, tx, t); err != nil {
			return nil, err
		}
	}
	for _, s := range stateDDL {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Fields(s)[2], err)
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+stateTable+" VALUES (?, ?, 1)", absDir, schemaSHA256(schema)); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return &buildState{SourceDir: absDir, SchemaSum: schemaSHA256(schema), Attempts: 1, Done: map[string]doneTable{}}, nil
}
