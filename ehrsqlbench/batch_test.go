package ehrsqlbench_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
)

// TestHandmadeBatch: the handmade EHRSQL run (sampled answers,
// log-probabilities, calibration) with both models in batch mode gives the
// predictions and scores of the online run, every request in a batch.
func TestHandmadeBatch(t *testing.T) {
	h := newHandmade(t, 0, scripted(map[string][]item{"cal": calItems, "eval": evalItems}).handler())
	cal, eval := h.split(t, "cal", calItems), h.split(t, "eval", evalItems)
	online := h.run(t, filepath.Join(h.root, "online"), eval, cal)
	before := len(h.srv.Requests())
	for i := range h.models {
		h.models[i].Mode = llm.ModeBatch
		h.models[i].Batch = llm.BatchLimits{Poll: time.Millisecond, Collect: time.Hour} // sent when every item waits
	}
	batch := h.run(t, filepath.Join(h.root, "batch"), eval, cal)
	calls := h.srv.Requests()[before:]
	if len(calls) != before {
		t.Errorf("%d requests online, %d in batch mode", before, len(calls))
	}
	for _, c := range calls {
		if c.Batch == "" {
			t.Fatal("a request in batch mode went online")
		}
	}
	if len(online.Results) != len(batch.Results) {
		t.Fatalf("%d results online, %d in batch mode", len(online.Results), len(batch.Results))
	}
	for i, r := range online.Results {
		b := batch.Results[i]
		if r.Model != b.Model || r.Strategy != b.Strategy || r.Scores != b.Scores {
			t.Errorf("%s %s: online %+v, batch %+v", r.Model, r.Strategy, r.Scores, b.Scores)
		}
		on := readFile(t, filepath.Join(h.root, "online", r.Model, "eval", r.Strategy, "prediction.json"))
		ba := readFile(t, filepath.Join(h.root, "batch", r.Model, "eval", r.Strategy, "prediction.json"))
		if !bytes.Equal(on, ba) {
			t.Errorf("%s %s: predictions differ", r.Model, r.Strategy)
		}
	}
}
