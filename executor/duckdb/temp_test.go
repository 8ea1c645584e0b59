package duckdb

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A spill folder left by a killed process is reclaimed when the next engine
// opens; live processes' folders and other files are left alone.
func TestReclaimTempDirs(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot start a process:", err)
	}
	dead := cmd.Process.Pid // exited and reaped: no such process now
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := mk(tempPrefix + strconv.Itoa(dead) + "-123")
	mine := mk(tempPrefix + strconv.Itoa(os.Getpid()) + "-456")
	other := mk("clinsql-duckdb-789")
	odd := mk(tempPrefix + "x-1")
	reclaimTempDirs(dir)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("a dead process's spill folder was kept: %v", err)
	}
	for _, p := range []string{mine, other, odd} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}
