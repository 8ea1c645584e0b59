package mimic_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/executor/mimic/synth"
)

// TestStoreOrder: a table with a StoreOrder is stored sorted by that
// column, whatever the order of its file, and holds the file's rows.
func TestStoreOrder(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Write(context.Background(), synth.Options{Patients: 150, Seed: 7, Out: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ordered.duckdb")
	if _, err := mimic.Build(context.Background(), mimic.BuildOptions{MimicDir: dir, Out: out}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", out+"?access_mode=READ_ONLY&threads=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ordered := 0
	for _, tb := range mimic.V31.Tables {
		if tb.StoreOrder == "" {
			continue
		}
		ordered++
		file := filepath.Join(dir, tb.Module, tb.Name+".csv.gz")
		fileKeys := csvColumn(t, file, tb.StoreOrder)
		if slices.IsSorted(fileKeys) {
			t.Fatalf("%s: the synthetic file is already sorted by %s; the test needs one that is not", file, tb.StoreOrder)
		}
		// One thread scans in storage order (DuckDB preserves insertion order).
		rows, err := db.Query(fmt.Sprintf("SELECT %s FROM %s.%s", tb.StoreOrder, tb.Dataset, tb.Name))
		if err != nil {
			t.Fatal(err)
		}
		var stored []int64
		for rows.Next() {
			var v int64
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			stored = append(stored, v)
		}
		rows.Close()
		if !slices.IsSorted(stored) {
			t.Errorf("%s: rows are not stored in %s order", tb.FullName(), tb.StoreOrder)
		}
		slices.Sort(fileKeys)
		if !slices.Equal(stored, fileKeys) {
			t.Errorf("%s: stored %d keys, the file has %d (or other values)", tb.FullName(), len(stored), len(fileKeys))
		}
	}
	if ordered == 0 {
		t.Fatal("no table of the schema has a StoreOrder")
	}
}

// csvColumn reads one integer column of a gzipped CSV file with a header.
func csvColumn(t *testing.T, path, col string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(zr)
	head, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	idx := slices.Index(head, col)
	if idx < 0 {
		t.Fatalf("%s: no column %s", path, col)
	}
	var vals []int64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		v, err := strconv.ParseInt(rec[idx], 10, 64)
		if err != nil {
			t.Fatalf("%s: %s %q: %v", path, col, rec[idx], err)
		}
		vals = append(vals, v)
	}
	return vals
}
