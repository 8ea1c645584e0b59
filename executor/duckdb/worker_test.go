package duckdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
)

// A function DuckDB's interrupt cannot reach holds the query past its
// timeout: the worker is killed, the query is a timeout, and the engine
// goes on with a fresh worker. In one process the query ran until it
// finished (minutes for GENERATE_ARRAY(1, 100000000), issue 25), here for
// ever: without the kill the test would hang.
func TestUninterruptibleQueryKilled(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Functions: []string{testFunctions}, Limits: executor.Limits{Timeout: time.Second}})
	_, err := e.Query(context.Background(), `SELECT hang()`)
	if got := classOf(t, err); got != executor.ClassTimeout {
		t.Fatalf("class %s (%v), want timeout", got, err)
	}
	res, err := e.Query(context.Background(), `SELECT count(*) FROM mimiciv_3_1_hosp.patients`)
	if err != nil || res.Rows[0][0] != int64(3) {
		t.Fatalf("after the kill: %v %v", res, err)
	}
}

// Memory allocated outside DuckDB's buffer manager (which memory_limit does
// not see) is bounded by the worker's kill line; the query is charged
// nothing (the limit is the engine's, not BigQuery's), and the engine goes
// on.
func TestMemoryKill(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Functions: []string{testFunctions}, MemoryLimit: "64MB", Limits: executor.Limits{Timeout: time.Hour}})
	_, err := e.Query(context.Background(), `SELECT balloon(2048)`)
	if got := classOf(t, err); got != executor.ClassUnsupported || !strings.Contains(err.Error(), "Resources exceeded") {
		t.Fatalf("class %s (%v), want unsupported: resources exceeded", got, err)
	}
	if _, err := e.Query(context.Background(), `SELECT 1`); err != nil {
		t.Fatalf("after the kill: %v", err)
	}
}

// A memory kill with two queries in flight cannot tell which grew: both
// are run again alone, the innocent one answers, and only the one that
// passes the limit alone is charged.
func TestMemoryKillFindsTheCulprit(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Functions: []string{testFunctions}, MemoryLimit: "64MB", Limits: executor.Limits{Timeout: time.Hour}})
	marker := filepath.Join(t.TempDir(), "innocent-ran")
	var wg sync.WaitGroup
	var innocent *executor.Result
	var innocentErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Blocks on its first run (so it is in flight at the kill) and
		// answers when run again.
		innocent, innocentErr = e.Query(context.Background(), `SELECT once_block('`+marker+`') AS x`)
	}()
	// The balloon starts once the innocent query is in flight.
	waitFor(t, func() bool { return e.sup.inFlight() == 1 })
	_, err := e.Query(context.Background(), `SELECT balloon(2048)`)
	wg.Wait()
	if got := classOf(t, err); got != executor.ClassUnsupported {
		t.Errorf("balloon: class %s (%v), want unsupported", got, err)
	}
	if innocentErr != nil || innocent.Rows[0][0] != int64(1) {
		t.Errorf("innocent query: %v %v, want its answer", innocent, innocentErr)
	}
}

