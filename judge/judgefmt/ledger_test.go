package judgefmt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/rubric"
)

// TestLedgerGrouping: a ledger is resumed only with the grouping that
// wrote it.
func TestLedgerGrouping(t *testing.T) {
	dir := t.TempDir()
	h := LedgerHeader{Mode: rubric.Strict, Judge: "j", Group: "tree"}
	l, err := OpenLedger(filepath.Join(dir, LedgerFile), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	h.Group = "leaf"
	if _, err := OpenLedger(filepath.Join(dir, LedgerFile), h, nil); err == nil || !strings.Contains(err.Error(), "grouping tree, not leaf") {
		t.Errorf("ledger of another grouping: %v", err)
	}
	h.Group, h.GroupGated = "tree", true
	if _, err := OpenLedger(filepath.Join(dir, LedgerFile), h, nil); err == nil || !strings.Contains(err.Error(), "grouping tree, not tree+gated") {
		t.Errorf("ledger of another grouping: %v", err)
	}
	// A ledger written before grouping existed was judged leaf by leaf.
	if (LedgerHeader{}).compatible(LedgerHeader{Group: "leaf"}) != nil {
		t.Error("a header without grouping is not leaf by leaf")
	}
}

// TestLedgerTorn: a torn last line (a process killed mid-write) is dropped
// and cut off; damage elsewhere is an error naming the line.
func TestLedgerTorn(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, LedgerFile)
	h := LedgerHeader{Mode: rubric.Strict, Judge: "x"}
	l, err := OpenLedger(p, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := l.Append(Record{Task: "t", Tree: TreeSQL, Leaf: fmt.Sprint("leaf", i), Verdict: rubric.Pass, Score: 1, Source: SourceLLM}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"task":"t","tree":"sql","leaf":"leaf3","verd`)
	f.Close()
	c, err := ReadLedger(p)
	if err != nil || !c.Torn || len(c.Records) != 3 {
		t.Fatalf("read: %v, torn %v, %d records", err, c != nil && c.Torn, len(c.Records))
	}
	l, err = OpenLedger(p, h, nil)
	if err != nil || !l.Recovered || l.Len() != 3 {
		t.Fatalf("reopen: %v recovered %v len %d", err, l != nil && l.Recovered, l.Len())
	}
	l.Append(Record{Task: "t", Tree: TreeSQL, Leaf: "leaf3", Verdict: rubric.Fail, Source: SourceLLM})
	l.Close()
	if c, err := ReadLedger(p); err != nil || c.Torn || len(c.Records) != 4 {
		t.Fatalf("after append: %v, %+v", err, c)
	}
	b, _ := os.ReadFile(p)
	lines := strings.Split(string(b), "\n")
	lines[2] = "garbage"
	os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
	if _, err := ReadLedger(p); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("damaged line: %v", err)
	}
}
