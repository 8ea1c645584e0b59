package bqsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	engine "github.com/clinsql/clinsql/executor/duckdb"
)

// openDuck opens an in-memory DuckDB whose every connection runs Prelude,
// the way the embedded engine does.
func openDuck(tb testing.TB) *sql.DB {
	tb.Helper()
	db := openDuckShared()
	tb.Cleanup(func() { db.Close() })
	return db
}

// openDuckShared opens an in-memory database that outlives any one test.
func openDuckShared() *sql.DB {
	conn, err := duckdb.NewConnector("", func(ex driver.ExecerContext) error {
		_, err := ex.ExecContext(context.Background(), Prelude, nil)
		return err
	})
	if err != nil {
		panic(err) // only fails on a malformed DSN
	}
	db := sql.OpenDB(conn)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := engine.RegisterFunctions(ctx, c, duckFunctions()); err != nil {
		panic(err)
	}
	return db
}

// duckFunctions are Functions as the DuckDB engine registers them.
func duckFunctions() []engine.Function {
	var out []engine.Function
	for _, f := range Functions() {
		out = append(out, engine.Function(f))
	}
	return out
}

// queryRows runs translated SQL and returns all rows as strings (NULL as
// "NULL").
func queryRows(ctx context.Context, db *sql.DB, q string) ([][]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func TestPreludeRuns(t *testing.T) {
	db := openDuck(t)
	if _, err := queryRows(context.Background(), db, "SELECT bq_div(1, 2)"); err != nil {
		t.Fatal(err)
	}
}
