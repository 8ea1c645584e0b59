package datasets

import (
	"fmt"
	"strings"
	"unicode"
)

// CheckPathComponent refuses a name that cannot safely be one element of an
// output path: empty, "." or "..", holding a separator ('/' or '\'), a
// control character, or a NUL. Task keys and model names come from files
// others wrote (manifests, run folders, gradings) and are joined into
// output paths: "../../x" as a domain would write outside the output folder.
func CheckPathComponent(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("is empty")
	case s == "." || s == "..":
		return fmt.Errorf("%q cannot name a folder", s)
	case strings.ContainsAny(s, `/\`):
		return fmt.Errorf("%q holds a path separator", s)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("%q holds a control character", s)
	}
	return nil
}

// Check reports the first part of k that cannot be a path element, naming
// the part ("domain: ..."), or nil.
func (k Key) Check() error {
	for _, p := range []struct{ name, val string }{
		{"split", k.Split}, {"domain", k.Domain}, {"difficulty", k.Difficulty}, {"id", k.ID},
	} {
		if err := CheckPathComponent(p.val); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return nil
}
