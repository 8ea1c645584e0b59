package labelset

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/clinsql/clinsql/datasets"
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

// OwnWords refuses a rationale that repeats CopyRun words of the texts a
// labeller saw for its leaf (see Copied): the task's question, the
// leaf's requirement, its ancestors' and its siblings'. t is the label's
// task; a leaf the task does not have is an error.
func OwnWords(t *datasets.Task, l *Label) error {
	if l.Rationale == "" {
		return nil
	}
	tree := t.ResultsRubric
	if l.Tree == TreeSQL {
		tree = t.SQLRubric
	}
	leaf := tree.Root.Find(l.Leaf)
	if leaf == nil {
		return fmt.Errorf("%s has no %s leaf %q", l.Key, l.Tree, l.Leaf)
	}
	sources := []string{t.Question, leaf.Requirements}
	for _, a := range leaf.Ancestors() {
		sources = append(sources, a.Requirements)
	}
	if leaf.Parent != nil {
		for _, s := range leaf.Parent.Children {
			sources = append(sources, s.Requirements)
		}
	}
	if c := Copied(l.Rationale, sources...); c != "" {
		return fmt.Errorf("repeats %q from the rubric or the question: write it in your own words", c)
	}
	return nil
}
