package reports

import "testing"

// A model name becomes a folder under models/: names of dots must not
// reach the parent folder.
func TestSlugStaysInFolder(t *testing.T) {
	for in, want := range map[string]string{
		"gpt-5.1": "gpt-5.1", "..": "__", ".": "_", "": "_", "../x": ".._x", "a/b": "a_b", "...": "___",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
