package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is wrapped by the error for a name that is a symbolic
// link, a FIFO, a device, a socket or a folder where a file is expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over its size limit.
var ErrTooLarge = errors.New("file too large")

// ErrLinked is wrapped by the error for a file opened for writing that
// has more than one hard link.
var ErrLinked = errors.New("file has other hard links")

// TempMark is part of the name of every temporary file [Dir.WriteFile]
// and [Dir.TempFile] create ("."+base+TempMark+random), the mark
// internal/atomicfile uses too.
const TempMark = ".tmp-"

// Dir is an open folder whose files are opened without following links.
// It holds the folder open (a file descriptor) until Close. It is safe
// for concurrent use.
type Dir struct {
	root *os.Root
	path string
}

// OpenDir opens the folder at path.
func OpenDir(path string) (*Dir, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{root: r, path: path}, nil
}

// MkdirAll creates the folder at path if needed (0755) and opens it.
func MkdirAll(path string) (*Dir, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, err
	}
	return OpenDir(path)
}

// Path is the folder's path as given to OpenDir.
func (d *Dir) Path() string { return d.path }

// Join is the full path of name in the folder, for messages.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// Close releases the folder.
func (d *Dir) Close() error { return d.root.Close() }

// OpenFile opens the regular file name of the folder (see the package
// documentation for what is refused) with flag (os.O_RDONLY, os.O_RDWR,
// os.O_CREATE, os.O_APPEND, os.O_TRUNC, os.O_EXCL) and, when it is
// created, perm. The file is in blocking mode, as os.OpenFile's is.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	full := d.Join(name)
	if !filepath.IsLocal(name) {
		return nil, &fs.PathError{Op: "open", Path: full, Err: errors.New("name leaves the folder")}
	}
	parent, base := filepath.Split(name)
	if parent == "" {
		parent = "."
	}
	// The folders on the way are resolved by os.Root, which keeps them
	// inside d; O_DIRECTORY: a FIFO where a folder is expected fails
	// rather than blocks.
	pf, err := d.root.OpenFile(parent, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "open", Path: full, Err: err}
	}
	defer pf.Close()
	trunc := flag&os.O_TRUNC != 0
	writing := flag&(os.O_WRONLY|os.O_RDWR) != 0
	var fd int
	for {
		fd, err = unix.Openat(int(pf.Fd()), base, (flag&^os.O_TRUNC)|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != unix.EINTR {
			break
		}
	}
	switch {
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("%s: %w (a symbolic link: files in this folder are opened without following links)", full, ErrNotRegular)
	case errors.Is(err, unix.ENXIO):
		// O_WRONLY|O_NONBLOCK on a FIFO without a reader, or a device
		// with nothing behind it.
		return nil, fmt.Errorf("%s: %w (a FIFO or a device)", full, ErrNotRegular)
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: full, Err: err}
	}
	fail := func(err error) (*os.File, error) {
		unix.Close(fd)
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fail(&fs.PathError{Op: "stat", Path: full, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fail(fmt.Errorf("%s: %w (%s)", full, ErrNotRegular, describe(st.Mode)))
	}
	if writing && st.Nlink > 1 {
		return fail(fmt.Errorf("%s: %w (%d links): writing to it would change the other names too", full, ErrLinked, st.Nlink))
	}
	if flag&unix.O_NONBLOCK == 0 {
		if err := unix.SetNonblock(fd, false); err != nil {
			return fail(&fs.PathError{Op: "open", Path: full, Err: err})
		}
	}
	if trunc && writing {
		if err := unix.Ftruncate(fd, 0); err != nil {
			return fail(&fs.PathError{Op: "truncate", Path: full, Err: err})
		}
	}
	return os.NewFile(uintptr(fd), full), nil
}

func describe(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFDIR:
		return "a folder"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return fmt.Sprintf("file type %#o", mode&unix.S_IFMT)
}

// Open opens the regular file name for reading.
func (d *Dir) Open(name string) (*os.File, error) { return d.OpenFile(name, os.O_RDONLY, 0) }

// OpenReader opens the regular file name for reading at most limit bytes:
// a file larger than limit is refused with [ErrTooLarge], and the reader
// stops at limit bytes should the file grow after the check. It returns
// the file's size when opened.
func (d *Dir) OpenReader(name string, limit int64) (io.ReadCloser, int64, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if st.Size() > limit {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w: %d bytes, the limit is %d", f.Name(), ErrTooLarge, st.Size(), limit)
	}
	return &limited{Reader: io.LimitReader(f, limit), f: f}, st.Size(), nil
}

type limited struct {
	io.Reader
	f *os.File
}

func (l *limited) Close() error { return l.f.Close() }

// ReadFile reads the regular file name whole, refusing one over limit
// bytes with [ErrTooLarge].
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	r, size, err := d.OpenReader(name, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, limit+1)) // r stops at limit; +1 is never read
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Join(name), err)
	}
	if int64(len(b)) < size {
		// Shrunk while read: what was read is a prefix, not the file.
		return nil, fmt.Errorf("%s: changed while read (%d of %d bytes)", d.Join(name), len(b), size)
	}
	return b, nil
}

