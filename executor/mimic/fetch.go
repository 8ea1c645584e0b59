package mimic

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// DemoURL is the PhysioNet folder of the openly licensed MIMIC-IV Clinical
// Database Demo v2.2 (ODbL 1.0): SHA256SUMS.txt, hosp/, icu/ and the licence.
const DemoURL = "https://physionet.org/files/mimic-iv-demo/2.2/"

// ChecksumFile names the checksum list of a PhysioNet release.
const ChecksumFile = "SHA256SUMS.txt"

// FetchOptions configure [FetchDemo].
type FetchOptions struct {
	// BaseURL is the release folder; DemoURL when empty.
	BaseURL string
	// Out is the folder to fill (created if needed).
	Out string
	// Client defaults to an http.Client with a 10-minute timeout per file.
	Client *http.Client
	// Concurrency bounds parallel downloads (default 4).
	Concurrency int
	// Attempts per file for transient failures (network errors, 5xx,
	// truncated bodies); default 3.
	Attempts int
	// Progress, when set, receives one line per file.
	Progress io.Writer
}

// FetchReport says what a fetch did.
type FetchReport struct {
	Downloaded []string // files fetched and verified
	Present    []string // files already there with the right checksum
	Bytes      int64    // bytes downloaded
}

// checksum is one line of SHA256SUMS.txt.
type checksum struct {
	sum  [32]byte
	path string // slash-separated, relative
}

// FetchDemo downloads every file listed in the release's SHA256SUMS.txt into
// opts.Out, verifying each file's SHA-256 before it takes its final name
// (downloads go to "<file>.part" first). Files already present with the right
// checksum are not fetched again, so an interrupted fetch resumes. A file
// whose checksum does not match, a truncated download or an HTTP error fails
// that file; the others are still fetched, and the returned error lists every
// failed file.
func FetchDemo(ctx context.Context, opts FetchOptions) (*FetchReport, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DemoURL
	}
	if !strings.HasSuffix(opts.BaseURL, "/") {
		opts.BaseURL += "/"
	}
	base, err := url.Parse(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("fetch: base URL: %w", err)
	}
	if opts.Out == "" {
		return nil, errors.New("fetch: no output folder")
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Minute}
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	f := &fetcher{opts: opts, base: base}

	var sums bytes.Buffer
	if _, err := f.download(ctx, ChecksumFile, &sums); err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	list, err := parseChecksums(sums.Bytes())
	if err != nil {
		return nil, fmt.Errorf("fetch: %s: %w", ChecksumFile, err)
	}

	rep := &FetchReport{}
	var mu sync.Mutex
	failures := make([]error, len(list))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	for i, c := range list {
		g.Go(func() error {
			fetched, n, err := f.fetchFile(gctx, c)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failures[i] = err
				f.progress("%s: FAILED: %v", c.path, err)
			case fetched:
				rep.Downloaded = append(rep.Downloaded, c.path)
				rep.Bytes += n
				f.progress("%s: downloaded and verified (%d bytes)", c.path, n)
			default:
				rep.Present = append(rep.Present, c.path)
				f.progress("%s: already present and verified", c.path)
			}
			// A file's failure is data; only the caller's cancellation stops the rest.
			return ctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return rep, fmt.Errorf("fetch: %w", err)
	}
	// The checksum list goes last: a folder with it is a complete release.
	if err := errors.Join(failures...); err != nil {
		return rep, fmt.Errorf("fetch: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(opts.Out, ChecksumFile), sums.Bytes()); err != nil {
		return rep, fmt.Errorf("fetch: %w", err)
	}
	return rep, nil
}

type fetcher struct {
	opts FetchOptions
	base *url.URL
	mu   sync.Mutex
}

func (f *fetcher) progress(format string, a ...any) {
	if f.opts.Progress == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintf(f.opts.Progress, format+"\n", a...)
}

// parseChecksums reads "<64 hex digits> <path>" lines (sha256sum's format,
// with an optional '*' before binary paths). Paths must be relative and stay
// inside the release folder.
func parseChecksums(b []byte) ([]checksum, error) {
	var out []checksum
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		sumHex, p, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("line %d: want \"<sha256> <path>\", got %q", n, line)
		}
		raw, err := hex.DecodeString(sumHex)
		if err != nil || len(raw) != 32 {
			return nil, fmt.Errorf("line %d: %q is not a SHA-256 in hex", n, sumHex)
		}
		p = strings.TrimPrefix(strings.TrimLeft(p, " "), "*")
		clean := path.Clean(p)
		if p == "" || path.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(p, `\`) {
			return nil, fmt.Errorf("line %d: unsafe path %q", n, p)
		}
		if clean == ChecksumFile || seen[clean] {
			continue
		}
		seen[clean] = true
		c := checksum{path: clean}
		copy(c.sum[:], raw)
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no entries")
	}
	return out, nil
}

// fetchFile makes sure c.path is in Out with the right checksum, downloading
// it if needed. It reports whether it downloaded and how many bytes.
func (f *fetcher) fetchFile(ctx context.Context, c checksum) (bool, int64, error) {
	dest := filepath.Join(f.opts.Out, filepath.FromSlash(c.path))
	if sum, err := fileSHA256(dest); err == nil && sum == c.sum {
		return false, 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return false, 0, err
	}
	part := dest + ".part"
	var lastErr error
	for attempt := 1; attempt <= f.opts.Attempts; attempt++ {
		if attempt > 1 {
			select {
			case <-ctx.Done():
				return false, 0, ctx.Err()
			case <-time.After(time.Duration(attempt-1) * 500 * time.Millisecond):
			}
		}
		n, err := f.downloadTo(ctx, c, part)
		if err == nil {
			if err := os.Rename(part, dest); err != nil {
				os.Remove(part)
				return false, 0, err
			}
			return true, n, nil
		}
		os.Remove(part)
		lastErr = err
		var perm *permanentError
		if errors.As(err, &perm) || ctx.Err() != nil {
			break
		}
	}
	return false, 0, lastErr
}

// downloadTo writes c into part and verifies its checksum.
func (f *fetcher) downloadTo(ctx context.Context, c checksum, part string) (int64, error) {
	out, err := os.Create(part)
	if err != nil {
		return 0, &permanentError{err}
	}
	h := sha256.New()
	n, err := f.download(ctx, c.path, io.MultiWriter(out, h))
	if cerr := out.Close(); err == nil && cerr != nil {
		err = &permanentError{cerr}
	}
	if err != nil {
		return n, err
	}
	var got [32]byte
	copy(got[:], h.Sum(nil))
	if got != c.sum {
		// A corrupt copy on the server or in a proxy: worth another try.
		return n, fmt.Errorf("%s: checksum mismatch: got sha256 %x, %s lists %x (%d bytes received)", c.path, got, ChecksumFile, c.sum, n)
	}
	return n, nil
}

// permanentError is a failure another attempt would not fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// download GETs rel under the base URL into w and checks the body length
// against Content-Length.
func (f *fetcher) download(ctx context.Context, rel string, w io.Writer) (int64, error) {
	u := f.base.JoinPath(strings.Split(rel, "/")...)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, &permanentError{err}
	}
	req.Header.Set("User-Agent", "clinsql-fetch-demo")
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", rel, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("%s: GET %s: HTTP %s", rel, u, resp.Status)
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return 0, err
		}
		return 0, &permanentError{err}
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("%s: download interrupted after %d bytes: %w", rel, n, err)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return n, fmt.Errorf("%s: truncated download: %d of %d bytes", rel, n, resp.ContentLength)
	}
	return n, nil
}

func fileSHA256(p string) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(p)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
