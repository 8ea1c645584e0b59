package bigquery

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// redactor removes credentials from text the engine emits: error messages,
// log lines, anything a caller may write to a file. It knows the key file's
// path and the secret values inside it, and recognises bearer tokens and PEM
// blocks whatever their origin.
type redactor struct {
	literals []string // longest first
}

var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
	regexp.MustCompile(`\bBearer\s+[A-Za-z0-9._~+/=-]{10,}`),
	regexp.MustCompile(`ya29\.[A-Za-z0-9._~+/=-]+`),
	regexp.MustCompile(`(?i)"(access_token|refresh_token|id_token|private_key|private_key_id|client_secret|assertion)"\s*:\s*"[^"]*"`),
	regexp.MustCompile(`(?i)\b(access_token|refresh_token|assertion|client_secret)=[^&\s"]+`),
}

// newRedactor learns the secrets of a key file (its path in every spelling
// and the secret fields of its JSON). A file it cannot read adds only the
// path.
func newRedactor(keyFile string) *redactor {
	r := &redactor{}
	if keyFile == "" {
		return r
	}
	add := func(s string) {
		if len(s) >= 4 {
			r.literals = append(r.literals, s)
		}
	}
	add(keyFile)
	add(filepath.Clean(keyFile))
	if abs, err := filepath.Abs(keyFile); err == nil {
		add(abs)
	}
	if real, err := filepath.EvalSymlinks(keyFile); err == nil {
		add(real)
	}
	if b, err := os.ReadFile(keyFile); err == nil {
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			for _, k := range []string{"private_key", "private_key_id", "client_secret", "refresh_token"} {
				if s, ok := m[k].(string); ok {
					add(s)
					// JSON-escaped form, as it would appear in a dump.
					if q, err := json.Marshal(s); err == nil {
						add(strings.Trim(string(q), `"`))
					}
				}
			}
		}
	}
	sort.Slice(r.literals, func(i, j int) bool { return len(r.literals[i]) > len(r.literals[j]) })
	return r
}

func (r *redactor) apply(s string) string {
	if r == nil {
		return s
	}
	for _, lit := range r.literals {
		s = strings.ReplaceAll(s, lit, "[redacted]")
	}
	for _, p := range secretPatterns {
		s = p.ReplaceAllString(s, "[redacted]")
	}
	return s
}
