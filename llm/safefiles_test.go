package llm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/internal/safefile"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// returns runs f and fails the test if it has not returned after a
// minute: a file that blocks its reader (a FIFO) hangs for ever, and the
// test must say so rather than hang too. Nothing waits on the clock when
// f returns.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute", what)
	}
}

// plant puts at path a hostile file: a FIFO, or a symbolic link to
// outside (a file that exists there).
func plant(t *testing.T, kind, path, outside string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	switch kind {
	case "fifo":
		err = syscall.Mkfifo(path, 0o644)
	case "symlink":
		err = os.Symlink(outside, path)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestHostileFolderFiles: the files the LLM layer keeps in an output
// folder (the spending record, a batch journal, cache entries) are opened
// without following links and only if they are regular files: a FIFO in
// place of one is an error (a miss for a cache entry) at once, never a
// hang, and a link to a file elsewhere is never read, created or written
// through.
func TestHostileFolderFiles(t *testing.T) {
	for _, kind := range []string{"fifo", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			base := t.TempDir()
			outside := filepath.Join(base, "elsewhere.jsonl")
			if err := os.WriteFile(outside, []byte("not yours\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			check := func() {
				t.Helper()
				if b, _ := os.ReadFile(outside); string(b) != "not yours\n" {
					t.Errorf("the file outside the folder was written: %q", b)
				}
			}

			// An empty spending file elsewhere: a meter that followed the
			// link would take it and append to it.
			empty := filepath.Join(base, "empty.jsonl")
			if err := os.WriteFile(empty, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(base, "spend")
			plant(t, kind, filepath.Join(dir, llm.SpendingFile), empty)
			returns(t, "OpenMeter", func() {
				m, err := llm.OpenMeter(dir, testPrices, 1)
				if err == nil {
					m.Close()
				}
				if !errors.Is(err, safefile.ErrNotRegular) || !strings.Contains(err.Error(), filepath.Join(dir, llm.SpendingFile)) {
					t.Errorf("OpenMeter on a %s: %v, want an error naming the file", kind, err)
				}
			})
			if b, _ := os.ReadFile(empty); len(b) != 0 {
				t.Errorf("the spending file outside the folder was written: %q", b)
			}

			srv := llmtest.Start(t, answer, llmtest.Options{})
			dir = filepath.Join(base, "batch")
			ep := batchEndpoint(srv, nil)
			plant(t, kind, filepath.Join(dir, llm.BatchJournalName(ep)), outside)
			returns(t, "a batch client", func() {
				c, err := llm.New(ep, llm.Options{Getenv: getenv, Batch: &llm.BatchOptions{Dir: dir}})
				if err == nil {
					c.Close()
				}
				if !errors.Is(err, safefile.ErrNotRegular) || !strings.Contains(err.Error(), llm.BatchJournalName(ep)) {
					t.Errorf("journal a %s: %v, want an error naming the file", kind, err)
				}
			})
			check()

			// A cache entry: learn the key, then plant the entry in a new
			// cache, pointing at a valid entry elsewhere for the link.
			first, _ := llm.OpenCache(filepath.Join(base, "first"))
			c := newClient(t, endpoint(srv, nil), llm.Options{Cache: first})
			resp, err := c.Complete(context.Background(), ask("q"))
			if err != nil {
				t.Fatal(err)
			}
			entry := filepath.Join(resp.CacheKey[:2], resp.CacheKey+".json")
			dir = filepath.Join(base, "cache")
			plant(t, kind, filepath.Join(dir, entry), filepath.Join(base, "first", entry))
			cache, err := llm.OpenCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			c = newClient(t, endpoint(srv, nil), llm.Options{Cache: cache})
			calls := srv.Calls()
			returns(t, "a cache read", func() {
				got, err := c.Complete(context.Background(), ask("q"))
				if err != nil || got.FromCache || srv.Calls() != calls+1 {
					t.Errorf("cache entry a %s: %+v, %v; want a miss and a call", kind, got, err)
				}
			})
			if st, err := os.Lstat(filepath.Join(dir, entry)); err != nil || !st.Mode().IsRegular() {
				t.Errorf("the entry was not replaced by a regular file: %v %v", st, err)
			}
		})
	}
}

// TestSpendingCutReported: a spending file whose last line was cut short
// opens, and says so by file, line and byte; a last record missing only
// its newline is kept.
func TestSpendingCutReported(t *testing.T) {
	const reserve = `{"op":"reserve","id":"a-1","time":"2026-01-01T00:00:00Z","worst_usd":0.5,"usd":0.5}` + "\n"
	const settle = `{"op":"settle","id":"a-1","time":"2026-01-01T00:00:01Z","usd":0.25,"usage":"reported"}` + "\n"
	for _, tc := range []struct {
		name, content, want string
		spent               float64
	}{
		{"cut settle", reserve + settle[:40], "line 2, at byte 84, 40 bytes) is cut short and was dropped", 0.5},
		{"newline missing", reserve + strings.TrimSuffix(settle, "\n"), "line 2, at byte 84) lacked its newline", 0.25},
		{"whole", reserve + settle, "", 0.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, llm.SpendingFile)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := llm.OpenMeter(dir, spendPrices, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			got := m.Resumed().Recovered
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || tc.want != "" && !strings.Contains(got, path) {
				t.Errorf("Recovered = %q, want %q naming %s", got, tc.want, path)
			}
			if !near(m.Spent(), tc.spent) {
				t.Errorf("spent $%v, want $%v", m.Spent(), tc.spent)
			}
		})
	}
}
