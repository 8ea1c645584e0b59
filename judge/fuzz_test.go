package judge

import (
	"strings"
	"testing"
)

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{`{"reasoning":"ok","verdict":"pass"}`, "Score: 1", `{"verdict":"fail","reasoning":""}`, "```json\n{}\n```", `{"reasoning":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseVerdict(s)
		if err == nil && r.Verdict != "pass" && r.Verdict != "fail" {
			t.Fatalf("accepted verdict %q", r.Verdict)
		}
		if err == nil && !strings.HasPrefix(strings.TrimSpace(s), "{") {
			t.Fatalf("accepted a reply that is not an object: %q", s)
		}
	})
}

func FuzzParseGroupVerdicts(f *testing.F) {
	for _, s := range []string{`{"a":{"reasoning":"r","verdict":"pass"},"b":{"reasoning":"s","verdict":"fail"}}`,
		`{"a":{"reasoning":"r","verdict":"pass"}}`, `{"a":{"reasoning":"r","verdict":"pass"},"a":{"reasoning":"r","verdict":"pass"}}`,
		"Score: 1", `{"a":{"reasoning":"r","verdict":"pass"},"b":{"reasoning":"s","verd`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseGroupVerdicts(s, []string{"a", "b"})
		if err != nil {
			if got != nil {
				t.Fatalf("rejected reply %q gave verdicts %v", s, got)
			}
			return
		}
		if len(got) != 2 {
			t.Fatalf("accepted %q with %d verdicts", s, len(got))
		}
		for id, r := range got {
			if (id != "a" && id != "b") || (r.Verdict != "pass" && r.Verdict != "fail") {
				t.Fatalf("accepted %q: %s = %+v", s, id, r)
			}
		}
	})
}
