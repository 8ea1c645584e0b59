package mimic

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// release is a fake PhysioNet release folder served over real HTTP.
type release struct {
	mu       sync.Mutex
	files    map[string]string // what the checksums describe
	serve    map[string]string // what the server sends instead, if different
	truncate map[string]bool   // declare the full length, send half, hang up
	status   map[string]int    // answer with this status
	requests map[string]int
}

func newRelease() *release {
	r := &release{
		files: map[string]string{
			"LICENSE.txt":              "Open Data Commons Open Database License v1.0 (synthetic copy)\n",
			"hosp/patients.csv.gz":     "not really gzip, synthetic bytes",
			"hosp/admissions.csv.gz":   strings.Repeat("synthetic admissions ", 1000),
			"icu/icustays.csv.gz":      "synthetic icustays",
			"demo subject id list.csv": "subject_id\n1\n",
		},
		serve: map[string]string{}, truncate: map[string]bool{}, status: map[string]int{}, requests: map[string]int{},
	}
	return r
}

func (r *release) sums() string {
	var names []string
	for n := range r.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%x %s\n", sha256.Sum256([]byte(r.files[n])), n)
	}
	return b.String()
}

func (r *release) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	name := strings.TrimPrefix(req.URL.Path, "/files/mimic-iv-demo/2.2/")
	r.mu.Lock()
	r.requests[name]++
	status, body, ok := r.status[name], "", false
	if name == ChecksumFile {
		body, ok = r.sums(), true
	} else if s, found := r.serve[name]; found {
		body, ok = s, true
	} else {
		body, ok = r.files[name]
	}
	trunc := r.truncate[name]
	r.mu.Unlock()
	switch {
	case status != 0:
		http.Error(w, "injected failure", status)
	case !ok:
		http.NotFound(w, req)
	case trunc:
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(body[:len(body)/2]))
		// Returning with fewer bytes than declared makes the server close
		// the connection: the client sees a truncated body.
	default:
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write([]byte(body))
	}
}

func fetchFrom(t *testing.T, r *release, out string) (*FetchReport, error) {
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return FetchDemo(context.Background(), FetchOptions{BaseURL: srv.URL + "/files/mimic-iv-demo/2.2", Out: out, Client: srv.Client()})
}

func TestFetchDemo(t *testing.T) {
	r := newRelease()
	out := t.TempDir()
	rep, err := fetchFrom(t, r, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Downloaded) != len(r.files) || len(rep.Present) != 0 {
		t.Errorf("downloaded %v, present %v", rep.Downloaded, rep.Present)
	}
	for name, content := range r.files {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil || string(b) != content {
			t.Errorf("%s: %v, content ok=%v", name, err, string(b) == content)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, ChecksumFile)); string(b) != r.sums() {
		t.Error("checksum list not written")
	}
	// A second run verifies and downloads nothing again.
	rep, err = fetchFrom(t, r, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Downloaded) != 0 || len(rep.Present) != len(r.files) {
		t.Errorf("second run downloaded %v", rep.Downloaded)
	}
	if n := r.requests["hosp/admissions.csv.gz"]; n != 1 {
		t.Errorf("admissions fetched %d times", n)
	}
}

func TestFetchDemoFailures(t *testing.T) {
	cases := []struct {
		name  string
		setup func(r *release)
		file  string
		want  string
		tries int
	}{
		{"checksum mismatch", func(r *release) { r.serve["hosp/patients.csv.gz"] = "tampered bytes" }, "hosp/patients.csv.gz", "checksum mismatch", 3},
		{"truncated download", func(r *release) { r.truncate["hosp/admissions.csv.gz"] = true }, "hosp/admissions.csv.gz", "hosp/admissions.csv.gz", 3},
		{"not found", func(r *release) { r.status["icu/icustays.csv.gz"] = http.StatusNotFound }, "icu/icustays.csv.gz", "HTTP 404", 1},
		{"server error", func(r *release) { r.status["LICENSE.txt"] = http.StatusServiceUnavailable }, "LICENSE.txt", "HTTP 503", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRelease()
			c.setup(r)
			out := t.TempDir()
			rep, err := fetchFrom(t, r, out)
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
				t.Errorf("error %q should name %s and say %q", err, c.file, c.want)
			}
			if _, serr := os.Stat(filepath.Join(out, filepath.FromSlash(c.file))); serr == nil {
				t.Errorf("%s kept despite the failure", c.file)
			}
			if _, serr := os.Stat(filepath.Join(out, filepath.FromSlash(c.file)) + ".part"); serr == nil {
				t.Errorf("%s.part left behind", c.file)
			}
			if _, serr := os.Stat(filepath.Join(out, ChecksumFile)); serr == nil {
				t.Error("checksum list written although the release is incomplete")
			}
			// The other files were fetched and verified all the same.
			if len(rep.Downloaded) != len(r.files)-1 {
				t.Errorf("downloaded %d files, want %d", len(rep.Downloaded), len(r.files)-1)
			}
			if got := r.requests[c.file]; got != c.tries {
				t.Errorf("%s requested %d times, want %d", c.file, got, c.tries)
			}
			// Once the server is fixed, a rerun completes, fetching only that file.
			r.mu.Lock()
			delete(r.serve, c.file)
			delete(r.truncate, c.file)
			delete(r.status, c.file)
			r.mu.Unlock()
			rep, err = fetchFrom(t, r, out)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Downloaded) != 1 || rep.Downloaded[0] != c.file {
				t.Errorf("rerun downloaded %v, want only %s", rep.Downloaded, c.file)
			}
		})
	}
}

func TestParseChecksums(t *testing.T) {
	good := strings.Repeat("ab", 32)
	cases := []struct {
		name, in, err string
		n             int
	}{
		{"plain", good + " hosp/a.csv.gz\n" + good + " *icu/b.csv.gz\r\n\n", "", 2},
		{"two spaces", good + "  LICENSE.txt\n", "", 1},
		{"self and duplicates skipped", good + " SHA256SUMS.txt\n" + good + " a\n" + good + " a\n", "", 1},
		{"bad hex", "xyz a\n", "not a SHA-256", 0},
		{"short hash", "abcd a\n", "not a SHA-256", 0},
		{"no path", good + "\n", "want", 0},
		{"escape", good + " ../etc/passwd\n", "unsafe path", 0},
		{"absolute", good + " /etc/passwd\n", "unsafe path", 0},
		{"empty", "\n", "no entries", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseChecksums([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || len(got) != c.n {
				t.Errorf("got %d entries, %v; want %d", len(got), err, c.n)
			}
		})
	}
}
