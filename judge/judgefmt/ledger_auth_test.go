package judgefmt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/rubric"
)

// TestLedgerAuthenticated (issue 25 #2): a ledger shipped inside a run
// folder, or edited after it was written, must not be resumed as decided.
// A ledger written with another key (another machine's, or a forger's) is
// moved aside and none of its records is trusted; in this machine's ledger
// a record edited since (a fail flipped to pass) is ignored.
func TestLedgerAuthenticated(t *testing.T) {
	mine, theirs := localkey.Key(bytes.Repeat([]byte{1}, 32)), localkey.Key(bytes.Repeat([]byte{2}, 32))
	h := LedgerHeader{Mode: rubric.Strict, Judge: "j"}
	write := func(t *testing.T, key localkey.Key) string {
		p := filepath.Join(t.TempDir(), LedgerFile)
		l, err := OpenLedger(p, h, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, leaf := range []string{"a", "b"} {
			if err := l.Append(Record{Task: "t", Tree: TreeSQL, Leaf: leaf, Verdict: rubric.Fail, Source: SourceLLM}); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		return p
	}

	t.Run("written elsewhere", func(t *testing.T) {
		for _, key := range []localkey.Key{theirs, nil} {
			p := write(t, key)
			l, err := OpenLedger(p, h, mine)
			if err != nil {
				t.Fatal(err)
			}
			if l.Len() != 0 || l.SetAside == "" || l.Foreign != 2 {
				t.Errorf("foreign ledger (key %v): %d records resumed, set aside %q, foreign %d; want 0, moved aside, 2", key != nil, l.Len(), l.SetAside, l.Foreign)
			}
			l.Close()
		}
	})

	t.Run("record flipped", func(t *testing.T) {
		p := write(t, mine)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// Flip the first record's verdict, keeping its line otherwise.
		flipped := bytes.Replace(b, []byte(`"verdict":"fail"`), []byte(`"verdict":"pass"`), 1)
		if bytes.Equal(flipped, b) {
			t.Fatalf("no verdict to flip in\n%s", b)
		}
		if err := os.WriteFile(p, flipped, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := OpenLedger(p, h, mine)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if l.Untrusted != 1 || l.Len() != 1 {
			t.Errorf("flipped record: %d untrusted, %d resumed; want 1 and 1", l.Untrusted, l.Len())
		}
		for _, leaf := range []string{"a", "b"} {
			if r := l.Get(LeafKey{Task: "t", Tree: TreeSQL, Leaf: leaf}); r != nil && r.Verdict == rubric.Pass {
				t.Errorf("leaf %s resumed as the flipped pass", leaf)
			}
		}
	})
}