// TempFile creates a new file in folder sub ("" or "." for the folder
// itself) named after base ("."+base+TempMark+random), open for reading
// and writing, and returns it with its name relative to d.
func (d *Dir) TempFile(sub, base string) (*os.File, string, error) {
	for range 100 {
		var r [8]byte
		_, _ = rand.Read(r[:])
		name := filepath.Join(sub, "."+base+TempMark+hex.EncodeToString(r[:]))
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("%s: cannot create a temporary file", d.Join(sub))
}

// Spool creates a file in the folder that has no name (it is removed at
// once, open): scratch space on the folder's disk that nothing else can
// open and that disappears when it is closed, however the process ends.
func (d *Dir) Spool(base string) (*os.File, error) {
	f, name, err := d.TempFile("", base)
	if err != nil {
		return nil, err
	}
	if err := d.root.Remove(name); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WriteFile replaces the file name with data atomically: the data is
// written to a temporary file in the same folder, synced, given perm and
// renamed into place, so that a reader (or a process after a kill) sees
// the old file or the new one, whole. A symbolic link or a FIFO at name is
// replaced, never followed.
func (d *Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if !filepath.IsLocal(name) {
		return &fs.PathError{Op: "write", Path: d.Join(name), Err: errors.New("name leaves the folder")}
	}
	dir, base := filepath.Split(name)
	f, tmp, err := d.TempFile(dir, base)
	if err != nil {
		return fmt.Errorf("write %s: %w", d.Join(name), err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		// Before the rename: after a power loss the name must not point
		// at unwritten blocks.
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, name)
	}
	if err != nil {
		d.root.Remove(tmp)
		return fmt.Errorf("write %s: %w", d.Join(name), err)
	}
	return nil
}

// Rename renames a file of the folder; a link at newname is replaced,
// not followed.
func (d *Dir) Rename(oldname, newname string) error { return d.root.Rename(oldname, newname) }

// Remove removes a file or an empty folder of the folder.
func (d *Dir) Remove(name string) error { return d.root.Remove(name) }

// MkdirAll creates the folder name inside d, with its parents.
func (d *Dir) MkdirAll(name string, perm fs.FileMode) error { return d.root.MkdirAll(name, perm) }

// Sync commits the folder's entries (a rename, a new file) to disk.
func (d *Dir) Sync() error {
	f, err := d.root.OpenFile(".", os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Lstat describes name without following a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(name) }

// ReadDir lists the folder name of d ("." for d itself).
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// OpenFile opens the file name of the folder dir as [Dir.OpenFile] does.
func OpenFile(dir, name string, flag int, perm fs.FileMode) (*os.File, error) {
	d, err := OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.OpenFile(name, flag, perm)
}

// ReadFile reads the file name of the folder dir as [Dir.ReadFile] does.
func ReadFile(dir, name string, limit int64) ([]byte, error) {
	d, err := OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFile(name, limit)
}
