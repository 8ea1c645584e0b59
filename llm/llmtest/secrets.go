package llmtest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// AssertNoSecret fails t if any file below dir holds one of the secrets
// (API keys a test gave the client) or the last 12 characters of one, which
// is how a half-redacted key ("sk-...0123456789ab") would leak. It fails too
// when there is no file to check, since a test that greps nothing proves
// nothing. It returns the number of files read.
func AssertNoSecret(t testing.TB, dir string, secrets ...string) int {
	t.Helper()
	var needles [][]byte
	for _, s := range secrets {
		needles = append(needles, []byte(s))
		if len(s) > 12 {
			needles = append(needles, []byte(s[len(s)-12:]))
		}
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return nil
		}
		for _, n := range needles {
			if bytes.Contains(b, n) {
				t.Errorf("%s contains a secret the test gave the client", path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	if files == 0 {
		t.Errorf("no files below %s to check for secrets", dir)
	}
	return files
}
