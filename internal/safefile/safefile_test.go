package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// folder builds the hostile folder of the tests: inside is dir, outside
// a file next to it the folder must never reach.
func folder(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "out")
	outside = filepath.Join(base, "secret")
	must(t, os.WriteFile(outside, []byte("outside"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "plain"), []byte("plain"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "inner"), []byte("inner"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(dir, "link-out")))
	must(t, os.Symlink("plain", filepath.Join(dir, "link-in")))
	must(t, os.Symlink(filepath.Dir(outside), filepath.Join(dir, "dir-out")))
	must(t, os.Symlink("sub", filepath.Join(dir, "dir-in")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, os.Link(outside, filepath.Join(dir, "hardlink")))
	return dir, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenFile: every way a name could lead outside the folder, to
// another file, or to something that blocks is refused with an error
// naming it; plain files and folders reached inside the folder open.
func TestOpenFile(t *testing.T) {
	dir, outside := folder(t)
	d, err := OpenDir(dir)
	must(t, err)
	defer d.Close()
	const rw = os.O_RDWR | os.O_CREATE | os.O_APPEND
	for _, tc := range []struct {
		name string
		flag int
		want string // "" opens; else in the error
		is   error
	}{
		{"plain", os.O_RDONLY, "", nil},
		{"plain", rw, "", nil},
		{"new", rw, "", nil},
		{"sub/inner", os.O_RDONLY, "", nil},
		{"dir-in/inner", os.O_RDONLY, "", nil}, // a folder link that stays inside
		{"link-out", os.O_RDONLY, "symbolic link", ErrNotRegular},
		{"link-out", rw, "symbolic link", ErrNotRegular},
		{"link-in", os.O_RDONLY, "symbolic link", ErrNotRegular},
		{"dir-out/secret", os.O_RDONLY, "escapes", nil},
		{"../secret", os.O_RDONLY, "leaves the folder", nil},
		{"/etc/passwd", os.O_RDONLY, "leaves the folder", nil},
		{"fifo", os.O_RDONLY, "a FIFO", ErrNotRegular},
		{"fifo", rw, "a FIFO", ErrNotRegular},
		{"fifo", os.O_WRONLY | os.O_APPEND, "a FIFO", ErrNotRegular},
		{"fifo/x", os.O_RDONLY, "not a directory", nil},
		{"sub", os.O_RDONLY, "a folder", ErrNotRegular},
		{"hardlink", os.O_RDONLY, "", nil},
		{"hardlink", rw, "hard links", ErrLinked},
		{"hardlink", os.O_WRONLY | os.O_TRUNC, "hard links", ErrLinked},
	} {
		f, err := d.OpenFile(tc.name, tc.flag, 0o644)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s (%#o): %v", tc.name, tc.flag, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s (%#o): %v, want an error with %q", tc.name, tc.flag, err, tc.want)
		case tc.is != nil && !errors.Is(err, tc.is):
			t.Errorf("%s: %v is not %v", tc.name, err, tc.is)
		case err != nil && !strings.Contains(err.Error(), filepath.Base(tc.name)):
			t.Errorf("%s: error %q does not name the file", tc.name, err)
		}
		if f != nil {
			f.Close()
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(outside), "new")); err == nil {
		t.Error("a file was created outside the folder")
	}
}

// TestReadFile: reads are bounded; a file over the limit is refused by
// name.
func TestReadFile(t *testing.T) {
	dir, _ := folder(t)
	if b, err := ReadFile(dir, "plain", 5); err != nil || string(b) != "plain" {
		t.Errorf("ReadFile: %q, %v", b, err)
	}
	if _, err := ReadFile(dir, "plain", 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "plain") {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFile(dir, "fifo", 4); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v", err)
	}
}

// TestWriteFile: an atomic write replaces a link or a FIFO at the name
// instead of writing through it, and leaves no temporary file.
func TestWriteFile(t *testing.T) {
	dir, outside := folder(t)
	d, err := OpenDir(dir)
	must(t, err)
	defer d.Close()
	for _, name := range []string{"link-out", "fifo", "plain", "sub/new"} {
		must(t, d.WriteFile(name, []byte("new "+name), 0o644))
		st, err := os.Lstat(filepath.Join(dir, name))
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 {
			t.Errorf("%s after WriteFile: %v, %v", name, st.Mode(), err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "new "+name {
			t.Errorf("%s holds %q", name, b)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Errorf("the file outside was changed: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), TempMark) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	if err := d.WriteFile("../x", nil, 0o644); err == nil {
		t.Error("WriteFile left the folder")
	}
}

// TestSpool: a spool file works and has no name.
func TestSpool(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDir(dir)
	must(t, err)
	defer d.Close()
	f, err := d.Spool("download")
	must(t, err)
	defer f.Close()
	if _, err := f.WriteString("data"); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Errorf("spool left %v in the folder", ents)
	}
	b := make([]byte, 4)
	if _, err := f.ReadAt(b, 0); err != nil || string(b) != "data" {
		t.Errorf("spool read %q, %v", b, err)
	}
}
