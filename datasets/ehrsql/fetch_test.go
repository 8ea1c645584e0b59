package ehrsql_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/internal/shared"
)

// upstream serves the fixture split as the repository's train, valid and
// test splits, tables.json, a licence and a stand-in database, at the
// repository's paths; faults injects replies by path (served once each,
// in order).
type upstream struct {
	files  map[string][]byte
	mu     sync.Mutex
	faults map[string][]int
	gets   map[string]int
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{files: map[string][]byte{}, faults: map[string][]int{}, gets: map[string]int{}}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, split := range []string{"train", "valid", "test"} {
		for _, f := range []string{"data.json", "label.json", "answer.json", "annotated.json"} {
			u.files["data/mimic_iv/"+split+"/"+f] = read(filepath.Join("testdata", "mini", f))
		}
	}
	u.files["data/mimic_iv/tables.json"] = read(filepath.Join("testdata", "tables.json"))
	u.files["LICENSE"] = []byte("Creative Commons Attribution 4.0\n")
	u.files["data/mimic_iv/mimic_iv.sqlite"] = []byte(strings.Repeat("SQLite format 3\x00 stand-in ", 1000))
	return u
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/repo/")
	u.mu.Lock()
	u.gets[path]++
	var fault int
	if fs := u.faults[path]; len(fs) > 0 {
		fault, u.faults[path] = fs[0], fs[1:]
	}
	u.mu.Unlock()
	b, ok := u.files[path]
	switch {
	case fault == -1: // a transfer cut short of its announced length
		w.Header().Set("Content-Length", "999999")
		w.Write(b[:len(b)/2])
	case fault != 0:
		http.Error(w, "fault", fault)
	case !ok:
		http.NotFound(w, r)
	default:
		w.Write(b)
	}
}

// files is the fetch list for the fixture upstream: pinned checksums for
// the files the real list pins.
func (u *upstream) list() []ehrsql.File {
	var out []ehrsql.File
	for _, f := range ehrsql.Files {
		if f.SHA256 != "" {
			sum := sha256.Sum256(u.files[f.Path])
			f.SHA256 = hex.EncodeToString(sum[:])
		}
		out = append(out, f)
	}
	return out
}

func fetchOpts(srv *httptest.Server, u *upstream) ehrsql.FetchOptions {
	return ehrsql.FetchOptions{BaseURL: srv.URL + "/repo/", Files: u.list(), Retries: 2}
}

// TestFetch: every file at its place in the layout --data-dir reads, after
// a server error and a short transfer are retried; SHA256SUMS lists them;
// the splits load; a second fetch into the same folder is refused.
func TestFetch(t *testing.T) {
	u := newUpstream(t)
	u.faults["data/mimic_iv/valid/label.json"] = []int{http.StatusServiceUnavailable}
	u.faults["data/mimic_iv/mimic_iv.sqlite"] = []int{-1}
	srv := httptest.NewServer(u)
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "new", "ehrsql-data")
	verified := false
	opt := fetchOpts(srv, u)
	opt.Verify = func(ctx context.Context, tmp string) error {
		b, err := os.ReadFile(filepath.Join(tmp, ehrsql.DatabaseFile))
		verified = err == nil && string(b) == string(u.files["data/mimic_iv/mimic_iv.sqlite"])
		return nil
	}
	if err := ehrsql.Fetch(context.Background(), dir, opt); err != nil {
		t.Fatal(err)
	}
	if !verified {
		t.Error("Verify did not see the whole database before the folder was put in place")
	}
	for _, s := range []string{"train", "valid", "test"} {
		if _, err := ehrsql.LoadSplit(filepath.Join(dir, s)); err != nil {
			t.Errorf("split %s: %v", s, err)
		}
	}
	sums, err := os.ReadFile(filepath.Join(dir, ehrsql.SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != len(ehrsql.Files) {
		t.Errorf("%d checksums for %d files", len(lines), len(ehrsql.Files))
	}
	for _, l := range lines {
		sum, name, _ := strings.Cut(l, "  ")
		b, err := os.ReadFile(filepath.Join(dir, name))
		got := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: checksum line %q, file %v", name, l, err)
		}
	}
	if u.gets["data/mimic_iv/valid/label.json"] != 2 || u.gets["data/mimic_iv/mimic_iv.sqlite"] != 2 {
		t.Errorf("retries: %v", u.gets)
	}
	if err := ehrsql.Fetch(context.Background(), dir, opt); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second fetch: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".ehrsql-*")); len(left) != 0 {
		t.Errorf("temporary folders left: %v", left)
	}
}

