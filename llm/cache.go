package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Cache is a content-addressed store of successful replies on disk: one JSON
// file per call under dir/<first two hex digits>/<key>.json. It is safe for
// concurrent use by many clients and processes: entries are written to a
// temporary file and renamed into place, so a reader (or a process killed
// with SIGKILL mid-write) never sees a partial entry. An entry that does not
// decode, or whose checksum or key does not match, is ignored as a miss and
// replaced by the next successful call. Entries never expire: the cache is
// what makes a re-run reproducible and free.
type Cache struct {
	dir string
}

// OpenCache creates dir if needed and returns the cache stored there.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("llm: cache directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llm: open cache: %w", err)
	}
	reclaimTemps(dir, time.Now().Add(-staleTemp))
	return &Cache{dir: dir}, nil
}

// staleTemp is the age past which a cache temporary file is abandoned: a
// write takes milliseconds, so an older one was left by a killed process,
// while a younger one may be another process's write in progress.
const staleTemp = 10 * time.Minute

// reclaimTemps removes the temporary files (".tmp-*") in the cache's
// folders last modified before cutoff.
func reclaimTemps(dir string, cutoff time.Time) {
	subs, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, sub := range subs {
		if !sub.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, sub.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), ".tmp-") || !f.Type().IsRegular() {
				continue
			}
			if info, err := f.Info(); err == nil && info.ModTime().Before(cutoff) {
				os.Remove(filepath.Join(dir, sub.Name(), f.Name()))
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
	Logprobs *Logprobs `json:"logprobs,omitempty"`
}

type cacheFile struct {
	Version int         `json:"version"`
	Key     string      `json:"key"`
	Sum     string      `json:"sum"` // SHA-256 of the encoded reply
	Created time.Time   `json:"created"`
	Reply   cachedReply `json:"reply"`
}

func replySum(r cachedReply) string {
	b, _ := json.Marshal(r)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// get returns the entry for key; any defect makes it a miss.
func (c *Cache) get(key string) (cachedReply, bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return cachedReply{}, false
	}
	var f cacheFile
	if err := json.Unmarshal(data, &f); err != nil {
		return cachedReply{}, false
	}
	if f.Version != cacheVersion || f.Key != key || f.Sum != replySum(f.Reply) {
		return cachedReply{}, false
	}
	return f.Reply, true
}

// put stores r under key atomically.
func (c *Cache) put(key string, r cachedReply) error {
	dir := filepath.Join(c.dir, key[:2])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(cacheFile{Version: cacheVersion, Key: key, Sum: replySum(r), Created: time.Now().UTC(), Reply: r})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+key[:8]+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	// Sync before rename: after a power loss the name must not point at
	// unwritten blocks.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path(key))
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
	V          int       `json:"v"`
	Kind       Kind      `json:"kind"`
	Host       string    `json:"host"` // base URL host and path, no scheme or credentials
	Model      string    `json:"model"`
	Deployment string    `json:"deployment,omitempty"`
	Sampling   Sampling  `json:"sampling"`
	Messages   []Message `json:"messages"`
	Format     keyFormat `json:"format"`
	Sample     int       `json:"sample"`
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
