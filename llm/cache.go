package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/internal/safefile"
	"github.com/clinsql/clinsql/llm/llmfmt"
)

// Cache is a content-addressed store of successful replies on disk: one JSON
// file per call under dir/<first two hex digits>/<key>.json. It is safe for
// concurrent use by many clients and processes: entries are written to a
// temporary file and renamed into place, so a reader (or a process killed
// with SIGKILL mid-write) never sees a partial entry. An entry that does not
// decode, or whose checksum or key does not match, is ignored as a miss and
// replaced by the next successful call. Entries never expire: the cache is
// what makes a re-run reproducible and free.
//
// Entries are read and written with package safefile: inside the cache
// folder, never through a symbolic link, regular files only (a FIFO in
// place of an entry is a miss at once, never a wait), at most
// maxCacheEntryBytes read.
//
// With a key (CacheKey: this machine's, package localkey) an entry's sum is
// an HMAC of its cache key and reply: an entry written elsewhere (a cache
// copied or shipped with an output folder, one forged with a recomputed
// SHA-256) is a miss, bought again, and counted (Rejected).
type Cache struct {
	dir string
	key localkey.Key
	// rejected counts entries read that failed authentication.
	rejected atomic.Int64
}

// CacheOption configures OpenCache.
type CacheOption func(*Cache)

// CacheKey authenticates the cache's entries with key (see Cache).
func CacheKey(key localkey.Key) CacheOption { return func(c *Cache) { c.key = key } }

// Rejected is the number of entries read that were well formed but not
// written with the cache's key (since the cache was opened).
func (c *Cache) Rejected() int { return int(c.rejected.Load()) }

// maxCacheEntryBytes bounds a cache entry: a reply is at most
// maxReplyBytes, and its JSON encoding escapes some characters; a reply
// whose entry would be larger is not cached.
const maxCacheEntryBytes = 2*maxReplyBytes + 1<<20

// OpenCache creates dir if needed and returns the cache stored there.
func OpenCache(dir string, opts ...CacheOption) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("llm: cache directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llm: open cache: %w", err)
	}
	reclaimTemps(dir, time.Now().Add(-staleTemp))
	c := &Cache{dir: dir}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// OpenLocalCache opens the cache in dir with this machine's key
// (localkey.Default): replies cached elsewhere (a cache copied or shipped
// with a folder) are bought again, never served.
func OpenLocalCache(dir string) (*Cache, error) {
	key, err := localkey.Default()
	if err != nil {
		return nil, err
	}
	return OpenCache(dir, CacheKey(key))
}

// NoteRejected writes to w how many cached replies were not this
// machine's, if any (c may be nil).
func (c *Cache) NoteRejected(w io.Writer) {
	if c != nil && c.Rejected() > 0 {
		fmt.Fprintf(w, "note: %d cached replies in %s were not written on this machine (copied, shipped with a folder, or cached before entries were authenticated): they were not used, and were asked for again\n", c.Rejected(), c.Dir())
	}
}

// staleTemp is the age past which a cache temporary file is abandoned: a
// write takes milliseconds, so an older one was left by a killed process,
// while a younger one may be another process's write in progress.
const staleTemp = 10 * time.Minute

// reclaimTemps removes the temporary files (".tmp-*", and the
// ".<entry>.tmp-*" of safefile) in the cache's folders last modified
// before cutoff.
func reclaimTemps(dir string, cutoff time.Time) {
	d, err := safefile.OpenDir(dir)
	if err != nil {
		return
	}
	defer d.Close()
	subs, err := d.ReadDir(".")
	if err != nil {
		return
	}
	for _, sub := range subs {
		if !sub.IsDir() {
			continue
		}
		files, err := d.ReadDir(sub.Name())
		if err != nil {
			continue
		}
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), ".") || !strings.Contains(f.Name(), safefile.TempMark) || !f.Type().IsRegular() {
				continue
			}
			if info, err := f.Info(); err == nil && info.ModTime().Before(cutoff) {
				d.Remove(filepath.Join(sub.Name(), f.Name()))
			}
		}
	}
}

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

const cacheVersion = 1

