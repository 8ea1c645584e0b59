package localkey

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLoadCreatesOnceAndKeeps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	keys := make([]Key, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := Load(dir)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if string(k) != string(keys[0]) || len(k) != keyBytes {
			t.Fatalf("concurrent first uses made different keys")
		}
	}
	st, err := os.Stat(filepath.Join(dir, File))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, %v; want mode 0600", st, err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries in the key folder (temporary files left?)", len(ents))
	}
	again, err := Load(dir)
	if err != nil || string(again) != string(keys[0]) {
		t.Fatalf("reload: %v", err)
	}
}

func TestSumVerify(t *testing.T) {
	k, err := Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, _ := Load(t.TempDir())
	s := k.Sum([]byte("ab"), []byte("c"))
	for _, c := range []struct {
		key   Key
		sum   string
		parts [][]byte
		ok    bool
	}{
		{k, s, [][]byte{[]byte("ab"), []byte("c")}, true},
		{k, s, [][]byte{[]byte("a"), []byte("bc")}, false}, // bytes moved between parts
		{k, s, [][]byte{[]byte("ab"), []byte("d")}, false},
		{other, s, [][]byte{[]byte("ab"), []byte("c")}, false}, // another machine's key
		{k, "zz", [][]byte{[]byte("ab"), []byte("c")}, false},
	} {
		if got := c.key.Verify(c.sum, c.parts...); got != c.ok {
			t.Errorf("Verify(%q, %q) = %v, want %v", c.sum, c.parts, got, c.ok)
		}
	}
}

func TestRefusesReadableOrLinkedKey(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, File)
	os.Chmod(p, 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a key others may read: %v", err)
	}
	os.Chmod(p, 0o600)
	linked := t.TempDir()
	os.Symlink(p, filepath.Join(linked, File))
	if _, err := Load(linked); err == nil {
		t.Error("a key reached through a symbolic link was read")
	}
	os.WriteFile(p, []byte("nothex\n"), 0o600)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a clinsql key") {
		t.Errorf("garbage key: %v", err)
	}
}
