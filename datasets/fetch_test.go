package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
)

// tarball builds a GitHub-style archive ("ClinSQL-<commit>/...") of the
// fixture dataset plus files outside data/splits, and extra entries.
func tarball(t *testing.T, extra ...*tar.Header) []byte {
	t.Helper()
	src := t.TempDir()
	if _, err := fixtures.WriteClinSQL(src); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(src, "README.md"), []byte("readme"), 0o644))
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	prefix := "ClinSQL-" + ClinSQLCommit + "/"
	must(t, tw.WriteHeader(&tar.Header{Name: prefix, Typeflag: tar.TypeDir, Mode: 0o755}))
	must(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == src {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Name: prefix + filepath.ToSlash(rel) + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: prefix + filepath.ToSlash(rel), Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(b))}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	}))
	for _, h := range extra {
		h.Name = prefix + h.Name
		must(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			tw.Write(make([]byte, h.Size))
		}
	}
	must(t, tw.Close())
	must(t, gz.Close())
	return buf.Bytes()
}

func TestFetchClinSQL(t *testing.T) {
	archive := tarball(t)
	sum := sha256.Sum256(archive)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case r.URL.Path != "/archive.tar.gz":
			http.NotFound(w, r)
		case n == 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case n == 2:
			// Promise more than is sent: a truncated transfer.
			w.Header().Set("Content-Length", "100000")
			w.Write(archive[:len(archive)/2])
		default:
			w.Write(archive)
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	var log bytes.Buffer
	tasks, err := FetchClinSQL(context.Background(), dir, FetchOptions{URL: srv.URL + "/archive.tar.gz", SHA256: hex.EncodeToString(sum[:]), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d requests, want 3 (503, truncated, ok)", calls.Load())
	}
	if len(tasks) != len(fixtures.Tasks()) {
		t.Fatalf("%d tasks", len(tasks))
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		t.Error("files outside data/splits were extracted")
	}
	again, err := LoadClinSQL(dir)
	if err != nil || len(again) != len(tasks) || again[0].Dir != tasks[0].Dir {
		t.Fatalf("reload: %d tasks, %v (%s vs %s)", len(again), err, again[0].Dir, tasks[0].Dir)
	}
	if _, err := FetchClinSQL(context.Background(), dir, FetchOptions{URL: srv.URL + "/archive.tar.gz"}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second fetch: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "data"))
	if len(entries) != 1 {
		t.Errorf("leftovers in data/: %v", entries)
	}
}

func TestFetchRejects(t *testing.T) {
	good := tarball(t)
	for _, tc := range []struct {
		name    string
		archive []byte
		opt     FetchOptions
		status  int
		want    string
	}{
		{"checksum", good, FetchOptions{SHA256: strings.Repeat("0", 64)}, 200, "sha256"},
		{"not found", good, FetchOptions{}, 404, "404 Not Found"},
		{"escape", tarball(t, &tar.Header{Name: "data/splits/../../../evil", Typeflag: tar.TypeReg, Size: 3}), FetchOptions{}, 200, "escapes the destination"},
		{"symlink", tarball(t, &tar.Header{Name: "data/splits/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}), FetchOptions{}, 200, "links and special files"},
		{"huge file", tarball(t, &tar.Header{Name: "data/splits/big.csv", Typeflag: tar.TypeReg, Size: 2048}), FetchOptions{MaxFileBytes: 1024}, 200, "over the 1024-byte limit"},
		{"not gzip", []byte("<html>nope</html>"), FetchOptions{}, 200, "not a gzip archive"},
		{"too big", good, FetchOptions{MaxBytes: 100}, 200, "larger than 100 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write(tc.archive)
			}))
			defer srv.Close()
			parent := t.TempDir()
			dir := filepath.Join(parent, "new", "clinsql-data")
			tc.opt.URL = srv.URL
			_, err := FetchClinSQL(context.Background(), dir, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			// A failed fetch leaves nothing behind, not even empty folders.
			if left, _ := os.ReadDir(parent); len(left) > 0 {
				t.Errorf("a failed fetch left %s/%s behind", parent, left[0].Name())
			}
			if _, err := os.Stat(filepath.Join(dir, "data", "splits")); err == nil {
				t.Error("data/splits exists after a failed fetch")
			}
			if _, err := os.Stat(filepath.Join(parent, "evil")); err == nil {
				t.Error("an entry escaped")
			}
		})
	}
}

func TestFetchOutputs(t *testing.T) {
	archive := tarball(t,
		&tar.Header{Name: "outputs/evaluation/m/validation/detailed_grading.json", Typeflag: tar.TypeReg, Size: 10},
		&tar.Header{Name: "outputs/inference/m/huge.csv", Typeflag: tar.TypeReg, Size: 80000})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
	defer srv.Close()
	dir := t.TempDir()
	var log bytes.Buffer
	if _, err := FetchClinSQL(context.Background(), dir, FetchOptions{URL: srv.URL, Outputs: true, MaxFileBytes: 65536, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "outputs", "evaluation", "m", "validation", "detailed_grading.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "outputs", "inference", "m", "huge.csv")); err == nil || !strings.Contains(log.String(), "skipped") {
		t.Errorf("oversized output not skipped; log:\n%s", log.String())
	}
}

// byteCounter records what a download reports to FetchOptions.Progress.
type byteCounter struct {
	totals []int64
	n      int64
}

func (c *byteCounter) Restart(total int64)         { c.totals, c.n = append(c.totals, total), 0 }
func (c *byteCounter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestFetchProgress: the download reports the size the server announces at
// each attempt (-1 without one) and every byte received, starting again on
// a retry.
func TestFetchProgress(t *testing.T) {
	archive := tarball(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Length", "100000") // promised, not sent: retried
			w.Write(archive[:len(archive)/2])
			return
		}
		w.(http.Flusher).Flush() // no Content-Length: size unknown
		w.Write(archive)
	}))
	defer srv.Close()
	var c byteCounter
	if _, err := FetchClinSQL(context.Background(), t.TempDir(), FetchOptions{URL: srv.URL, Progress: &c}); err != nil {
		t.Fatal(err)
	}
	if len(c.totals) != 2 || c.totals[0] != 100000 || c.totals[1] != -1 || c.n != int64(len(archive)) {
		t.Errorf("progress: totals %v, %d bytes in the last attempt; want [100000 -1] and %d", c.totals, c.n, len(archive))
	}
}
