package runfolder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/clinsql/clinsql/internal/safefile"
)

// LockFile is the lock's name in a locked folder. It holds the pid and the
// command of the process that locked it last, for the message a second
// process gets.
const LockFile = ".clinsql.lock"

// Lock is an advisory lock on a folder, held until Release (or the
// process's end: the kernel drops flock locks of a dead process, so a kill
// -9 never leaves a folder locked).
type Lock struct {
	f    *os.File
	path string
}

// ErrLocked is wrapped by the error of a lock held by another process.
var ErrLocked = errors.New("in use by another clinsql process")

// LockExclusive takes the exclusive lock of dir (created if missing) for a
// writer, at once or not at all: a folder in use is refused with the
// holder's pid and command, never waited for.
func LockExclusive(dir string) (*Lock, error) { return lock(dir, syscall.LOCK_EX) }

// LockShared takes a shared lock of dir for a reader: readers exclude a
// writer, not each other. A reader never creates the lock file: a folder
// without one was never written by clinsql (a released run, perhaps on a
// read-only share) and is left untouched; every clinsql writer creates it
// before its first write.
func LockShared(dir string) (*Lock, error) { return lock(dir, syscall.LOCK_SH) }

func lock(dir string, how int) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	flags := os.O_RDWR | os.O_CREATE
	if how == syscall.LOCK_EX {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	} else {
		flags = os.O_RDONLY
	}
	// Not through a link, a regular file only, never blocking on a FIFO
	// placed there (a shipped run folder's lock file is not trusted).
	f, err := safefile.OpenFile(dir, LockFile, flags, 0o644)
	if err != nil && how == syscall.LOCK_SH && errors.Is(err, os.ErrNotExist) {
		return &Lock{path: path}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		holder := readHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			if holder == "" {
				holder = "another clinsql process"
			}
			return nil, fmt.Errorf("%s is %w (%s); wait for it to finish, or use another folder",
				dir, ErrLocked, holder)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if how == syscall.LOCK_EX {
		// Who holds it, for the next process's message.
		cmd := strings.Join(os.Args, " ")
		if len(cmd) > 300 {
			cmd = cmd[:300] + "..."
		}
		info := fmt.Sprintf("pid %d since %s: %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339), cmd)
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(info), 0)
		}
	}
	return &Lock{f: f, path: path}, nil
}

func readHolder(f *os.File) string {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	return strings.TrimSpace(string(b[:n]))
}

// Release drops the lock. The lock file stays: removing it would let a
// third process lock a new file while a second one waits on the old.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