// TestFetchRefuses: a checksum that differs, a missing required file, a
// split whose files disagree, an oversized file or a database Verify
// refuses fail the fetch, and nothing is left behind; a missing optional
// file is skipped.
func TestFetchRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(u *upstream, opt *ehrsql.FetchOptions)
		want   string // "" : the fetch succeeds
	}{
		{"checksum", func(u *upstream, _ *ehrsql.FetchOptions) {
			u.files["data/mimic_iv/train/label.json"] = []byte(`{"q01": "x"}`)
		}, "sha256"},
		{"missing file", func(u *upstream, _ *ehrsql.FetchOptions) { delete(u.files, "data/mimic_iv/test/label.json") }, "404"},
		{"missing optional file", func(u *upstream, _ *ehrsql.FetchOptions) { delete(u.files, "data/mimic_iv/test/annotated.json") }, ""},
		{"split disagrees", func(u *upstream, _ *ehrsql.FetchOptions) {
			u.files["data/mimic_iv/test/label.json"] = []byte(`{"q01": "SELECT 1", "q02": "null"}`)
		}, "does not load"},
		{"oversized", func(u *upstream, opt *ehrsql.FetchOptions) {
			for i := range opt.Files {
				if strings.HasSuffix(opt.Files[i].Path, "mimic_iv.sqlite") {
					opt.Files[i].MaxBytes = 100
				}
			}
		}, "larger than"},
		{"verify", func(u *upstream, opt *ehrsql.FetchOptions) {
			opt.Verify = func(context.Context, string) error {
				return errors.New("3 of 1163 gold labels do not give the published answer")
			}
		}, "refused: 3 of 1163"},
		{"path escape", func(u *upstream, opt *ehrsql.FetchOptions) {
			opt.Files = append(opt.Files, ehrsql.File{Path: "LICENSE", Dest: "../elsewhere"})
		}, "leaves the data folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t)
			srv := httptest.NewServer(u)
			defer srv.Close()
			opt := fetchOpts(srv, u)
			tc.change(u, &opt)
			if tc.name == "checksum" {
				// The pinned sums are the real bytes'; the server now
				// sends others.
				opt.Files = fetchOpts(srv, newUpstream(t)).Files
			}
			root := t.TempDir()
			dir := filepath.Join(root, "a", "b", "ehrsql-data")
			err := ehrsql.Fetch(context.Background(), dir, opt)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			var left []string
			filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
				if p != root {
					left = append(left, p)
				}
				return nil
			})
			sort.Strings(left)
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestPinnedChecksumsShared: the pinned checksums are those of the files
// ../shared/ehrsql-2024 holds, copied unchanged from Commit.
func TestPinnedChecksumsShared(t *testing.T) {
	dir := shared.Path(t, "ehrsql-2024")
	pinned := 0
	for _, f := range ehrsql.Files {
		if f.SHA256 == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f.Dest))
		if err != nil {
			t.Errorf("%s: %v", f.Dest, err)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
			t.Errorf("%s: sha256 %s, pinned %s", f.Dest, got, f.SHA256)
		}
		pinned++
	}
	if pinned < 9 {
		t.Errorf("%d files pinned", pinned)
	}
}
