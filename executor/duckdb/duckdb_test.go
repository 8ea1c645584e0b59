package duckdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/executortest"
)

// makeDB creates a DuckDB file holding the tables the statements create.
func makeDB(t testing.TB, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func openEngine(t testing.TB, path string, opts Options) *Engine {
	t.Helper()
	e, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func fileSum(t testing.TB, path string) [32]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

var fixture = []string{
	`CREATE SCHEMA mimiciv_3_1_hosp`,
	`CREATE TABLE mimiciv_3_1_hosp.patients (subject_id BIGINT, gender VARCHAR, anchor_age BIGINT, dod DATE)`,
	`INSERT INTO mimiciv_3_1_hosp.patients VALUES (1, 'F', 70, DATE '2180-07-23'), (2, 'M', 52, NULL), (3, 'M', 91, NULL)`,
}

func classOf(t *testing.T, err error) executor.Class {
	t.Helper()
	var xe *executor.Error
	if !errors.As(err, &xe) {
		t.Fatalf("error %v (%T) is not an *executor.Error", err, err)
	}
	if xe.Engine != EngineName {
		t.Errorf("engine %q, want %q", xe.Engine, EngineName)
	}
	return xe.Class
}

func TestQueryValuesAndTypes(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{})
	res, err := e.Query(context.Background(), `
		SELECT 42::BIGINT AS i, 7::INTEGER AS i32, 0.1::DOUBLE AS f, 0.1::FLOAT AS f32, 1.50::DECIMAL(5,2) AS n,
		       true AS b, 'x' AS s, '\x00\xff'::BLOB AS y, DATE '2180-07-23' AS d,
		       TIMESTAMP '2180-07-23 12:35:00.5' AS dt, TIME '07:05:09' AS t,
		       TIMESTAMPTZ '2024-01-02 03:04:05+00' AS ts, INTERVAL 3 DAY AS iv,
		       [1, 2, NULL] AS arr, {'b': 1, 'a': 'z'} AS st, NULL AS nul,
		       [{'x': 1.5::DOUBLE}] AS arrst, 170141183460469231731687303715884105727::HUGEINT // 1000000000000000000000000000000::HUGEINT AS big`)
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := []executor.Type{"INT64", "INT64", "FLOAT64", "FLOAT64", "NUMERIC", "BOOL", "STRING", "BYTES", "DATE",
		"DATETIME", "TIME", "TIMESTAMP", "INTERVAL", "ARRAY<INT64>", "STRUCT<b INT64, a STRING>", "INT64",
		"ARRAY<STRUCT<x FLOAT64>>", "INT64"}
	if len(res.Columns) != len(wantTypes) {
		t.Fatalf("got %d columns, want %d", len(res.Columns), len(wantTypes))
	}
	for i, c := range res.Columns {
		if c.Type != wantTypes[i] {
			t.Errorf("column %s: type %s, want %s", c.Name, c.Type, wantTypes[i])
		}
	}
	want := []any{int64(42), int64(7), 0.1, 0.1, big.NewRat(3, 2), true, "x", []byte{0, 255},
		civil.Date{Year: 2180, Month: 7, Day: 23},
		civil.DateTime{Date: civil.Date{Year: 2180, Month: 7, Day: 23}, Time: civil.Time{Hour: 12, Minute: 35, Nanosecond: 500000000}},
		civil.Time{Hour: 7, Minute: 5, Second: 9}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "0-0 3 0:0:0",
		[]any{int64(1), int64(2), nil}, executor.Struct{{Name: "b", Value: int64(1)}, {Name: "a", Value: "z"}}, nil,
		[]any{executor.Struct{{Name: "x", Value: 1.5}}}, int64(170141183)}
	if len(res.Rows) != 1 {
		t.Fatalf("got %d rows", len(res.Rows))
	}
	for i, w := range want {
		got := res.Rows[0][i]
		if !executortest.EqualValue(got, w) {
			t.Errorf("column %s: got %#v, want %#v", res.Columns[i].Name, got, w)
		}
	}
	if res.Truncated || res.TotalRows != 1 {
		t.Errorf("Truncated=%v TotalRows=%d", res.Truncated, res.TotalRows)
	}
	if res.Stats.Duration <= 0 {
		t.Error("no duration recorded")
	}
}

func TestHostileSQLRefused(t *testing.T) {
	path := makeDB(t, fixture...)
	before := fileSum(t, path)
	e := openEngine(t, path, Options{})
	cases := []struct {
		name, sql string
		class     executor.Class
	}{
		{"drop table", `DROP TABLE mimiciv_3_1_hosp.patients`, executor.ClassRefused},
		{"insert", `INSERT INTO mimiciv_3_1_hosp.patients VALUES (9, 'F', 1, NULL)`, executor.ClassRefused},
		{"update", `UPDATE mimiciv_3_1_hosp.patients SET gender = 'X'`, executor.ClassRefused},
		{"delete", `DELETE FROM mimiciv_3_1_hosp.patients`, executor.ClassRefused},
		{"create table as", `CREATE TABLE t AS SELECT 1`, executor.ClassRefused},
		{"with insert", `WITH x AS (SELECT 1) INSERT INTO mimiciv_3_1_hosp.patients SELECT 5, 'F', 1, NULL`, executor.ClassRefused},
		{"attach", `ATTACH '/tmp/clinsql-hostile.duckdb' AS h`, executor.ClassRefused},
		{"detach", `DETACH test`, executor.ClassRefused},
		{"copy to", `COPY mimiciv_3_1_hosp.patients TO '/tmp/clinsql-hostile.csv'`, executor.ClassRefused},
		{"copy select to", `COPY (SELECT * FROM mimiciv_3_1_hosp.patients) TO '/tmp/clinsql-hostile.csv'`, executor.ClassRefused},
		{"install", `INSTALL httpfs`, executor.ClassRefused},
		{"load", `LOAD httpfs`, executor.ClassRefused},
		{"pragma", `PRAGMA version`, executor.ClassRefused},
		{"set", `SET threads = 64`, executor.ClassRefused},
		{"reset", `RESET memory_limit`, executor.ClassRefused},
		{"checkpoint", `CHECKPOINT`, executor.ClassRefused},
		{"export", `EXPORT DATABASE '/tmp/clinsql-hostile'`, executor.ClassRefused},
		{"call", `CALL pragma_version()`, executor.ClassRefused},
		{"explain", `EXPLAIN SELECT 1`, executor.ClassRefused},
		{"begin", `BEGIN TRANSACTION`, executor.ClassRefused},
		{"create macro", `CREATE MACRO m(x) AS x + 1`, executor.ClassRefused},
		{"two statements", `SELECT 1; SELECT 2`, executor.ClassRefused},
		{"select then drop", `SELECT 1; DROP TABLE mimiciv_3_1_hosp.patients`, executor.ClassRefused},
		{"comment-hidden second statement", "SELECT 1 -- harmless\n; DROP TABLE mimiciv_3_1_hosp.patients", executor.ClassRefused},
		{"block-comment-hidden second statement", "SELECT 1 /* x */; /* y */ DELETE FROM mimiciv_3_1_hosp.patients", executor.ClassRefused},
		{"read file", `SELECT * FROM read_csv('/etc/passwd')`, executor.ClassRefused},
		{"write via copy function", `SELECT * FROM read_text('/etc/hostname')`, executor.ClassRefused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Query(context.Background(), c.sql)
			if err == nil {
				t.Fatal("query ran, want it refused")
			}
			if got := classOf(t, err); got != c.class {
				t.Errorf("class %s, want %s (%v)", got, c.class, err)
			}
			if msg := err.Error(); !strings.Contains(msg, "statement") && !strings.Contains(strings.ToLower(msg), "permission") {
				t.Errorf("unclear message: %v", err)
			}
		})
	}
	// The table is intact, the file unchanged, nothing was written elsewhere.
	res, err := e.Query(context.Background(), `SELECT count(*) AS n FROM mimiciv_3_1_hosp.patients`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0][0] != int64(3) {
		t.Errorf("patients has %v rows, want 3", res.Rows[0][0])
	}
	for _, p := range []string{"/tmp/clinsql-hostile.csv", "/tmp/clinsql-hostile.duckdb", "/tmp/clinsql-hostile"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if after := fileSum(t, path); after != before {
		t.Error("database file checksum changed")
	}
}

// openLocal opens the database in this process, as a worker does, with
// the defaults Open fills in.
func openLocalDB(t *testing.T, path string, cfg setup) *local {
	t.Helper()
	cfg.Path = path
	cfg.TempDir = t.TempDir()
	cfg.TempLimit = DefaultTempLimit
	cfg.MaxConns = DefaultMaxConns
	cfg.MaxRows = DefaultMaxRows
	cfg.MaxResultBytes = executor.DefaultMaxResultBytes
	l, err := openLocal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.close() })
	return l
}

