package rubric

import (
	"fmt"
	"io"
	"strings"
)

// Fprint writes s as an indented tree, one node a line:
//
//	id  [w=3 seq crit]  0.7333  reason
//
// Nodes whose score did not enter their parent's are marked "(not counted)";
// bounds are shown where they differ from the score.
func Fprint(w io.Writer, s *Score) error {
	var b strings.Builder
	fprint(&b, s, 0)
	_, err := io.WriteString(w, b.String())
	return err
}

func fprint(b *strings.Builder, s *Score, depth int) {
	n := s.Node
	var tags []string
	if n.Weight != 1 {
		tags = append(tags, fmt.Sprintf("w=%d", n.Weight))
	}
	if n.Sequential && !n.IsLeaf() {
		tags = append(tags, "seq")
	}
	if n.Critical {
		tags = append(tags, "crit")
	}
	fmt.Fprintf(b, "%s%s", strings.Repeat("  ", depth), n.ID)
	if len(tags) > 0 {
		fmt.Fprintf(b, " [%s]", strings.Join(tags, " "))
	}
	fmt.Fprintf(b, " = %.4f", s.Value)
	if s.Lo != s.Value || s.Hi != s.Value {
		fmt.Fprintf(b, " in [%.4f, %.4f]", s.Lo, s.Hi)
	}
	if s.Invalid > 0 {
		fmt.Fprintf(b, " invalid=%d", s.Invalid)
	}
	if !s.Counted {
		b.WriteString(" (not counted)")
	}
	fmt.Fprintf(b, ": %s\n", s.Reason)
	for _, c := range s.Children {
		fprint(b, c, depth+1)
	}
}