type cachedReply struct {
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason"`
	// Usage is what the original call consumed; a hit costs nothing.
	Usage Usage `json:"usage"`
	// Logprobs, when the request asked for them (omitted otherwise, so
	// entries written before they existed keep their checksums).
	Logprobs *llmfmt.Logprobs `json:"logprobs,omitempty"`
	// Batch: the reply was bought through the batch API, at its price
	// (omitted otherwise, as Logprobs).
	Batch bool `json:"batch,omitempty"`
}

type cacheFile struct {
	Version int         `json:"version"`
	Key     string      `json:"key"`
	Sum     string      `json:"sum"` // SHA-256 of the encoded reply, or its HMAC with the key and the cache key
	Created time.Time   `json:"created"`
	Reply   cachedReply `json:"reply"`
}

// sum is an entry's checksum: without a key the SHA-256 of the encoded
// reply (it catches damage, not forgery), with one an HMAC that binds the
// reply to its cache key.
func (c *Cache) sum(key string, r cachedReply) string {
	b, _ := json.Marshal(r)
	if c.key != nil {
		return c.key.Sum([]byte("clinsql cache entry"), []byte(key), b)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// name is key's entry, relative to the cache folder.
func (c *Cache) name(key string) string {
	return filepath.Join(key[:2], key+".json")
}

// get returns the entry for key; any defect makes it a miss.
func (c *Cache) get(key string) (cachedReply, bool) {
	data, err := safefile.ReadFile(c.dir, c.name(key), maxCacheEntryBytes)
	if err != nil {
		return cachedReply{}, false
	}
	var f cacheFile
	if err := json.Unmarshal(data, &f); err != nil {
		return cachedReply{}, false
	}
	if f.Version != cacheVersion || f.Key != key {
		return cachedReply{}, false
	}
	if f.Sum != c.sum(key, f.Reply) {
		if c.key != nil {
			c.rejected.Add(1)
		}
		return cachedReply{}, false
	}
	return f.Reply, true
}

// put stores r under key atomically (temporary file, sync, rename: see
// safefile.Dir.WriteFile).
func (c *Cache) put(key string, r cachedReply) error {
	data, err := json.Marshal(cacheFile{Version: cacheVersion, Key: key, Sum: c.sum(key, r), Created: time.Now().UTC(), Reply: r})
	if err != nil {
		return err
	}
	if len(data) > maxCacheEntryBytes {
		return fmt.Errorf("the entry is %d bytes, more than a cache entry may hold (%d)", len(data), maxCacheEntryBytes)
	}
	d, err := safefile.OpenDir(c.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.MkdirAll(key[:2], 0o755); err != nil {
		return err
	}
	return d.WriteFile(c.name(key), data, 0o644)
}

// Len counts the entries (including ones that would be rejected as corrupt).
func (c *Cache) Len() (int, error) {
	n := 0
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") && !strings.HasPrefix(d.Name(), ".tmp-") {
			n++
		}
		return nil
	})
	return n, err
}

// keyInput is everything that determines a reply and nothing else:
// operational knobs (concurrency, timeouts, retries, limits), the endpoint's
// name and the API key are left out.
type keyInput struct {
	V          int             `json:"v"`
	Kind       Kind            `json:"kind"`
	Host       string          `json:"host"` // base URL host and path, no scheme or credentials
	Model      string          `json:"model"`
	Deployment string          `json:"deployment,omitempty"`
	Sampling   llmfmt.Sampling `json:"sampling"`
	Messages   []Message       `json:"messages"`
	Format     keyFormat       `json:"format"`
	Sample     int             `json:"sample"`
	// Logprobs is omitted when false, so keys of calls that do not ask for
	// log-probabilities are unchanged.
	Logprobs bool `json:"logprobs,omitempty"`
}

type keyFormat struct {
	Type   string `json:"type"` // "", "json_object", "json_schema"
	Name   string `json:"name,omitempty"`
	Strict bool   `json:"strict,omitempty"`
	Schema any    `json:"schema,omitempty"` // decoded, so key order does not matter
}

// hostOf strips scheme, credentials, query and a trailing slash.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return strings.ToLower(u.Host) + strings.TrimRight(u.Path, "/")
}

// cacheKey is the hex SHA-256 of the canonical JSON encoding of in.
// encoding/json writes struct fields in declaration order and map keys
// sorted, so the encoding is canonical.
func cacheKey(in keyInput) (string, error) {
	in.V = cacheVersion
	b, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}