// Memory an earlier query left resident is not the next query's: a query
// that passes the kill line on a worker that served others is run again
// on a fresh worker, and charged only if it passes the line there too.
func TestMemoryKillChargesOnlyAFreshRun(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Functions: []string{testFunctions}, MemoryLimit: "64MB", Limits: executor.Limits{Timeout: time.Hour}})
	// What a MiB the functions allocate costs in resident memory depends on
	// the build (the race detector's shadow memory more than doubles it):
	// measured, so that R MiB left behind and R MiB of the next query pass
	// the kill line together, not apart. The arguments are not constants,
	// which DuckDB would evaluate while planning as well.
	retain := func(mb int64) error {
		_, err := e.Query(context.Background(), fmt.Sprintf("SELECT retain(n) FROM (SELECT count(*) * 0 + %d AS n FROM mimiciv_3_1_hosp.patients)", mb))
		return err
	}
	rss := func() int64 {
		e.sup.mu.Lock()
		pid := e.sup.w.pid
		e.sup.mu.Unlock()
		n, err := residentBytes(pid)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := retain(1); err != nil {
		t.Fatal(err)
	}
	before := rss()
	const probe = 16
	if err := retain(probe); err != nil {
		t.Fatal(err)
	}
	after := rss()
	perMB := float64(after-before) / probe
	room := float64(e.sup.rssLimit - after)
	if perMB <= 0 || room <= 0 {
		t.Fatalf("resident %d then %d bytes, kill line %d", before, after, e.sup.rssLimit)
	}
	r := int64(0.6 * room / perMB)
	if err := retain(r); err != nil {
		t.Fatalf("retain(%d): %v", r, err)
	}
	res, err := e.Query(context.Background(), fmt.Sprintf("SELECT grow(n) AS x FROM (SELECT count(*) * 0 + %d AS n FROM mimiciv_3_1_hosp.patients)", r))
	if err != nil || res.Rows[0][0] != int64(1) {
		t.Fatalf("grow(%d) after retain(%d): %v %v, want its answer from a fresh worker", r, r, res, err)
	}
	// A query that passes the line alone is still charged.
	_, err = e.Query(context.Background(), `SELECT balloon(2048)`)
	if got := classOf(t, err); got != executor.ClassUnsupported || !strings.Contains(err.Error(), "Resources exceeded") {
		t.Fatalf("balloon on a used worker: class %s (%v), want unsupported: resources exceeded", got, err)
	}
}

// A worker that dies running a query (a crash) fails that query as the
// engine's, not the model's, and the next query runs.
func TestWorkerCrash(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Functions: []string{testFunctions}})
	_, err := e.Query(context.Background(), `SELECT exit_now()`)
	if got := classOf(t, err); got != executor.ClassUnsupported {
		t.Fatalf("class %s (%v), want unsupported", got, err)
	}
	if _, err := e.Query(context.Background(), `SELECT 1`); err != nil {
		t.Fatalf("after the crash: %v", err)
	}
}

// The caller's cancellation, and Close (SIGTERM in the CLI), end a query
// DuckDB cannot interrupt.
func TestCancelAndCloseEndAHungQuery(t *testing.T) {
	e := openEngine(t, makeDB(t, fixture...), Options{Functions: []string{testFunctions}, Limits: executor.Limits{Timeout: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := e.Query(ctx, `SELECT hang()`)
		done <- err
	}()
	waitFor(t, func() bool { return e.sup.inFlight() == 1 })
	cancel()
	if err := <-done; executor.ClassOf(err) != executor.ClassInfra {
		t.Errorf("cancelled: %v, want infra_error", err)
	}
	go func() {
		_, err := e.Query(context.Background(), `SELECT hang()`)
		done <- err
	}()
	waitFor(t, func() bool { return e.sup.inFlight() == 1 })
	e.Close()
	if err := <-done; executor.ClassOf(err) != executor.ClassInfra {
		t.Errorf("closed: %v, want infra_error", err)
	}
}

// A binary whose main does not call ServeIfWorker cannot serve: Open says
// so rather than hang or run the program twice.
func TestWorkerHandshakeRequired(t *testing.T) {
	defer func(exe func() (string, error)) { workerExe = exe }(workerExe)
	workerExe = func() (string, error) { return "/bin/true", nil }
	_, err := Open(makeDB(t, fixture...), Options{})
	if err == nil || !strings.Contains(err.Error(), "ServeIfWorker") {
		t.Fatalf("err %v, want one naming ServeIfWorker", err)
	}
}

// A frame over its reader's limit is refused before it is allocated.
func TestFrameLimit(t *testing.T) {
	var buf bytes.Buffer
	if err := writeFrame(&buf, request{SQL: strings.Repeat("x", 1000)}); err != nil {
		t.Fatal(err)
	}
	var req request
	if err := readFrame(bytes.NewReader(buf.Bytes()), 100, &req); !errors.Is(err, errFrameTooLarge) {
		t.Fatalf("err %v, want errFrameTooLarge", err)
	}
	if err := readFrame(&buf, 1<<20, &req); err != nil || len(req.SQL) != 1000 {
		t.Fatalf("%v %d", err, len(req.SQL))
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2GB": 2e9, "512MB": 512e6, "1.5GiB": 1.5 * (1 << 30), "100 mib": 100 << 20, "4096": 4096} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GB", "-1GB", "2 parsecs", "80%"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// waitFor waits until cond holds: an event, not a time.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}
