package localkey

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clinsql/clinsql/internal/safefile"
)

// File is the key's name in its folder.
const File = "local.key"

// EnvDir names the environment variable that overrides the key's folder.
const EnvDir = "CLINSQL_CONFIG_DIR"

// keyBytes is the key's length.
const keyBytes = 32

// Key authenticates data written on this machine (HMAC-SHA256).
type Key []byte

// Dir is the key's folder: $CLINSQL_CONFIG_DIR, else the user's
// configuration folder's clinsql.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no folder for clinsql's local key (%v): set %s", err, EnvDir)
	}
	return filepath.Join(base, "clinsql"), nil
}

// Default is this machine's key: Load of Dir.
func Default() (Key, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	return Load(dir)
}

// Load reads the key in dir, creating dir (0700) and the key (0600) on
// first use. Two processes creating it at once end with the same key.
func Load(dir string) (Key, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("local key: %w", err)
	}
	k, err := read(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	var b [keyBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("local key: %w", err)
	}
	d, err := safefile.OpenDir(dir)
	if err != nil {
		return nil, fmt.Errorf("local key: %w", err)
	}
	defer d.Close()
	f, tmp, err := d.TempFile("", File)
	if err != nil {
		return nil, fmt.Errorf("local key: %w", err)
	}
	_, err = f.WriteString(hex.EncodeToString(b[:]) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// A hard link fails if the key exists: the first process to
		// create it wins, the others read its key.
		err = os.Link(d.Join(tmp), d.Join(File))
		if errors.Is(err, fs.ErrExist) {
			err = nil
		}
	}
	d.Remove(tmp)
	if err != nil {
		return nil, fmt.Errorf("local key: %w", err)
	}
	return read(dir)
}

// read reads an existing key, refusing one others may read or that is not
// a key.
func read(dir string) (Key, error) {
	path := filepath.Join(dir, File)
	b, err := safefile.ReadFile(dir, File, 1<<10)
	if err != nil {
		return nil, err
	}
	if st, err := os.Lstat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: mode %v lets others read this machine's key (anyone holding it can forge judge decisions and cached replies): chmod 600 %s", path, st.Mode().Perm(), path)
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) != keyBytes {
		return nil, fmt.Errorf("%s: not a clinsql key (%d hex digits expected); delete it to make a new one (judge ledgers and cached replies written with the old key are then decided again)", path, 2*keyBytes)
	}
	return Key(k), nil
}

// Sum is the hex HMAC-SHA256 of the parts, each length-prefixed so that
// no two lists of parts share a sum by moving bytes between them.
func (k Key) Sum(parts ...[]byte) string {
	m := hmac.New(sha256.New, k)
	for _, p := range parts {
		m.Write([]byte(strconv.Itoa(len(p)) + ":"))
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether sum is the parts' Sum, in constant time.
func (k Key) Verify(sum string, parts ...[]byte) bool {
	want, err := hex.DecodeString(sum)
	if err != nil {
		return false
	}
	got, _ := hex.DecodeString(k.Sum(parts...))
	return hmac.Equal(got, want)
}
