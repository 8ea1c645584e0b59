package rubric

import (
	"fmt"
	"strings"
	"testing"
)

func nested(levels int) string {
	var b strings.Builder
	for i := range levels {
		if i > 0 {
			b.WriteString(`,"sub_tasks":[`)
		}
		fmt.Fprintf(&b, `{"id":"n%d","requirements":"R"`, i)
	}
	for i := range levels {
		if i > 0 {
			b.WriteString(`]`)
		}
		b.WriteString(`}`)
	}
	return b.String()
}

// A tree deeper than MaxDepth is refused, once, naming where it got too
// deep; MaxDepth levels are accepted.
func TestMaxDepth(t *testing.T) {
	if _, err := Parse([]byte(nested(MaxDepth)), "r.json", JSON); err != nil {
		t.Fatalf("%d levels: %v", MaxDepth, err)
	}
	for _, levels := range []int{MaxDepth + 1, 4900} {
		_, err := Parse([]byte(nested(levels)), "r.json", JSON)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("deeper than %d levels", MaxDepth)) {
			t.Fatalf("%d levels: %v", levels, err)
		}
		if n := len(err.(ErrorList)); n != 1 {
			t.Errorf("%d levels: %d errors, want 1", levels, n)
		}
	}
}

// All-zero weights under a node are accepted (the reference scores the
// node 1) but warned about, naming the node.
func TestZeroWeightsWarned(t *testing.T) {
	for _, c := range []struct {
		in   string
		warn bool
	}{
		{`{"id":"r","requirements":"R","sub_tasks":[{"id":"a","requirements":"x","weight":0},{"id":"b","requirements":"y","weight":0}]}`, true},
		{`{"id":"r","requirements":"R","sub_tasks":[{"id":"a","requirements":"x","weight":0},{"id":"b","requirements":"y"}]}`, false},
		{`{"id":"r","requirements":"R","weight":0}`, false},
	} {
		tr, err := Parse([]byte(c.in), "r.json", JSON)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, w := range tr.Warnings {
			if strings.Contains(w.Error(), "sub_tasks: every child has weight 0") {
				got = true
			}
		}
		if got != c.warn {
			t.Errorf("%s: warnings %v, want the zero-weight warning %v", c.in, tr.Warnings, c.warn)
		}
	}
}