func TestConfigurationLocked(t *testing.T) {
	e := openLocalDB(t, makeDB(t, fixture...), setup{Threads: 1, MemoryLimit: "256MB"})
	// A raw connection bypasses the statement check: the database itself must
	// still refuse changes.
	conn, err := e.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range []string{
		`SET threads = 8`,
		`SET enable_external_access = true`,
		`SET lock_configuration = false`,
		`CREATE TABLE x (a INT)`,
		`INSTALL httpfs`,
	} {
		if _, err := conn.ExecContext(context.Background(), s); err == nil {
			t.Errorf("%s succeeded on a raw connection", s)
		}
	}
	// Every pooled connection sees the locked settings (read through the
	// pool directly: model SQL may not read settings, see TestHostPathsHidden).
	for i := 0; i < 6; i++ {
		var threads int64
		var external, autoload, locked bool
		var mode, temp string
		err := e.db.QueryRowContext(context.Background(), `SELECT current_setting('threads') AS t, current_setting('enable_external_access') AS x, current_setting('autoload_known_extensions') AS a, current_setting('lock_configuration') AS l, current_setting('access_mode') AS m, current_setting('temp_directory') AS d`).
			Scan(&threads, &external, &autoload, &locked, &mode, &temp)
		if err != nil {
			t.Fatal(err)
		}
		if threads != 1 || external || autoload || !locked || !strings.EqualFold(mode, "read_only") || temp != e.cfg.TempDir {
			t.Errorf("settings %v %v %v %v %v %v", threads, external, autoload, locked, mode, temp)
		}
	}
}

