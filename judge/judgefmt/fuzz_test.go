package judgefmt

import (
	"os"
	"path/filepath"
	"testing"
)

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
