package runfolder

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
)

var key = datasets.Key{Split: "validation", Domain: "Diagnostic_Procedures", Difficulty: "easy", ID: "001"}

// writeTask writes one answer into run.
func writeTask(t *testing.T, run string, k datasets.Key, sql, csv string) string {
	t.Helper()
	dir := TaskDir(run, k)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := ExecutionSummary{Query: "q", FinalSQL: sql, ExecutionSuccess: true, RowCount: 1, Model: "m"}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, ExecutionSummaryFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if csv != "" {
		if err := os.WriteFile(filepath.Join(dir, ResultFile(k.ID)), []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("root:x:0:0"), 0o644)
	link := filepath.Join(dir, "link.csv")
	os.Symlink(secret, link)
	zero := filepath.Join(dir, "zero.csv")
	os.Symlink("/dev/zero", zero)
	fifo := filepath.Join(dir, "fifo.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, make([]byte, 2048), 0o644)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, c := range []struct {
		path  string
		limit int64
		want  error
		says  string
	}{
		{link, 1 << 20, ErrNotRegular, "symbolic link"},
		{zero, 1 << 20, ErrNotRegular, "symbolic link"},
		{fifo, 1 << 20, ErrNotRegular, "FIFO"},
		{sub, 1 << 20, ErrNotRegular, "folder"},
		{big, 1024, ErrTooLarge, "limit is 1024"},
	} {
		start := time.Now()
		b, err := ReadFile(c.path, c.limit)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %q, %v; want %v naming the file and %q", c.path, b, err, c.want, c.says)
		}
		if d := time.Since(start); d > time.Minute { // a guard against a read that blocks, not a measure
			t.Errorf("%s: took %v", c.path, d)
		}
	}
	if b, err := ReadFile(secret, 1<<20); err != nil || string(b) != "root:x:0:0" {
		t.Errorf("regular file: %q, %v", b, err)
	}
}

func TestLoadRefusesLinkedResultAndNamesIt(t *testing.T) {
	run := t.TempDir()
	dir := writeTask(t, run, key, "SELECT 1", "")
	os.Symlink("/etc/passwd", filepath.Join(dir, ResultFile(key.ID)))
	r, err := Load(run)
	if err != nil || len(r.Outputs) != 1 || r.Outputs[0].ResultCSV == "" {
		t.Fatalf("the answer is listed (its result is refused when read): %+v, %v", r, err)
	}
	if _, err := r.Identity(); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("identity of a run with a linked result: %v", err)
	}
}

func TestIdentity(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeTask(t, a, key, "SELECT 1", "x\n1\n")
	writeTask(t, b, key, "SELECT 1", "x\n1\n")
	ra, err := Load(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	ida, _ := ra.Identity()
	idb, _ := rb.Identity()
	if !ida.Same(idb) {
		t.Errorf("same answers in two folders: %v vs %v", ida, idb)
	}
	// One result byte changed is another run.
	writeTask(t, b, key, "SELECT 1", "x\n2\n")
	rb, _ = Load(b)
	if idb, _ = rb.Identity(); ida.Same(idb) {
		t.Error("a changed result kept the identity")
	}
	// A task added is another run.
	k2 := key
	k2.ID = "002"
	writeTask(t, a, k2, "SELECT 2", "")
	ra2, _ := Load(a)
	if ida2, _ := ra2.Identity(); ida.Same(ida2) {
		t.Error("an added task kept the identity")
	}
}

func TestCSVOnlyAnswer(t *testing.T) {
	run := t.TempDir()
	dir := TaskDir(run, key)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, ResultFile(key.ID)), []byte("n\n3\n"), 0o644)
	r, err := Load(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outputs) != 1 || !r.Outputs[0].SQLAbsent || r.Outputs[0].Summary.FinalSQL != "" {
		t.Fatalf("%+v", r.Outputs)
	}
}

func TestMissing(t *testing.T) {
	run := t.TempDir()
	writeTask(t, run, key, "SELECT 1", "")
	k2 := key
	k2.ID = "002"
	tasks := []*datasets.Task{{Key: key}, {Key: k2}}
	r, _ := Load(run)
	if m := r.Missing(tasks); len(m) != 1 || m[0] != k2 {
		t.Errorf("released run: missing %v", m)
	}
	// A manifest's pending tasks are missing even with an old answer.
	if err := WriteManifest(run, &Manifest{Model: "m", Tasks: []string{key.String()}, Pending: []string{key.String()}}); err != nil {
		t.Fatal(err)
	}
	r, _ = Load(run)
	if m := r.Missing(tasks); len(m) != 2 {
		t.Errorf("manifest run: missing %v", m)
	}
	// Against the subset it answered, a --limit run is complete.
	if err := WriteManifest(run, &Manifest{Model: "m", Tasks: []string{key.String()}, Complete: true, Subset: true}); err != nil {
		t.Fatal(err)
	}
	r, _ = Load(run)
	if m := r.Missing(tasks[:1]); len(m) != 0 {
		t.Errorf("subset: missing %v", m)
	}
	if r.Model() != "m" || r.Manifest.Producer.Version == "" {
		t.Errorf("manifest %+v", r.Manifest)
	}
}

func TestReaderLeavesReleasedRunsUntouched(t *testing.T) {
	dir := t.TempDir()
	l, err := LockShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if _, err := os.Lstat(filepath.Join(dir, LockFile)); err == nil {
		t.Error("a reader created the lock file in a folder clinsql never wrote")
	}
}

func TestLockRefusesASecondWriterAtOnce(t *testing.T) {
	dir := t.TempDir()
	l, err := LockExclusive(dir)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = LockExclusive(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("second writer: %v", err)
	}
	if _, err := LockShared(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("reader beside a writer: %v", err)
	}
	if d := time.Since(start); d > time.Minute { // a guard against a lock that waits, not a measure
		t.Errorf("refusals took %v", d)
	}
	l.Release()
	r1, err := LockShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := LockShared(dir)
	if err != nil {
		t.Fatalf("two readers: %v", err)
	}
	if _, err := LockExclusive(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("writer beside readers: %v", err)
	}
	r1.Release()
	r2.Release()
	if l, err := LockExclusive(dir); err != nil {
		t.Fatal(err)
	} else {
		l.Release()
	}
}