func TestErrorClasses(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{})
	cases := []struct {
		name, sql string
		class     executor.Class
	}{
		{"parse error", `SELEC 1`, executor.ClassSyntax},
		{"unknown table", `SELECT * FROM mimiciv_3_1_hosp.nope`, executor.ClassSyntax},
		{"unknown column", `SELECT nope FROM mimiciv_3_1_hosp.patients`, executor.ClassSyntax},
		{"unknown function", `SELECT nope(1)`, executor.ClassSyntax},
		{"type mismatch", `SELECT 'a' + 1`, executor.ClassSyntax},
		{"conversion", `SELECT CAST(gender AS INTEGER) FROM mimiciv_3_1_hosp.patients`, executor.ClassRuntime},
		{"raised error", `SELECT error('boom')`, executor.ClassRuntime},
		{"overflow", `SELECT 9223372036854775807::BIGINT + subject_id FROM mimiciv_3_1_hosp.patients`, executor.ClassRuntime},
		{"empty", `  `, executor.ClassSyntax},
		{"union type has no BigQuery equivalent", `SELECT union_value(k := 1) AS u`, executor.ClassUnsupported},
		{"only a comment", `-- nothing`, executor.ClassRefused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Query(context.Background(), c.sql)
			if err == nil {
				t.Fatal("query ran, want an error")
			}
			if got := classOf(t, err); got != c.class {
				t.Errorf("class %s, want %s (%v)", got, c.class, err)
			}
		})
	}
}

func TestTranslateHookAndPrelude(t *testing.T) {
	path := makeDB(t, fixture...)
	var mu sync.Mutex
	var seen []string
	e := openEngine(t, path, Options{
		Settings: "SET default_null_order = 'nulls_first_on_asc_last_on_desc';",
		Prelude: `CREATE OR REPLACE TEMP MACRO safe_divide(a, b) AS CASE WHEN b = 0 THEN NULL ELSE a / b END;
			CREATE OR REPLACE TEMP MACRO twice(a) AS 2 * a;`,
		Translate: func(_ context.Context, s string) (string, []string, error) {
			mu.Lock()
			seen = append(seen, s)
			mu.Unlock()
			switch {
			case strings.Contains(s, "UNSUPPORTED"):
				return "", nil, unsupportedErr{}
			case strings.Contains(s, "BROKEN"):
				return "", nil, errors.New("unterminated string literal at offset 7")
			}
			return strings.ReplaceAll(s, "`physionet-data.mimiciv_3_1_hosp.patients`", "mimiciv_3_1_hosp.patients"), nil, nil
		},
	})
	res, err := e.Query(context.Background(), "SELECT safe_divide(count(*), 0) AS a, safe_divide(6, 3) AS b FROM `physionet-data.mimiciv_3_1_hosp.patients`")
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0][0] != nil || res.Rows[0][1] != 2.0 {
		t.Errorf("got %v", res.Rows[0])
	}
	if len(seen) != 1 {
		t.Errorf("translator called %d times", len(seen))
	}
	// QueryNative bypasses the translation, not the checks.
	if _, err := e.QueryNative(context.Background(), "SELECT 'UNSUPPORTED' AS x"); err != nil {
		t.Errorf("native query: %v", err)
	}
	if _, err := e.QueryNative(context.Background(), "DROP TABLE mimiciv_3_1_hosp.patients"); classOf(t, err) != executor.ClassRefused {
		t.Errorf("native DROP: %v", err)
	}
	_, err = e.Query(context.Background(), "SELECT UNSUPPORTED")
	if got := classOf(t, err); got != executor.ClassUnsupported {
		t.Errorf("unsupported translation: class %s", got)
	}
	_, err = e.Query(context.Background(), "SELECT 'BROKEN")
	if got := classOf(t, err); got != executor.ClassSyntax {
		t.Errorf("broken translation: class %s", got)
	}
	// The prelude's temporary macros exist on every pooled connection, and
	// the settings hold on each of them.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			res, err := e.Query(ctx, "SELECT twice(safe_divide(4, 2)) AS x, (SELECT list(v ORDER BY v) FROM (VALUES (2), (NULL), (1)) t(v)) AS l")
			if err == nil && (res.Rows[0][0] != 4.0 || !executortest.EqualValue(res.Rows[0][1], []any{nil, int64(1), int64(2)})) {
				err = fmt.Errorf("got %v", res.Rows[0])
			}
			results <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
}

