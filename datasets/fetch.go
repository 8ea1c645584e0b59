package datasets

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// ClinSQLCommit is the upstream commit the project was checked against.
const ClinSQLCommit = "337f783f9d0002316096ba80c7ea9fbf9ce9ccf0"

// ClinSQLArchiveURL is GitHub's tarball of Barryshen1/ClinSQL at ClinSQLCommit.
const ClinSQLArchiveURL = "https://codeload.github.com/Barryshen1/ClinSQL/tar.gz/" + ClinSQLCommit

// FetchOptions configures FetchClinSQL.
type FetchOptions struct {
	URL    string       // archive URL; ClinSQLArchiveURL when empty
	SHA256 string       // expected archive checksum, hex; unchecked when empty
	Client *http.Client // http.DefaultClient when nil
	// MaxBytes bounds the download (default 1 GiB) and MaxFileBytes each
	// extracted file (default 64 MiB).
	MaxBytes, MaxFileBytes int64
	Retries                int // extra attempts on network errors and 5xx (default 3)
	// Outputs also extracts the released model outputs (outputs/evaluation
	// and outputs/inference) into dir/outputs. Files over MaxFileBytes there
	// are skipped with a note in Log (the release has a result of about a
	// million rows).
	Outputs bool
	Log     io.Writer
	// Progress, when set, follows the download: Restart with the size the
	// server announces (-1 when it gives none) at every attempt, then
	// every chunk received is written to it.
	Progress interface {
		io.Writer
		Restart(total int64)
	}
}

// FetchClinSQL downloads the public ClinSQL release and extracts its
// data/splits tree into dir/data/splits, then loads it to check that it is
// complete. An existing dir/data/splits is left alone (an error says so).
// Extraction goes to a temporary folder renamed into place at the end, so an
// interrupted fetch leaves nothing half-written, and the folders it created
// are removed again when it fails, so that a failed fetch leaves nothing
// behind to be mistaken for data.
func FetchClinSQL(ctx context.Context, dir string, opt FetchOptions) (_ []*Task, err error) {
	if opt.URL == "" {
		opt.URL = ClinSQLArchiveURL
	}
	opt = opt.withDefaults()
	dest := filepath.Join(dir, "data", "splits")
	if _, err := os.Stat(dest); err == nil {
		return nil, fmt.Errorf("%s already exists; remove it to fetch again", dest)
	}
	created := missingDirs(filepath.Join(dir, "data"))
	defer func() {
		if err != nil {
			for _, d := range created {
				os.Remove(d) // only if empty: never what was there before
			}
		}
	}()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	archive, err := os.CreateTemp(dir, ".clinsql-*.tar.gz")
	if err != nil {
		return nil, err
	}
	defer os.Remove(archive.Name())
	defer archive.Close()

	fmt.Fprintf(opt.Log, "downloading %s\n", opt.URL)
	if err := download(ctx, opt, archive); err != nil {
		return nil, err
	}
	if _, err := archive.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Join(dir, "data"), ".splits-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	n, err := extract(archive, tmp, "data/splits/", opt.MaxFileBytes, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opt.URL, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: the archive holds no data/splits files", opt.URL)
	}
	tasks, err := LoadClinSQL(tmp)
	if err != nil {
		return tasks, fmt.Errorf("downloaded data does not load: %w", err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return nil, err
	}
	for _, t := range tasks {
		t.Dir = filepath.Join(dest, strings.TrimPrefix(t.Dir, tmp))
	}
	if opt.Outputs {
		if err := fetchOutputs(archive, dir, opt); err != nil {
			return tasks, err
		}
	}
	fmt.Fprintf(opt.Log, "extracted %d files, %d tasks into %s\n", n, len(tasks), dest)
	return tasks, nil
}

// withDefaults fills the options left zero.
func (opt FetchOptions) withDefaults() FetchOptions {
	if opt.Client == nil {
		opt.Client = http.DefaultClient
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = 1 << 30
	}
	if opt.MaxFileBytes == 0 {
		opt.MaxFileBytes = 64 << 20
	}
	if opt.Retries == 0 {
		opt.Retries = 3
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	return opt
}

// Download writes opt.URL into w as FetchClinSQL fetches its archive:
// transient failures (network errors, 5xx, 429, a transfer shorter than
// announced) are retried with w emptied first, the size is bounded by
// opt.MaxBytes, and opt.SHA256, when set, must match. A status other than
// 200 that is not retried is returned as a *StatusError.
func Download(ctx context.Context, opt FetchOptions, w *os.File) error {
	return download(ctx, opt.withDefaults(), w)
}

// StatusError is a download the server answered with another status than
// 200 OK.
type StatusError struct {
	URL    string
	Status string
	Code   int
}

func (e *StatusError) Error() string { return fmt.Sprintf("download %s: %s", e.URL, e.Status) }

// MissingDirs lists dir and those of its parents that do not exist yet,
// deepest first: the folders MkdirAll(dir) would create, for a fetch that
// fails to remove again.
func MissingDirs(dir string) []string { return missingDirs(dir) }

// missingDirs lists dir and those of its parents that do not exist yet,
// deepest first: the folders MkdirAll(dir) would create.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			return out
		}
		out = append(out, d)
	}
}

