package mimic

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// PlainLoad is the benchmark baseline for [Build]: DuckDB's plain
// `CREATE TABLE t AS SELECT * FROM read_csv('<file>')` of every table file
// under dir, one after the other, types and dialect auto-detected, on
// threads DuckDB threads. It is the limit of loading through DuckDB's CSV
// reader: Build does the same reading with the schema's explicit types plus
// its checks, bookkeeping and derived table. The database it writes is not
// one clinsql can use (no schemas, inferred types).
func PlainLoad(ctx context.Context, dir, out string, threads int, memory string) (*Report, error) {
	start := time.Now()
	if err := checkMimicDir(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(out); err == nil {
		return nil, fmt.Errorf("plain load: %s already exists", out)
	}
	q := url.Values{}
	if threads > 0 {
		q.Set("threads", strconv.Itoa(threads))
	}
	if memory != "" {
		q.Set("memory_limit", memory)
	}
	db, err := sql.Open("duckdb", out+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("plain load: %w", err)
	}
	defer db.Close()
	rep := &Report{Out: out}
	for _, t := range V31.Tables {
		if t.Module == "" {
			continue
		}
		p, ok := tableFile(dir, t)
		if !ok {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		tstart := time.Now()
		stmt := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_csv(%s)", ident(t.Module+"_"+t.Name), quote(abs))
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("plain load %s: %w", p, err)
		}
		d := time.Since(tstart)
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+ident(t.Module+"_"+t.Name)).Scan(&n); err != nil {
			return nil, fmt.Errorf("plain load %s: %w", p, err)
		}
		rel, _ := filepath.Rel(dir, p)
		rep.Tables = append(rep.Tables, TableReport{Table: t.FullName(), File: filepath.ToSlash(rel), Rows: n, Duration: d})
	}
	if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return nil, fmt.Errorf("plain load: %w", err)
	}
	if err := db.Close(); err != nil {
		return nil, fmt.Errorf("plain load: %w", err)
	}
	rep.Duration = time.Since(start)
	st, err := os.Stat(out)
	if err != nil {
		return nil, err
	}
	rep.Bytes = st.Size()
	if len(rep.Tables) == 0 {
		return nil, errors.New("plain load: no table files under " + dir)
	}
	return rep, nil
}
