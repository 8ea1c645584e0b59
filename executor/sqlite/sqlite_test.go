package sqlite_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/executor/sqlite/sqlitetest"
	"github.com/clinsql/clinsql/internal/shared"
)

// fixture mimics the EHRSQL schema's quirks: TIMESTAMP(0) columns holding
// text, an INT column holding text, a DOUBLE PRECISION column holding
// integers and reals.
const fixture = `
CREATE TABLE events (
    row_id INT NOT NULL PRIMARY KEY,
    charttime TIMESTAMP(0),
    valuenum DOUBLE PRECISION,
    code INT,
    label VARCHAR(20),
    payload BLOB
);
INSERT INTO events VALUES (0, '2100-01-01 00:00:00', 1.5, 7, 'a', x'00ff');
INSERT INTO events VALUES (1, '2100-06-30 12:30:00', 2, 'icd9|4019', 'b', NULL);
INSERT INTO events VALUES (2, NULL, NULL, NULL, CAST(x'61ff62' AS TEXT), x'');
CREATE TABLE empty (x TEXT, y TIMESTAMP(0), z);
`

func open(t *testing.T, opt sqlite.Options) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(sqlitetest.Build(t, fixture), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestValuesFollowStorageClass(t *testing.T) {
	db := open(t, sqlite.Options{})
	res, err := db.Query(context.Background(), "SELECT charttime, valuenum, code, label, payload FROM events ORDER BY row_id")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"2100-01-01 00:00:00", 1.5, int64(7), "a", []byte{0, 0xff}},
		// DOUBLE PRECISION has REAL affinity: 2 is stored as 2.0; INT
		// affinity keeps text that does not look like a number.
		{"2100-06-30 12:30:00", 2.0, "icd9|4019", "b", nil},
		// Invalid UTF-8 bytes are dropped, as Python's errors="ignore".
		{nil, nil, nil, "ab", []byte{}},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows = %#v\nwant %#v", res.Rows, want)
	}
	wantCols := []executor.Column{
		{Name: "charttime", Type: "STRING"},
		{Name: "valuenum", Type: "FLOAT64"},
		{Name: "code", Type: "INT64"}, // mixed INTEGER and TEXT: declared INT
		{Name: "label", Type: "STRING"},
		{Name: "payload", Type: "BYTES"},
	}
	if !reflect.DeepEqual(res.Columns, wantCols) {
		t.Errorf("columns = %v, want %v", res.Columns, wantCols)
	}
	if res.TotalRows != 3 || res.Truncated {
		t.Errorf("TotalRows = %d, Truncated = %v", res.TotalRows, res.Truncated)
	}
}

