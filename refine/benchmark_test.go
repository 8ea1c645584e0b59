package refine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/runfolder"
)

// releasedInconsistent is the one released run whose benchmark_summary.json
// was not computed from the execution summaries released with it.
const releasedInconsistent = "Qwen3-Next-80B-A3B-Instruct"

// TestBenchmarkSummaryMatchesReleased rebuilds the validation part of each
// released model's benchmark_summary.json from its released execution
// summaries: the attempt-wise counts and rates, per split, domain and
// difficulty, must equal the published ones.
func TestBenchmarkSummaryMatchesReleased(t *testing.T) {
	root := shared.Path(t, "clinsql-data", "outputs", "inference")
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		model := e.Name()
		t.Run(model, func(t *testing.T) {
			b, _, err := BuildBenchmarkSummary(filepath.Join(root, model), model, 3, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got, want map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(root, model, runfolder.BenchmarkSummaryFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			g := got["splits"].(map[string]any)["validation"]
			w := want["splits"].(map[string]any)["validation"]
			if model == releasedInconsistent {
				// Its published summary disagrees with its own released
				// execution summaries (first successes at attempts 1/2/3:
				// published 40/48/26, the 190 summaries say 43/44/32):
				// only the rebuilt counts can be checked, against those.
				c := g.(map[string]any)["attempt_success_counts"].(map[string]any)
				if c["1"] != 43.0 || c["2"] != 44.0 || c["3"] != 32.0 {
					t.Errorf("counts %v, want the summaries' 43/44/32", c)
				}
				return
			}
			if !reflect.DeepEqual(g, w) {
				gb, _ := json.MarshalIndent(g, "", " ")
				wb, _ := json.MarshalIndent(w, "", " ")
				t.Errorf("validation split differs\ngot  %.600s\nwant %.600s", gb, wb)
			}
		})
	}
}