type unsupportedErr struct{}

func (unsupportedErr) Error() string {
	return "UNNEST of a value table is unsupported in the embedded engine"
}
func (unsupportedErr) Unsupported() bool { return true }

func TestMapAndUUIDValues(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{})
	res, err := e.Query(context.Background(), `SELECT MAP {'b': 2, 'a': 1} AS m, '00112233-4455-6677-8899-aabbccddeeff'::UUID AS u, '{"x": 1}'::JSON AS j`)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Columns[0].Type; got != "ARRAY<STRUCT<key STRING, value INT64>>" {
		t.Errorf("map type %s", got)
	}
	want := []any{executor.Struct{{Name: "key", Value: "b"}, {Name: "value", Value: int64(2)}}, executor.Struct{{Name: "key", Value: "a"}, {Name: "value", Value: int64(1)}}}
	if !executortest.EqualValue(res.Rows[0][0], want) {
		t.Errorf("map value %#v", res.Rows[0][0])
	}
	if res.Columns[1].Type != "STRING" || res.Rows[0][1] != "00112233-4455-6677-8899-aabbccddeeff" {
		t.Errorf("uuid %s %#v", res.Columns[1].Type, res.Rows[0][1])
	}
	if res.Columns[2].Type != "JSON" || res.Rows[0][2] != `{"x":1}` {
		t.Errorf("json %s %#v", res.Columns[2].Type, res.Rows[0][2])
	}
}

func TestRowCap(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Limits: executor.Limits{MaxRows: 2}})
	res, err := e.Query(context.Background(), `SELECT subject_id FROM mimiciv_3_1_hosp.patients ORDER BY subject_id`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || !res.Truncated || res.TotalRows != 3 {
		t.Fatalf("rows=%d truncated=%v total=%d", len(res.Rows), res.Truncated, res.TotalRows)
	}
	if res.Rows[0][0] != int64(1) || res.Rows[1][0] != int64(2) {
		t.Errorf("kept %v, want the first rows", res.Rows)
	}
	res, err = e.Query(context.Background(), `SELECT subject_id FROM mimiciv_3_1_hosp.patients WHERE subject_id < 3`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Truncated || res.TotalRows != 2 {
		t.Errorf("exactly at the cap: truncated=%v total=%d", res.Truncated, res.TotalRows)
	}
}

// TestTenMillionRowsCapped checks that a 10-million-row result is counted
// without being held: the Go heap stays small whatever the result size.
func TestTenMillionRowsCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// DuckDB materialises the result inside its buffer manager; with a
	// memory limit below the result's size it spills to the engine's private
	// temporary folder, never beside the database file.
	path := makeDB(t, fixture...)
	e := openEngine(t, path, Options{Limits: executor.Limits{MaxRows: 1000}, MemoryLimit: "256MB"})
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := uint64(0)
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		var ms runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	}()
	start := time.Now()
	res, err := e.Query(context.Background(), `SELECT range AS i, range * 2 AS j, 'row ' || range AS s FROM range(10000000)`)
	close(done)
	<-exited
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1000 || !res.Truncated || res.TotalRows != 10_000_000 {
		t.Fatalf("rows=%d truncated=%v total=%d", len(res.Rows), res.Truncated, res.TotalRows)
	}
	if res.Rows[999][0] != int64(999) {
		t.Errorf("row 999 = %v", res.Rows[999])
	}
	grown := int64(peak) - int64(before.HeapInuse)
	t.Logf("10M rows in %v; Go heap in use grew by at most %.1f MiB (peak %.1f MiB); process peak RSS %s",
		time.Since(start).Round(time.Millisecond), float64(grown)/(1<<20), float64(peak)/(1<<20), peakRSS())
	// Holding 10M three-column rows would take well over 1 GiB of Go heap.
	if grown > 64<<20 {
		t.Errorf("Go heap grew by %d MiB while counting rows", grown>>20)
	}
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range ents {
		if ent.Name() != filepath.Base(path) {
			t.Errorf("%s written beside the database file", ent.Name())
		}
	}
}

func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}