func TestColumnTypes(t *testing.T) {
	db := open(t, sqlite.Options{})
	for _, tc := range []struct {
		sql  string
		want []executor.Type
	}{
		{"SELECT x, y, z FROM empty", []executor.Type{"STRING", "STRING", "STRING"}},
		{"SELECT 1, 1.5, 'a', x'01', NULL", []executor.Type{"INT64", "FLOAT64", "STRING", "BYTES", "STRING"}},
		{"SELECT 1 UNION ALL SELECT 2.5", []executor.Type{"FLOAT64"}},
		{"SELECT code FROM events WHERE row_id = 0", []executor.Type{"INT64"}},
		{"SELECT row_id FROM events WHERE row_id < 0", []executor.Type{"INT64"}},
	} {
		res, err := db.Query(context.Background(), tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		var got []executor.Type
		for _, c := range res.Columns {
			got = append(got, c.Type)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: types %v, want %v", tc.sql, got, tc.want)
		}
	}
}

func TestSpecialFloats(t *testing.T) {
	db := open(t, sqlite.Options{})
	res, err := db.Query(context.Background(), "SELECT 1e999, -1e999, -0.0")
	if err != nil {
		t.Fatal(err)
	}
	row := res.Rows[0]
	if !math.IsInf(row[0].(float64), 1) || !math.IsInf(row[1].(float64), -1) {
		t.Errorf("row = %v", row)
	}
}

// TestOneStatement pins the behaviour of Python 3.11's Cursor.execute
// (observed with CPython and SQLite 3.40): the first statement runs and the
// rest may only be whitespace or comments.
func TestOneStatement(t *testing.T) {
	db := open(t, sqlite.Options{})
	for _, tc := range []struct {
		sql   string
		rows  int            // when no error
		class executor.Class // "" for success
	}{
		{"", 0, ""},
		{";", 0, ""},
		{"  ;  ", 0, ""},
		{"-- only a comment", 0, ""},
		{"/* c */", 0, ""},
		{"; SELECT 1", 1, ""},
		{";;SELECT 1", 1, ""},
		{"SELECT 1;", 1, ""},
		{"SELECT 1 ; \r\n\t\f", 1, ""},
		{"SELECT 1; -- done", 1, ""},
		{"SELECT 1;\n-- done\n", 1, ""},
		{"SELECT 1; /* unterminated", 1, ""},
		{"SELECT 1 -- trailing comment", 1, ""},
		{"SELECT 1; /* c */ SELECT 2", 0, executor.ClassRefused},
		{"SELECT 1;;", 0, executor.ClassRefused},
		{"SELECT 1; ;", 0, executor.ClassRefused},
		{"SELECT 1;\v", 0, executor.ClassRefused},     // \v is not skipped
		{"SELECT 1;\u00a0", 0, executor.ClassRefused}, // nor non-ASCII space
		{"SELECT 1;\x00", 0, executor.ClassRefused},   // NUL
		{"SELECT 1; DELETE FROM events", 0, executor.ClassRefused},
		{"NULL", 0, executor.ClassSyntax},
		{"None", 0, executor.ClassSyntax},
	} {
		res, err := db.Query(context.Background(), tc.sql)
		if got := executor.ClassOf(err); got != tc.class {
			t.Errorf("%q: class %q (%v), want %q", tc.sql, got, err, tc.class)
			continue
		}
		if err == nil && len(res.Rows) != tc.rows {
			t.Errorf("%q: %d rows, want %d", tc.sql, len(res.Rows), tc.rows)
		}
	}
	_, err := db.Query(context.Background(), "SELECT 1; SELECT 2")
	var e *executor.Error
	if !errors.As(err, &e) || e.Message != "You can only execute one statement at a time." || e.Engine != "sqlite" {
		t.Errorf("second statement: %v", err)
	}
}

func TestRefusesWhatIsNotARead(t *testing.T) {
	db := open(t, sqlite.Options{})
	for _, sql := range []string{
		"DELETE FROM events",
		"UPDATE events SET code = 1",
		"INSERT INTO events(row_id) VALUES (9)",
		"CREATE TABLE t(x)",
		"CREATE TEMP TABLE t(x)",
		"DROP TABLE events",
		"PRAGMA case_sensitive_like = 1",
		"PRAGMA table_info(events)",
		"ATTACH DATABASE ':memory:' AS other",
		"BEGIN",
		"ANALYZE",
	} {
		if _, err := db.Query(context.Background(), sql); executor.ClassOf(err) != executor.ClassRefused {
			t.Errorf("%s: %v, want refused", sql, err)
		}
	}
	// The data is intact and the connection still answers.
	res, err := db.Query(context.Background(), "SELECT count(*) FROM events")
	if err != nil || res.Rows[0][0] != int64(3) {
		t.Errorf("after refusals: %v, %v", res, err)
	}
}

func TestErrorsAreClassified(t *testing.T) {
	db := open(t, sqlite.Options{})
	for _, tc := range []struct {
		sql   string
		class executor.Class
		msg   string
	}{
		{"SELECT nope FROM events", executor.ClassSyntax, "no such column: nope"},
		{"SELECT * FROM nowhere", executor.ClassSyntax, "no such table: nowhere"},
		{"SELEC 1", executor.ClassSyntax, `near "SELEC": syntax error`},
		{"SELECT abs(-9223372036854775808)", executor.ClassRuntime, "integer overflow"},
		{`SELECT json_extract('{', '$')`, executor.ClassRuntime, "malformed JSON"},
	} {
		_, err := db.Query(context.Background(), tc.sql)
		var e *executor.Error
		if !errors.As(err, &e) || e.Class != tc.class || e.Message != tc.msg {
			t.Errorf("%s: %v, want %s %q", tc.sql, err, tc.class, tc.msg)
		}
	}
}

func TestDoubleQuotedStringLiterals(t *testing.T) {
	db := open(t, sqlite.Options{})
	res, err := db.Query(context.Background(), `SELECT label FROM events WHERE label = "a"`)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("%v, %v", res, err)
	}
}

const runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

