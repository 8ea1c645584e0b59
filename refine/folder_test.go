package refine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/localkey"
)

// TestOpenFolder: the output folder is made, the cache defaults to
// OUT/llm-cache, a price table opens the folder's spending record (its
// standing said), and generate.log is refused when a link stands there.
func TestOpenFolder(t *testing.T) {
	t.Setenv(localkey.EnvDir, t.TempDir())
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.yaml")
	if err := os.WriteFile(prices, []byte("prices:\n  m: {prompt: 1, completion: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var log strings.Builder
	f, err := OpenFolder(FolderOptions{Out: out, Prices: prices, Budget: 3, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	f.Logger.Info("task", "model", "m")
	f.Close()
	if f.Cache.Dir() != filepath.Join(out, "llm-cache") || f.Meter == nil || f.Meter.Budget() != 3 || !strings.Contains(log.String(), "spent so far in this folder") {
		t.Errorf("cache %s, meter %v, log %q", f.Cache.Dir(), f.Meter, log.String())
	}
	if b, err := os.ReadFile(filepath.Join(out, "generate.log")); err != nil || !strings.Contains(string(b), "model=m") {
		t.Errorf("generate.log %q, %v", b, err)
	}
	if f, err := OpenFolder(FolderOptions{Out: out, Cache: filepath.Join(dir, "cache")}); err != nil || f.Meter != nil || f.Cache.Dir() != filepath.Join(dir, "cache") {
		t.Errorf("no prices: %+v, %v", f, err)
	} else {
		f.Close()
	}
	linked := filepath.Join(dir, "linked")
	os.MkdirAll(linked, 0o755)
	if err := os.Symlink(filepath.Join(dir, "elsewhere.log"), filepath.Join(linked, "generate.log")); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFolder(FolderOptions{Out: linked}); err == nil {
		t.Error("generate.log through a link was opened")
	}
}
