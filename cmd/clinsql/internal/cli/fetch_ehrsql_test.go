package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFetchEHRSQLCommand: clinsql datasets fetch ehrsql from a server
// that holds the repository's files at their paths, the checksums pinned
// for the real bytes refusing the stand-ins, and the database check
// refusing a database that is none.
func TestFetchEHRSQLCommand(t *testing.T) {
	mini := filepath.Join("..", "..", "datasets", "ehrsql", "testdata")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel := strings.TrimPrefix(r.URL.Path, "/repo/")
		var p string
		switch {
		case rel == "data/mimic_iv/tables.json":
			p = filepath.Join(mini, "tables.json")
		case strings.HasPrefix(rel, "data/mimic_iv/") && strings.HasSuffix(rel, ".json"):
			p = filepath.Join(mini, "mini", filepath.Base(rel))
		case rel == "LICENSE" || rel == "data/mimic_iv/mimic_iv.sqlite":
			w.Write([]byte("stand-in for " + rel))
			return
		}
		b, err := os.ReadFile(p)
		if p == "" || err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "ehrsql-data")
	code, _, stderr := runCLI(t, dir, "datasets", "fetch", "ehrsql", "--out", out, "--base-url", srv.URL+"/repo/")
	if code != 1 || !strings.Contains(stderr, "sha256") {
		t.Errorf("stand-ins for pinned files: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused fetch left its folder")
	}
}
