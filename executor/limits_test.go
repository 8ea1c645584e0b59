package executor_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/shared"
)

// The Keeper keeps a prefix of the rows within both caps and records which
// cap cut the result.
func TestKeeper(t *testing.T) {
	big := strings.Repeat("x", 100)
	cases := []struct {
		name       string
		maxRows    int
		maxBytes   int64
		rows       [][]any
		kept       int
		truncated  bool
		byteCapped bool
	}{
		{"within both", 10, 1000, [][]any{{"a"}, {"b"}}, 2, false, false},
		{"row cap", 1, 1000, [][]any{{"a"}, {"b"}}, 1, true, false},
		{"byte cap", 10, 250, [][]any{{big}, {big}, {big}, {big}}, 2, true, true},
		{"exactly at byte cap", 10, 202, [][]any{{big}, {big}}, 2, false, false},
		// A small row after a big one is not kept: the kept rows stay the
		// result's first rows.
		{"prefix only", 10, 150, [][]any{{"a"}, {big + big}, {"b"}}, 1, true, true},
		{"first row over cap", 10, 50, [][]any{{big}}, 0, true, true},
		{"nested values counted", 10, 150, [][]any{{[]any{big}}, {executor.Struct{{Name: "f", Value: big}}}}, 1, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := executor.NewKeeper(c.maxRows, c.maxBytes)
			res := &executor.Result{}
			for _, r := range c.rows {
				if k.Keep(r) {
					res.Rows = append(res.Rows, r)
				}
			}
			k.Finish(res, int64(len(c.rows)))
			if len(res.Rows) != c.kept || res.Truncated != c.truncated || res.ByteCapped != c.byteCapped || res.TotalRows != int64(len(c.rows)) {
				t.Fatalf("kept %d truncated %v byteCapped %v total %d; want %d %v %v %d",
					len(res.Rows), res.Truncated, res.ByteCapped, res.TotalRows, c.kept, c.truncated, c.byteCapped, len(c.rows))
			}
		})
	}
	if executor.NewKeeper(10, 0).Keep([]any{strings.Repeat("x", int(executor.DefaultMaxResultBytes))}) {
		t.Error("a zero byte cap must mean the default, not unlimited")
	}
}

// TestDefaultMaxResultBytes measures what the default byte cap is sized
// for: the largest gold result CSV of the ClinSQL split, and the largest
// result of the released model runs (figures quoted in the doc comment of
// DefaultMaxResultBytes and in the README).
func TestDefaultMaxResultBytes(t *testing.T) {
	root := shared.Path(t, "clinsql-data")
	largest := func(dir string) (int64, string) {
		var max int64
		var at string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "result_") || !strings.HasSuffix(d.Name(), ".csv") {
				return err
			}
			info, err := d.Info()
			if err == nil && info.Mode().IsRegular() && info.Size() > max {
				max, at = info.Size(), p
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return max, at
	}
	gold, goldAt := largest(filepath.Join(root, "data", "splits"))
	model, modelAt := largest(filepath.Join(root, "outputs", "inference"))
	if gold == 0 || model == 0 {
		t.Fatalf("no result CSVs found under %s", root)
	}
	t.Logf("largest gold result: %d bytes (%s)", gold, goldAt)
	t.Logf("largest released model result: %d bytes (%s)", model, modelAt)
	t.Logf("default cap %d bytes: %.0fx the gold, %.1fx the model result", executor.DefaultMaxResultBytes,
		float64(executor.DefaultMaxResultBytes)/float64(gold), float64(executor.DefaultMaxResultBytes)/float64(model))
	if executor.DefaultMaxResultBytes < 10_000*gold {
		t.Errorf("default cap %d is under 10,000 times the largest gold result (%d bytes)", executor.DefaultMaxResultBytes, gold)
	}
	if executor.DefaultMaxResultBytes < 16*model {
		t.Errorf("default cap %d is under 16 times the largest released result (%d bytes)", executor.DefaultMaxResultBytes, model)
	}
}
