package judge

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// goldenFile compares got with the file at path, rewriting it under
// -update.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, got, *update)
}

// TestReadmeGroupingTable checks that the README states the grouping
// figures TestReplayGrouping measures: its table is the golden file,
// verbatim.
func TestReadmeGroupingTable(t *testing.T) {
	table, err := os.ReadFile(groupingGolden)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), string(table)) {
		t.Errorf("README.md does not hold the grouping table of %s:\n%s", groupingGolden, table)
	}
}