// download writes the archive to w, retrying transient failures, and checks
// the size cap and checksum.
func download(ctx context.Context, opt FetchOptions, w *os.File) error {
	var last error
	for attempt := 0; attempt <= opt.Retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 500 * time.Millisecond):
			}
			if err := w.Truncate(0); err != nil {
				return err
			}
			if _, err := w.Seek(0, io.SeekStart); err != nil {
				return err
			}
		}
		retry, err := downloadOnce(ctx, opt, w)
		if err == nil {
			return nil
		}
		last = err
		if !retry || ctx.Err() != nil {
			return err
		}
	}
	return last
}

func downloadOnce(ctx context.Context, opt FetchOptions, w io.Writer) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, opt.URL, nil)
	if err != nil {
		return false, err
	}
	resp, err := opt.Client.Do(req)
	if err != nil {
		return true, fmt.Errorf("download %s: %w", opt.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests,
			&StatusError{URL: opt.URL, Status: resp.Status, Code: resp.StatusCode}
	}
	h := sha256.New()
	dst := io.MultiWriter(w, h)
	if opt.Progress != nil {
		opt.Progress.Restart(resp.ContentLength)
		dst = io.MultiWriter(w, h, opt.Progress)
	}
	n, err := io.Copy(dst, io.LimitReader(resp.Body, opt.MaxBytes+1))
	switch {
	case err != nil:
		return true, fmt.Errorf("download %s: %w", opt.URL, err)
	case n > opt.MaxBytes:
		return false, fmt.Errorf("download %s: larger than %d bytes", opt.URL, opt.MaxBytes)
	case resp.ContentLength >= 0 && n != resp.ContentLength:
		return true, fmt.Errorf("download %s: truncated (%d of %d bytes)", opt.URL, n, resp.ContentLength)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); opt.SHA256 != "" && !strings.EqualFold(sum, opt.SHA256) {
		return false, fmt.Errorf("download %s: sha256 %s, want %s", opt.URL, sum, opt.SHA256)
	}
	return false, nil
}

// fetchOutputs extracts outputs/ from the downloaded archive into
// dir/outputs, through a temporary folder.
func fetchOutputs(archive *os.File, dir string, opt FetchOptions) error {
	dest := filepath.Join(dir, "outputs")
	if _, err := os.Stat(dest); err == nil {
		fmt.Fprintf(opt.Log, "%s exists; released outputs not extracted again\n", dest)
		return nil
	}
	if _, err := archive.Seek(0, io.SeekStart); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, ".outputs-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	n, err := extract(archive, tmp, "outputs/", opt.MaxFileBytes, opt.Log)
	if err != nil {
		return fmt.Errorf("%s: %w", opt.URL, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: the archive holds no outputs/ files", opt.URL)
	}
	fmt.Fprintf(opt.Log, "extracted %d released output files into %s\n", n, dest)
	return os.Rename(tmp, dest)
}

// extract copies the regular files below <top>/<prefix> of a gzipped tar
// into dest. Entries that would escape dest, links and devices are refused.
// A file over maxFile is an error, or, when skipLog is set, skipped with a
// note there.
func extract(r io.Reader, dest, prefix string, maxFile int64, skipLog io.Writer) (int, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return 0, fmt.Errorf("not a gzip archive: %w", err)
	}
	tr := tar.NewReader(gz)
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("reading archive: %w", err)
		}
		for _, elem := range strings.Split(h.Name, "/") {
			if elem == ".." {
				return n, fmt.Errorf("archive entry %q escapes the destination", h.Name)
			}
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		// GitHub tarballs put everything under "<repo>-<commit>/".
		_, rest, _ := strings.Cut(name, "/")
		rel, ok := strings.CutPrefix(rest, prefix)
		if !ok {
			continue
		}
		if strings.HasPrefix(name, "/") {
			return n, fmt.Errorf("archive entry %q escapes the destination", h.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(rel))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return n, err
			}
		case tar.TypeReg:
			if h.Size > maxFile && skipLog != nil {
				fmt.Fprintf(skipLog, "skipped %s: %d bytes, over the %d-byte limit\n", h.Name, h.Size, maxFile)
				continue
			}
			if h.Size > maxFile {
				return n, fmt.Errorf("archive entry %q: %d bytes, over the %d-byte limit", h.Name, h.Size, maxFile)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return n, err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
			if err != nil {
				return n, err
			}
			_, err = io.Copy(f, io.LimitReader(tr, maxFile))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return n, fmt.Errorf("archive entry %q: %w", h.Name, err)
			}
			n++
		default:
			return n, fmt.Errorf("archive entry %q: links and special files are not accepted", h.Name)
		}
	}
}