func TestTimeoutInterruptsRunawayQuery(t *testing.T) {
	db := open(t, sqlite.Options{Limits: executor.Limits{Timeout: 200 * time.Millisecond}})
	_, err := db.Query(context.Background(), runaway)
	if executor.ClassOf(err) != executor.ClassTimeout {
		t.Fatalf("runaway query: %v, want timeout", err)
	}
	// The interrupted connection is reused and works.
	for range 3 {
		if _, err := db.Query(context.Background(), "SELECT 1"); err != nil {
			t.Fatalf("after timeout: %v", err)
		}
	}
}

func TestCancellationInterruptsRunawayQuery(t *testing.T) {
	db := open(t, sqlite.Options{Limits: executor.Limits{Timeout: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := db.Query(ctx, runaway)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	// Without the interrupt this query would run for the hour.
	err := <-done
	if !errors.Is(err, context.Canceled) || executor.ClassOf(err) != executor.ClassInfra {
		t.Fatalf("cancelled query: %v (class %s)", err, executor.ClassOf(err))
	}
}

func TestRowCap(t *testing.T) {
	db := open(t, sqlite.Options{Limits: executor.Limits{MaxRows: 5}})
	res, err := db.Query(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20) SELECT x FROM c")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 5 || !res.Truncated || res.TotalRows != 20 {
		t.Errorf("rows %d, truncated %v, total %d", len(res.Rows), res.Truncated, res.TotalRows)
	}
}

func TestConcurrentQueries(t *testing.T) {
	db := open(t, sqlite.Options{MaxIdle: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			res, err := db.Query(context.Background(), "SELECT count(*) FROM events WHERE row_id <= ?1 OR 1")
			if err == nil && res.Rows[0][0] != int64(3) {
				err = errors.New("wrong count")
			}
			if i%4 == 0 {
				_, err2 := db.Query(context.Background(), "SELECT nope")
				if executor.ClassOf(err2) != executor.ClassSyntax {
					err = err2
				}
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.sqlite")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o444); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.sqlite"), dir, notDB} {
		db, err := sqlite.Open(path, sqlite.Options{})
		if err == nil {
			db.Close()
			t.Errorf("Open(%s) succeeded", path)
			continue
		}
		if !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Errorf("Open(%s): %v does not name the file", path, err)
		}
	}
}

func TestOddPath(t *testing.T) {
	b, err := os.ReadFile(sqlitetest.Build(t, fixture))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "a b#c?d%20e")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "db 1.sqlite")
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if res, err := db.Query(context.Background(), "SELECT count(*) FROM events"); err != nil || res.Rows[0][0] != int64(3) {
		t.Errorf("%v %v", res, err)
	}
}

func TestClosed(t *testing.T) {
	db := open(t, sqlite.Options{})
	db.Close()
	if _, err := db.Query(context.Background(), "SELECT 1"); executor.ClassOf(err) != executor.ClassInfra {
		t.Errorf("query after Close: %v", err)
	}
}

// TestEHRSQLDatabase reads the real mimic_iv.sqlite: TIMESTAMP(0) columns
// come back as the text Python sees.
func TestEHRSQLDatabase(t *testing.T) {
	path := shared.Path(t, "ehrsql-2024", "mimic_iv", "mimic_iv.sqlite")
	db, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Query(context.Background(), "SELECT admittime, subject_id, age FROM admissions ORDER BY row_id LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	row := res.Rows[0]
	if s, ok := row[0].(string); !ok || len(s) != len("2100-01-01 00:00:00") {
		t.Errorf("admittime = %#v, want ISO text", row[0])
	}
	if _, ok := row[1].(int64); !ok {
		t.Errorf("subject_id = %#v, want int64", row[1])
	}
	for _, n := range []string{"patients", "admissions", "labevents", "chartevents", "cost"} {
		if _, err := db.Query(context.Background(), "SELECT count(*) FROM "+n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestByteCap(t *testing.T) {
	db := open(t, sqlite.Options{Limits: executor.Limits{MaxResultBytes: 50_000}})
	res, err := db.Query(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300) SELECT x, printf('%.*c', 10000, 'x') FROM c")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || !res.Truncated || !res.ByteCapped || res.TotalRows != 300 {
		t.Errorf("rows %d, truncated %v, byte capped %v, total %d", len(res.Rows), res.Truncated, res.ByteCapped, res.TotalRows)
	}
}
