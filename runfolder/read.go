package runfolder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Size limits for the files of a run folder. A file over its limit is
// refused with an error naming it: a run folder from elsewhere must not be
// able to exhaust memory.
const (
	// MaxSummaryBytes bounds execution_summary.json, manifest.json and
	// benchmark_summary.json.
	MaxSummaryBytes = 16 << 20
	// MaxResultBytes bounds a result CSV. The largest gold result of the
	// validation split is far below it; larger results are truncated by
	// the engines before they are written.
	MaxResultBytes = 256 << 20
	// MaxJudgeFileBytes bounds a judge output's files (ledger.jsonl,
	// detailed_grading.json, judge_summary.json), which reports and agree
	// read from others: a 633-task ledger with long explanations is tens
	// of megabytes.
	MaxJudgeFileBytes = 512 << 20
)

// ErrNotRegular is wrapped by the error for a path that is a symlink, a
// device, a FIFO, a socket or a folder where a file is expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over its size limit.
var ErrTooLarge = errors.New("file too large")

// Open opens a regular file of a run folder for reading, refusing
// symlinks (O_NOFOLLOW), devices, FIFOs and sockets without blocking on
// them (O_NONBLOCK: opening a FIFO with no writer would wait for ever), and
// files over limit bytes. The reader stops at limit bytes.
func Open(path string, limit int64) (io.ReadCloser, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, 0, fmt.Errorf("%s: %w (a symbolic link: run folders are read without following links)", path, ErrNotRegular)
		}
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, describeMode(st.Mode()))
	}
	if st.Size() > limit {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, ErrTooLarge, st.Size(), limit)
	}
	return &limited{Reader: io.LimitReader(f, limit), f: f}, st.Size(), nil
}

type limited struct {
	io.Reader
	f *os.File
}

func (l *limited) Close() error { return l.f.Close() }

// ReadFile reads a regular file of a run folder whole, as Open does.
func ReadFile(path string, limit int64) ([]byte, error) {
	r, size, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, 0, size)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		b = append(b, buf[:n]...)
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("%s: %w: over %d bytes", path, ErrTooLarge, limit)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// Exists reports whether path names something (without following a
// symlink), so that a symlink is found and then refused by Open rather
// than silently ignored.
func Exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return m.String()
}
