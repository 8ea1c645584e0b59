package bqsql

import (
	"errors"
	"strings"
	"testing"
)

// Brackets nested past maxNesting are refused by the tokenizer and the tree
// builder, as the engine's limit (unsupported), before any pass walks them:
// 100,000 nested brackets took 7 minutes to translate (issue 25), past any
// timeout. Nesting up to the bound still translates.
func TestNestingBound(t *testing.T) {
	for _, open := range []string{"(", "["} {
		closing := map[string]string{"(": ")", "[": "]"}[open]
		deep := "SELECT " + strings.Repeat(open, 100_000) + "1" + strings.Repeat(closing, 100_000)
		if _, err := Translate(deep); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "nested more than 1000 deep") {
			t.Errorf("%s nested 100,000 deep: %v, want unsupported nesting", open, err)
		}
		if _, err := Tokenize(deep); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Tokenize %s nested 100,000 deep: %v, want unsupported", open, err)
		}
	}
	ok := "SELECT " + strings.Repeat("(", maxNesting) + "1" + strings.Repeat(")", maxNesting)
	if _, err := Translate(ok); err != nil {
		t.Errorf("nested %d deep: %v", maxNesting, err)
	}
	// Unbalanced closing brackets do not earn depth.
	if _, err := Tokenize("SELECT " + strings.Repeat(")", 5000) + strings.Repeat("(", 900)); err != nil {
		t.Errorf("closing brackets counted as depth: %v", err)
	}
}