// TestRunawayCrossJoinInterrupted: a query that would run for ever (10^18
// rows) is stopped by the timeout and classed a timeout. That it returns at
// all proves the stop; how soon is a measure for a benchmark, not a bound a
// loaded machine could break.
func TestRunawayCrossJoinInterrupted(t *testing.T) {
	const timeout = 1 * time.Second
	e := openEngine(t, makeDB(t, fixture...), Options{Limits: executor.Limits{Timeout: timeout}})
	start := time.Now()
	_, err := e.Query(context.Background(), `SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = 7`)
	took := time.Since(start)
	if err == nil {
		t.Fatal("runaway query finished")
	}
	if got := classOf(t, err); got != executor.ClassTimeout {
		t.Errorf("class %s, want timeout (%v)", got, err)
	}
	t.Logf("runaway cross join stopped after %v (timeout %v)", took.Round(time.Millisecond), timeout)
	// The connection is usable again afterwards.
	if _, err := e.Query(context.Background(), `SELECT 1`); err != nil {
		t.Errorf("query after interrupt: %v", err)
	}
}

// TestCallerCancellationIsInfra: a caller that gives up while its query
// runs (cancelled once the worker holds it: an event, not a time a loaded
// machine may spend before the query starts) stops a query that would run
// for ever, and the failure is the engine's, not the model's.
func TestCallerCancellationIsInfra(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Limits: executor.Limits{Timeout: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Query(ctx, `SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = 7`)
		done <- err
	}()
	waitFor(t, func() bool { return e.sup.inFlight() == 1 })
	cancel()
	err := <-done
	if err == nil {
		t.Fatal("query finished")
	}
	if got := classOf(t, err); got != executor.ClassInfra {
		t.Errorf("class %s, want infra_error for a caller's cancellation (%v)", got, err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing.duckdb"), Options{}); err == nil {
		t.Error("opening a missing file succeeded")
	}
	if _, err := Open(dir, Options{}); err == nil {
		t.Error("opening a directory succeeded")
	}
	bad := filepath.Join(dir, "garbage.duckdb")
	os.WriteFile(bad, []byte("not a database at all, just text"), 0o644)
	if _, err := Open(bad, Options{}); err == nil {
		t.Error("opening a garbage file succeeded")
	}
	if _, err := Open(makeDB(t, fixture...), Options{Prelude: "CREATE MACRO"}); err == nil {
		t.Error("a broken prelude was accepted")
	}
	if _, err := Open(makeDB(t, fixture...), Options{Prelude: "SET threads = 1"}); err == nil {
		t.Error("a prelude changing settings after the lock was accepted")
	}
}

// Each engine's database is open in its own worker process, read-only:
// two engines on one file both work (in one process DuckDB's instance
// cache refused a second configuration of the same file).
func TestTwoEnginesOnOneFile(t *testing.T) {
	path := makeDB(t, fixture...)
	a := openEngine(t, path, Options{})
	b := openEngine(t, path, Options{MemoryLimit: "300MB"})
	for _, e := range []*Engine{a, b} {
		res, err := e.Query(context.Background(), `SELECT count(*) FROM mimiciv_3_1_hosp.patients`)
		if err != nil || res.Rows[0][0] != int64(3) {
			t.Errorf("%v %v", res, err)
		}
	}
}

func TestConcurrentQueries(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{MaxConns: 3})
	errs := make(chan error, 12)
	for i := 0; i < 12; i++ {
		go func() {
			res, err := e.Query(context.Background(), `SELECT count(*) FROM mimiciv_3_1_hosp.patients`)
			if err == nil && res.Rows[0][0] != int64(3) {
				err = errors.New("wrong count")
			}
			errs <- err
		}()
	}
	for i := 0; i < 12; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

var _ = duck.Error{}

// TestShapeRefusesBeforeTranslation: a translator that garbles a DROP into a
// parse error must not turn a refusal into a syntax error.
func TestShapeRefusesBeforeTranslation(t *testing.T) {
	path := makeDB(t, fixture...)
	garble := func(_ context.Context, s string) (string, []string, error) {
		return strings.ReplaceAll(s, "TABLE", `"TABLE"`), nil, nil
	}
	shape := func(s string) string { return strings.ReplaceAll(s, "`", `"`) }
	e := openEngine(t, path, Options{Translate: garble, Shape: shape})
	for _, q := range []string{"DROP TABLE `mimiciv_3_1_hosp.patients`", "SELECT 1; DROP TABLE `x`"} {
		_, err := e.Query(context.Background(), q)
		if got := classOf(t, err); got != executor.ClassRefused {
			t.Errorf("%s: class %s (%v)", q, got, err)
		}
	}
	// A shape DuckDB cannot parse is no verdict: the translation decides.
	res, err := e.Query(context.Background(), "SELECT 1 AS `x` [[[")
	if err == nil || classOf(t, err) != executor.ClassSyntax {
		t.Errorf("unparsable: %v %v", res, err)
	}
	e2 := openEngine(t, makeDB(t, fixture...), Options{Translate: func(context.Context, string) (string, []string, error) { return "SELECT 2 AS y", nil, nil }, Shape: func(string) string { return "SELEC garbage" }})
	if res, err := e2.Query(context.Background(), "anything"); err != nil || res.Rows[0][0] != int64(2) {
		t.Errorf("shape parse failure blocked the query: %v %v", res, err)
	}
	// A script of SELECTs passes the shape check (the dialect runs it as
	// one query); its translated statements are checked one by one.
	last := func(_ context.Context, s string) (string, []string, error) {
		stmts := strings.Split(s, ";")
		return stmts[len(stmts)-1], stmts[:len(stmts)-1], nil
	}
	e3 := openEngine(t, makeDB(t, fixture...), Options{Translate: last, Shape: shape})
	if res, err := e3.Query(context.Background(), "SELECT 1 AS x; SELECT 2 AS y"); err != nil || res.Rows[0][0] != int64(2) {
		t.Errorf("script of SELECTs: %v %v", res, err)
	}
	if _, err := e3.Query(context.Background(), "SELECT 1 AS x; SELECT 2 AS y; DELETE FROM `mimiciv_3_1_hosp.patients`"); classOf(t, err) != executor.ClassRefused {
		t.Errorf("script with a DELETE: %v", err)
	}
}

// TestTimeoutCoversTranslation: the query's timeout runs from before the
// translation, so a translator that is slow on hostile input (issue 13: a
// 1.2 MB query took 117 s to translate under --timeout 2s) is stopped by it
// and the query is classed a timeout, not left to run unbounded. The fake
// translator blocks until its context is done: without the timeout in its
// context the test would hang (the test binary's -timeout catches that).
func TestTimeoutCoversTranslation(t *testing.T) {
	slow := func(ctx context.Context, s string) (string, []string, error) {
		<-ctx.Done()
		return "", nil, fmt.Errorf("translation interrupted: %w", ctx.Err())
	}
	e := openEngine(t, makeDB(t, fixture...), Options{Translate: slow, Limits: executor.Limits{Timeout: 50 * time.Millisecond}})
	_, err := e.Query(context.Background(), "SELECT 1 AS x")
	if got := classOf(t, err); got != executor.ClassTimeout {
		t.Fatalf("class %s (%v), want timeout", got, err)
	}
	// The caller's own cancellation is not a timeout of the query.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Query(ctx, "SELECT 1 AS x"); classOf(t, err) != executor.ClassInfra {
		t.Fatalf("cancelled: %v", err)
	}
}

