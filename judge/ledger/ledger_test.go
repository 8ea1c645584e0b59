package ledger

import (
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
	l, err := OpenLedger(filepath.Join(dir, LedgerFile), h)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	h.Group = "leaf"
	if _, err := OpenLedger(filepath.Join(dir, LedgerFile), h); err == nil || !strings.Contains(err.Error(), "grouping tree, not leaf") {
		t.Errorf("ledger of another grouping: %v", err)
	}
	h.Group, h.GroupGated = "tree", true
	if _, err := OpenLedger(filepath.Join(dir, LedgerFile), h); err == nil || !strings.Contains(err.Error(), "grouping tree, not tree+gated") {
		t.Errorf("ledger of another grouping: %v", err)
	}
	// A ledger written before grouping existed was judged leaf by leaf.
	if (LedgerHeader{}).compatible(LedgerHeader{Group: "leaf"}) != nil {
		t.Error("a header without grouping is not leaf by leaf")
	}
}
