package labelset

import (
	"strings"
	"unicode"
)

// CopyRun is the run of consecutive words a rationale may not share with
// the rubric or the question: shorter runs are a labeller naming the
// same column, band or clause ("median_los within 2 to 5 days"); a
// clause taken over whole is copied text.
const CopyRun = 7

// Copied returns the first run of CopyRun or more consecutive words that
// the rationale repeats from one of the sources (the leaf's and its
// ancestors' requirements, the question), "" when none. Words are
// compared in lower case, punctuation ignored.
func Copied(rationale string, sources ...string) string {
	rw := words(rationale)
	if len(rw) < CopyRun {
		return ""
	}
	runs := map[string]bool{}
	for _, s := range sources {
		sw := words(s)
		for i := 0; i+CopyRun <= len(sw); i++ {
			runs[strings.Join(sw[i:i+CopyRun], " ")] = true
		}
	}
	for i := 0; i+CopyRun <= len(rw); i++ {
		if r := strings.Join(rw[i:i+CopyRun], " "); runs[r] {
			return r
		}
	}
	return ""
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
