package sqlite_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
)

// A value longer than the result byte cap is never built: SQLite stops the
// statement (SQLITE_LIMIT_LENGTH) and the query fails on the byte cap,
// the query's own limit. hex(zeroblob(300000000)) took 2.7 GB (issue 25);
// this one would build 200 MB.
func TestValueOverByteCapRefused(t *testing.T) {
	db := open(t, sqlite.Options{})
	_, err := db.Query(context.Background(), "SELECT length(hex(zeroblob(100000000)))")
	if got := executor.ClassOf(err); got != executor.ClassBytesLimit || !strings.Contains(err.Error(), "too big") {
		t.Fatalf("class %s (%v), want bytes_limit: string or blob too big", got, err)
	}
	// Values within the cap are unchanged.
	res, err := db.Query(context.Background(), "SELECT length(hex(zeroblob(1000000)))")
	if err != nil || res.Rows[0][0] != int64(2000000) {
		t.Fatalf("%v %v", res, err)
	}
}

// A row over the byte cap is sized before its values are copied out of
// SQLite: it is counted, never held.
func TestRowOverByteCapNotCopied(t *testing.T) {
	db := open(t, sqlite.Options{Limits: executor.Limits{MaxResultBytes: 1 << 20}})
	q := "SELECT zeroblob(700000), zeroblob(700000) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)"
	if _, err := db.Query(context.Background(), q); err != nil { // warm up the connection
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := db.Query(context.Background(), q)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || !res.ByteCapped || res.TotalRows != 3 {
		t.Fatalf("rows %d, byte capped %v, total %d; want none kept of 3", len(res.Rows), res.ByteCapped, res.TotalRows)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("Go allocated %d bytes for rows it did not keep (each is 1.4 MB)", grew)
	}
}

// SQLite's heap is bounded (Options.MemoryLimit, the process's): a query
// that needs more fails, as the query's error, rather than take the host's
// memory.
func TestHeapLimit(t *testing.T) {
	db := open(t, sqlite.Options{MemoryLimit: 16 << 20, Limits: executor.Limits{MaxResultBytes: 1 << 30}})
	t.Cleanup(func() {
		// The limit is the process's: an Open with the default restores it.
		if d, err := sqlite.Open(db.Path(), sqlite.Options{}); err == nil {
			d.Close()
		}
	})
	_, err := db.Query(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40000) SELECT length(group_concat(hex(randomblob(1000)))) FROM c")
	if got := executor.ClassOf(err); got != executor.ClassRuntime || !strings.Contains(err.Error(), "memory limit") {
		t.Fatalf("class %s (%v), want runtime_error: out of memory", got, err)
	}
	if _, err := db.Query(context.Background(), "SELECT count(*) FROM events"); err != nil {
		t.Fatalf("after: %v", err)
	}
}
