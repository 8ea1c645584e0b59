package judge

import (
	"os"
	"path/filepath"
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

func FuzzParseBands(f *testing.F) {
	for _, s := range []string{"Clinically Plausible (0-20)", "between 5 and 90", "(>0.01 and <0.1)", "Home: 60-95%, Facility: 30-70%", "(-80 to -10)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, b := range parseBands(s) {
			if b.Lo > b.Hi {
				t.Fatalf("band %v from %q", b, s)
			}
		}
	})
}

func FuzzReadLedger(f *testing.F) {
	f.Add([]byte("{\"ledger_version\":1,\"mode\":\"strict\",\"judge\":\"x\",\"reference_guided\":false,\"code_checks\":true,\"skipping\":true,\"samples\":1,\"created\":\"2026-01-01T00:00:00Z\"}\n{\"task\":\"t\",\"tree\":\"sql\",\"leaf\":\"l\",\"verdict\":\"pass\",\"score\":1,\"source\":\"llm\",\"kind\":\"sql\",\"explanation\":\"\",\"judge\":\"x\",\"reference_guided\":false,\"calls\":1,\"cache_hits\":0,\"attempts\":1,\"prompt_tokens\":1,\"completion_tokens\":1,\"cost_usd\":0,\"latency_ms\":1,\"time\":\"2026-01-01T00:00:00Z\"}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), LedgerFile)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ReadLedger(p)
		if err != nil {
			return
		}
		for _, r := range c.Records {
			if r.Task == "" || r.Leaf == "" {
				t.Fatalf("record without a key: %+v", r)
			}
		}
	})
}