// BenchmarkQueryOverhead measures the engine's fixed cost per query (parser
// check, prepare, conversion) on a trivial SELECT.
func BenchmarkQueryOverhead(b *testing.B) {
	e := openEngine(b, makeDB(b, fixture...), Options{})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Query(context.Background(), "SELECT subject_id FROM mimiciv_3_1_hosp.patients WHERE subject_id = 2"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDeterministicByDefault: with the default of one thread per query, a
// floating-point sum over millions of rows and the row order of a GROUP BY
// without ORDER BY are the same on every run. (With several threads both
// vary, with the order in which threads finish.)
func TestDeterministicByDefault(t *testing.T) {
	path := makeDB(t, `CREATE TABLE t AS SELECT 1.0 / (i + 1) + 1e-9 * (i % 13) AS x, i % 97 AS g FROM range(3000000) r(i)`)
	e := openEngine(t, path, Options{})
	const q = `SELECT g, SUM(x) AS s FROM t GROUP BY g`
	var first string
	for run := range 4 {
		res, err := e.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(res.Rows)
		if run == 0 {
			first = got
		} else if got != first {
			t.Fatalf("run %d differs from run 0 with the default threads", run)
		}
	}
}

// TestBindChecks: the binds the translator returns are prepared before
// the query and never run; one that fails to bind fails the query as a
// syntax error, and one that is not a single SELECT is refused.
func TestBindChecks(t *testing.T) {
	path := makeDB(t, fixture...)
	check := ""
	e := openEngine(t, path, Options{
		Translate: func(_ context.Context, s string) (string, []string, error) { return s, []string{check}, nil },
	})
	const q = `SELECT count(*) AS n FROM mimiciv_3_1_hosp.patients`
	for _, c := range []struct {
		check string
		class executor.Class
	}{
		{`SELECT subject_id FROM mimiciv_3_1_hosp.patients`, ""},
		{`SELECT nope FROM mimiciv_3_1_hosp.patients`, executor.ClassSyntax},
		{`DELETE FROM mimiciv_3_1_hosp.patients`, executor.ClassRefused},
	} {
		check = c.check
		res, err := e.Query(context.Background(), q)
		switch {
		case c.class == "" && (err != nil || res.Rows[0][0] != int64(3)):
			t.Errorf("check %q: %v, %v", c.check, res, err)
		case c.class != "" && (err == nil || classOf(t, err) != c.class):
			t.Errorf("check %q: error %v, want class %s", c.check, err, c.class)
		}
	}
	// Nothing a check names was executed.
	res, err := e.QueryNative(context.Background(), q)
	if err != nil || res.Rows[0][0] != int64(3) {
		t.Errorf("after the checks: %v, %v", res, err)
	}
}

// Relax reruns a query that failed at run time under redefined macros,
// records its warning, and restores the prelude for the next query on the
// same connection; a redefinition that fails drops the connection.
func TestRelax(t *testing.T) {
	path := makeDB(t, fixture...)
	const strict = `CREATE OR REPLACE TEMP MACRO ratio(a, b) AS CASE WHEN b = 0 THEN CAST('division by zero' AS DOUBLE) ELSE a / b END;`
	var mu sync.Mutex
	var offered []string
	redefine := `CREATE OR REPLACE TEMP MACRO ratio(a, b) AS CASE WHEN b = 0 THEN NULL ELSE a / b END;`
	e := openEngine(t, path, Options{
		MaxConns: 1, // every query on the same connection
		Prelude:  strict,
		Explain: func(msg string) (string, bool) {
			if strings.Contains(msg, "division by zero") {
				return "division by zero", false
			}
			return msg, false
		},
		Relax: func(msg string) (string, string, bool) {
			mu.Lock()
			defer mu.Unlock()
			offered = append(offered, msg)
			if msg != "division by zero" {
				return "", "", false
			}
			return redefine, "relaxed", true
		},
	})
	ctx := context.Background()
	q := `SELECT subject_id, ratio(anchor_age, subject_id - 2) AS r FROM mimiciv_3_1_hosp.patients ORDER BY subject_id`
	for round := 1; round <= 2; round++ {
		res, err := e.Query(ctx, q)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := fmt.Sprint(res.Rows); got != "[[1 -70] [2 <nil>] [3 91]]" || !reflect.DeepEqual(res.Warnings, []string{"relaxed"}) {
			t.Errorf("round %d: rows %s, warnings %q", round, got, res.Warnings)
		}
		// Offered again in round 2: the strict macro was restored.
		if len(offered) != round {
			t.Errorf("round %d: Relax offered %d failures", round, len(offered))
		}
	}
	if res, err := e.Query(ctx, `SELECT ratio(6, 3) AS r`); err != nil || len(res.Warnings) != 0 || len(offered) != 2 {
		t.Errorf("a query that runs: %v, warnings %q, offered %d", err, res.Warnings, len(offered))
	}
	// Only runtime failures are offered, and a refusal keeps the error.
	if _, err := e.Query(ctx, `SELECT ratio(1, 0) + nosuchcolumn`); classOf(t, err) != executor.ClassSyntax || len(offered) != 2 {
		t.Errorf("a bind error was offered to Relax (%v)", err)
	}
	if _, err := e.Query(ctx, `SELECT CAST('x' AS INTEGER) AS n`); classOf(t, err) != executor.ClassRuntime || len(offered) != 3 {
		t.Errorf("declined relaxation: %v, offered %d", err, len(offered))
	}
	// A redefinition that fails: the query fails as infrastructure and the
	// connection is replaced, with the strict prelude.
	redefine = `CREATE OR REPLACE TEMP MACRO ratio(a, b) AS (;`
	if _, err := e.Query(ctx, q); classOf(t, err) != executor.ClassInfra {
		t.Errorf("failed redefinition: %v", err)
	}
	redefine = `CREATE OR REPLACE TEMP MACRO ratio(a, b) AS CASE WHEN b = 0 THEN NULL ELSE a / b END;`
	if res, err := e.Query(ctx, q); err != nil || len(res.Warnings) != 1 {
		t.Errorf("after a dropped connection: %v", err)
	}
}

// The byte cap stops keeping rows while they are read: 300 rows of 10 kB
// under a 50 kB cap keep the first 4, and the true count is still reported.
func TestByteCap(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Limits: executor.Limits{MaxResultBytes: 50_000}})
	res, err := e.QueryNative(context.Background(), `SELECT i, repeat('x', 10000) AS s FROM range(300) t(i) ORDER BY i`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || !res.Truncated || !res.ByteCapped || res.TotalRows != 300 {
		t.Fatalf("rows=%d truncated=%v byteCapped=%v total=%d; want 4 rows of 300, byte capped", len(res.Rows), res.Truncated, res.ByteCapped, res.TotalRows)
	}
	if res.Rows[3][0] != int64(3) {
		t.Errorf("kept %v, want the first rows", res.Rows[3][0])
	}
}

// Model SQL cannot read the engine's settings or the attached files' paths
// (the spill folder, the database file, the home folder): DuckDB's system
// views and functions are refused before the query runs.
func TestHostPathsHidden(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{})
	for _, q := range []string{
		`SELECT name, setting FROM pg_catalog.pg_settings`,
		`SELECT * FROM pg_settings`,
		`SELECT * FROM duckdb_settings()`,
		`SELECT value FROM duckdb_settings() WHERE name = 'temp_directory'`,
		`SELECT current_setting('temp_directory')`,
		`SELECT path FROM duckdb_databases()`,
		`SELECT path FROM duckdb_databases`,
		`SELECT file FROM pragma_database_list`,
		`SELECT * FROM system.main.duckdb_settings`,
		`WITH s AS (SELECT * FROM pg_catalog.pg_settings) SELECT * FROM s`,
		`SELECT (SELECT max(setting) FROM pg_catalog.pg_settings) AS x`,
	} {
		res, err := e.QueryNative(context.Background(), q)
		if executor.ClassOf(err) != executor.ClassRefused {
			t.Errorf("%s: %v %v, want refused", q, res, err)
		}
	}
	// Data and the information schema stay readable.
	for _, q := range []string{`SELECT count(*) FROM mimiciv_3_1_hosp.patients`, `SELECT table_name FROM information_schema.tables`} {
		if _, err := e.QueryNative(context.Background(), q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// The caps are enforced inside DuckDB by wrapping the query (budget.go);
// the wrapper changes nothing a query returns: the first rows in the
// query's own order, its own column names (duplicates included), and
// queries ending in a comment or a semicolon still run.
func TestCapWrapperTransparent(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Limits: executor.Limits{MaxRows: 3, MaxResultBytes: 50_000}})
	cases := []struct {
		sql   string
		cols  []string
		first []any
		kept  int
		total int64
	}{
		{`SELECT i FROM range(5000) t(i) ORDER BY i DESC`, []string{"i"}, []any{int64(4999)}, 3, 5000},
		{`SELECT i, repeat('x', 20000) AS s FROM range(100) t(i) ORDER BY i DESC`, []string{"i", "s"}, []any{int64(99)}, 2, 100},
		{`SELECT 1 AS x, 2 AS x, 'a' AS X`, []string{"x", "x", "X"}, []any{int64(1), int64(2), "a"}, 1, 1},
		{"SELECT 7 AS a -- a trailing comment", []string{"a"}, []any{int64(7)}, 1, 1},
		{"SELECT 8 AS a;", []string{"a"}, []any{int64(8)}, 1, 1},
		{"SELECT 9 AS a; -- comment after the semicolon", []string{"a"}, []any{int64(9)}, 1, 1},
		{`SELECT NULL AS n FROM range(10)`, []string{"n"}, []any{nil}, 3, 10},
		{`SELECT 42 AS n WHERE false`, []string{"n"}, nil, 0, 0},
	}
	for _, c := range cases {
		res, err := e.QueryNative(context.Background(), c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		var cols []string
		for _, col := range res.Columns {
			cols = append(cols, col.Name)
		}
		if !reflect.DeepEqual(cols, c.cols) || len(res.Rows) != c.kept || res.TotalRows != c.total {
			t.Errorf("%s: columns %v, %d rows of %d; want %v, %d of %d", c.sql, cols, len(res.Rows), res.TotalRows, c.cols, c.kept, c.total)
			continue
		}
		if c.first != nil && !reflect.DeepEqual(res.Rows[0][:len(c.first)], c.first) {
			t.Errorf("%s: first row %v, want %v", c.sql, res.Rows[0], c.first)
		}
	}
}

// A dialect's Go function failing on a value is the query's run-time error
// where the dialect's Explain recognises the message (the bridge's CAST …
// FORMAT of text it cannot parse), and its limit where Explain says so; a
// message Explain leaves alone stays the engine's (infrastructure).
func TestGoFunctionErrors(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{
		Functions: []string{testFunctions},
		Explain: func(msg string) (string, bool) {
			if _, m, ok := strings.Cut(msg, "value: "); ok {
				return m, false
			}
			if _, m, ok := strings.Cut(msg, "limit: "); ok {
				return m, true
			}
			return msg, false
		},
	})
	for _, c := range []struct {
		arg   string
		class executor.Class
		msg   string
	}{
		{"value: Failed to parse input string", executor.ClassRuntime, "Failed to parse input string"},
		{"limit: element Q is not supported", executor.ClassUnsupported, "element Q is not supported"},
		{"something else", executor.ClassInfra, "something else"},
	} {
		_, err := e.Query(context.Background(), "SELECT fail('"+c.arg+"') AS x")
		if got := classOf(t, err); got != c.class || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("fail(%q): %s %v, want %s with %q", c.arg, got, err, c.class, c.msg)
		}
	}
}
