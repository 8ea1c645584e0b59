package ehrsqlbench

// The run-folder layout, in one place so that it can move onto a shared
// run-folder owner later. Nothing else in the package builds a path.
//
//	OUT/llm-cache/                                  model replies (package llm)
//	OUT/<model>/settings.json                       what the answers depend on
//	OUT/<model>/calibration.json                    thresholds per strategy, chosen on the calibration split
//	OUT/<model>/<split>/items/<id>.json             per-item record: samples, attempts, log-probabilities, answers
//	OUT/<model>/<split>/<strategy>/prediction.json  the official submission {id: SQL or "null"}
//	OUT/<model>/<split>/<strategy>/decisions.json   per item: the decision and why
//	OUT/summary.json                                scores per model x strategy (splits with labels)

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/runfolder"
)

// Layout locates the files of a run folder.
type Layout struct{ Root string }

// safeID is what an item id may be to name a file (EHRSQL ids are 24 hex
// characters); anything else is refused rather than joined into a path.
var safeID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// CheckID refuses an id that cannot name a file.
func CheckID(id string) error {
	if !safeID.MatchString(id) {
		return fmt.Errorf("item id %q cannot name a file (letters, digits, _ and - only)", id)
	}
	return nil
}

func (l Layout) Cache() string                { return filepath.Join(l.Root, "llm-cache") }
func (l Layout) Summary() string              { return filepath.Join(l.Root, "summary.json") }
func (l Layout) Settings(model string) string { return filepath.Join(l.Root, model, "settings.json") }
func (l Layout) Calibration(model string) string {
	return filepath.Join(l.Root, model, "calibration.json")
}
func (l Layout) item(model, split, id string) string {
	return filepath.Join(l.Root, model, split, "items", id+".json")
}
func (l Layout) strategyDir(model, split, strategy string) string {
	return filepath.Join(l.Root, model, split, strategy)
}

// Prediction is the official prediction.json of a model, split and strategy.
func (l Layout) Prediction(model, split, strategy string) string {
	return filepath.Join(l.strategyDir(model, split, strategy), "prediction.json")
}

// Decisions is the per-item decisions file beside it.
func (l Layout) Decisions(model, split, strategy string) string {
	return filepath.Join(l.strategyDir(model, split, strategy), "decisions.json")
}

// maxRecordBytes bounds a record read back from a run folder.
const maxRecordBytes = runfolder.MaxSummaryBytes

// Lock takes the run folder's exclusive lock (runfolder.LockExclusive):
// two runs never write one folder.
func (l Layout) Lock() (*runfolder.Lock, error) { return runfolder.LockExclusive(l.Root) }

// ReadRecord reads an item record; ok is false when there is none, and
// also when it is over maxRecordBytes: an older clinsql kept a model's
// reply whole, however long (126 MB), and such an item is answered again
// (the reply comes from the cache, now cut to size) rather than leave the
// run folder unreadable.
func (l Layout) ReadRecord(model, split, id string) (*Record, bool, error) {
	path := l.item(model, split, id)
	b, err := readBounded(path, maxRecordBytes)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, runfolder.ErrTooLarge) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if r.ID != id {
		return nil, false, fmt.Errorf("%s: id: %q, want %q", path, r.ID, id)
	}
	return &r, true, nil
}

// WriteRecord writes an item record atomically: an item is finished
// exactly when its record exists.
func (l Layout) WriteRecord(model, split string, r *Record) error {
	return writeJSON(l.item(model, split, r.ID), r)
}

// WritePrediction writes the submission exactly as the official scorer
// reads it: one JSON object, ids in split order.
func (l Layout) WritePrediction(model, split, strategy string, ids []string, pred map[string]string) error {
	b, err := PredictionJSON(ids, pred)
	if err != nil {
		return err
	}
	path := l.Prediction(model, split, strategy)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, b)
}

// PredictionJSON renders {id: SQL or "null"} with the ids in the given
// order, one per line; every id must have a prediction.
func PredictionJSON(ids []string, pred map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	for i, id := range ids {
		v, ok := pred[id]
		if !ok {
			return nil, fmt.Errorf("prediction for %q missing", id)
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		b.Write(jsonString(id))
		b.WriteString(": ")
		b.Write(jsonString(v))
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// jsonString encodes s as a JSON string without HTML escaping (SQL is full
// of < and >, which json.Marshal would write as \u003c).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// readJSON reads a bounded JSON file into v; ok is false when it is absent.
func readJSON(path string, v any) (bool, error) {
	b, err := readBounded(path, maxRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// readBounded reads a regular file of the run folder (no symlinks, FIFOs
// or devices), at most limit bytes: runfolder's defensive read.
func readBounded(path string, limit int64) ([]byte, error) { return runfolder.ReadFile(path, limit) }
