package runfolder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clinsql/clinsql/datasets"
)

// ResultFile names a task's result CSV: "result_<id>.csv".
func ResultFile(id string) string { return datasets.GoldResultFile(id) }

// SQLFile names a task's final query: "sql_<id>.sql".
func SQLFile(id string) string { return "sql_" + id + ".sql" }

// QuestionFile names a task's question: "query_<id>.txt".
func QuestionFile(id string) string { return datasets.QuestionFile(id) }

// TaskDir is a task's folder in a run folder.
func TaskDir(run string, k datasets.Key) string {
	return filepath.Join(run, k.Split, k.Domain, k.DifficultyDir(), k.ID)
}

// Run is a run folder read.
type Run struct {
	Dir string
	// Root is the run's top folder, where manifest.json and
	// benchmark_summary.json live: Dir, or Dir's parent when Dir is one
	// split folder of a run whose manifest lists that split.
	Root string
	// Outputs are the answers found, sorted by key.
	Outputs []*Output
	// Manifest is nil for a run clinsql did not write (a released run),
	// or whose manifest was removed.
	Manifest *Manifest
}

// Model is the run's model: the manifest's, else the one most execution
// summaries name, else the folder's name.
func (r *Run) Model() string {
	if r.Manifest != nil && r.Manifest.Model != "" {
		return r.Manifest.Model
	}
	return ModelName(r.Outputs, filepath.Base(filepath.Clean(r.Dir)))
}

// ModelName returns the model named by most of the outputs' execution
// summaries (ties to the first in order), or fallback when none names one.
func ModelName(outputs []*Output, fallback string) string {
	n := map[string]int{}
	best := ""
	for _, o := range outputs {
		m := o.Summary.Model
		if m == "" {
			continue
		}
		n[m]++
		if n[m] > n[best] || (n[m] == n[best] && m < best) {
			best = m
		}
	}
	if best == "" {
		return fallback
	}
	return best
}

// Load reads a run folder in the reference inference layout:
// dir/<split>/<Domain>/<difficulty>_level_queries/<id>/ with
// execution_summary.json and result_<id>.csv (dir may also be one split
// folder), and its manifest when clinsql wrote it. A task folder holding
// only result_<id>.csv (some releases publish no summaries) is an answer
// whose SQL is absent (Output.SQLAbsent).
//
// Every file is read defensively (see Open). Problems with single tasks
// are returned joined, beside the answers that could be read; the caller
// decides whether they are fatal.
func Load(dir string) (*Run, error) {
	splits, err := datasets.SplitDirs(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir}
	var errs []error
	if r.Root, r.Manifest, err = findRoot(dir, splits); err != nil {
		return nil, err
	}
	for _, s := range splits {
		err := filepath.WalkDir(s, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			if !d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(filepath.Dir(s), path)
			if strings.Count(filepath.ToSlash(rel), "/") != 3 {
				return nil
			}
			key, err := datasets.ParseKey(rel)
			if err != nil {
				return nil // not a task folder
			}
			o, err := readOutput(key, path)
			if err != nil {
				errs = append(errs, err)
			}
			if o != nil {
				r.Outputs = append(r.Outputs, o)
			}
			return fs.SkipDir
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(r.Outputs) == 0 && len(errs) == 0 {
		if runs := runsBelow(dir); len(runs) > 0 {
			// The folder generate wrote into (OUT), not one model's run
			// (OUT/<model>): say which runs it holds.
			names := strings.Join(runs[:min(len(runs), 5)], ", ")
			if len(runs) > 5 {
				names += fmt.Sprintf(" and %d more", len(runs)-5)
			}
			return nil, fmt.Errorf("%s holds the runs of models (%s), not a run itself: name one of them, e.g. %s",
				dir, names, filepath.Join(dir, runs[0]))
		}
		return nil, fmt.Errorf("%s: no %s found (want <split>/<Domain>/<difficulty>_level_queries/<id>/%s)", dir, ExecutionSummaryFile, ExecutionSummaryFile)
	}
	sort.Slice(r.Outputs, func(i, j int) bool { return r.Outputs[i].Key.Less(r.Outputs[j].Key) })
	return r, errors.Join(errs...)
}

// runsBelow names dir's subfolders that hold split folders: the runs of
// a folder that holds one per model.
func runsBelow(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var runs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if splits, err := datasets.SplitDirs(filepath.Join(dir, e.Name())); err == nil && len(splits) > 0 {
			runs = append(runs, e.Name())
		}
	}
	return runs
}

// FindRoot is the top folder of the run dir belongs to (see Run.Root):
// the folder a writer locks, whichever of the run's folders is named.
func FindRoot(dir string) (string, error) {
	splits, err := datasets.SplitDirs(dir)
	if err != nil {
		return "", err
	}
	root, _, err := findRoot(dir, splits)
	return root, err
}

// findRoot finds the run's top folder from dir and reads its manifest:
// dir itself, or, when dir is one split folder (splits is dir alone), its
// parent if the parent's manifest lists that split. A run is the same run
// whichever of its folders it is read from: its manifest (the engine, the
// recorded run a re-execution re-ran) must not be lost by naming the
// split folder.
func findRoot(dir string, splits []string) (string, *Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil || m != nil {
		return dir, m, err
	}
	if len(splits) != 1 || filepath.Clean(splits[0]) != filepath.Clean(dir) {
		return dir, nil, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, nil, nil
	}
	parent := filepath.Dir(abs)
	pm, err := ReadManifest(parent)
	if err != nil {
		return dir, nil, fmt.Errorf("%s is a split folder of %s: %w", dir, parent, err)
	}
	if pm == nil || !slices.Contains(pm.Splits, filepath.Base(abs)) {
		return dir, nil, nil
	}
	return parent, pm, nil
}

// readOutput reads one task folder: nil without an answer in it.
func readOutput(key datasets.Key, dir string) (*Output, error) {
	sumPath := filepath.Join(dir, ExecutionSummaryFile)
	csv := filepath.Join(dir, ResultFile(key.ID))
	o := &Output{Key: key, Dir: dir}
	if Exists(csv) {
		o.ResultCSV = csv
	}
	if !Exists(sumPath) {
		if o.ResultCSV == "" {
			return nil, nil
		}
		// A release of results only: the result is the answer; no SQL.
		o.SQLAbsent = true
		o.Summary.ExecutionSuccess = true
		o.Summary.RowCount = -1
		return o, nil
	}
	b, err := ReadFile(sumPath, MaxSummaryBytes)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%w (an older clinsql kept a model's reply whole, however long: run the command that wrote this run folder again, clinsql generate or clinsql exec --run, which answers the task again and rewrites the file)", err)
	}
	if err != nil {
		return nil, err
	}
	// One decode: the reference shape, and clinsql's own section
	// (refinefmt.TaskDetail), which says whether the result file was cut by
	// the engine's caps (the reference shape cannot).
	var doc struct {
		ExecutionSummary
		Clinsql json.RawMessage `json:"clinsql"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		// Named in the reference shape's terms (row_count, not
		// ExecutionSummary.row_count): decoded again, on this path only.
		if e2 := json.Unmarshal(b, &o.Summary); e2 != nil {
			err = e2
		}
		return nil, fmt.Errorf("%s: %s", sumPath, datasets.DescribeJSONError(err))
	}
	o.Summary = doc.ExecutionSummary
	if len(doc.Clinsql) > 0 && string(doc.Clinsql) != "null" {
		var c struct {
			Truncated            bool              `json:"truncated"`
			RecordedResultSHA256 string            `json:"recorded_result_sha256"`
			Recorded             *ExecutionSummary `json:"recorded"`
			Settings             struct {
				Kind            string `json:"kind"`
				Engine          string `json:"engine"`
				EngineSemantics string `json:"engine_semantics"`
			} `json:"settings"`
			Attempts []struct {
				Request string `json:"request"`
			} `json:"attempts"`
		}
		if err := json.Unmarshal(doc.Clinsql, &c); err != nil {
			return nil, fmt.Errorf("%s: clinsql: %s", sumPath, datasets.DescribeJSONError(err))
		}
		o.Truncated, o.RecordedResultSHA256 = c.Truncated, c.RecordedResultSHA256
		o.Detail = doc.Clinsql
		o.Engine, o.EngineSemantics = c.Settings.Engine, c.Settings.EngineSemantics
		o.RecordedAnswer = c.Recorded
		// A query that came from a recorded run rather than a model call:
		// any one sign makes the answer a re-execution.
		o.ReExecuted = c.Settings.Kind == RequestRecorded || c.Recorded != nil || c.RecordedResultSHA256 != ""
		for _, a := range c.Attempts {
			if a.Request == RequestRecorded {
				o.ReExecuted = true
			}
		}
	}
	return o, nil
}

// Identity is what a judge output binds to: the run's model and a
// fingerprint of its answers. Two loads of a run whose answers did not
// change have the same identity, wherever the folder lies and whenever it
// was (re-)executed; one changed answer changes it.
type Identity struct {
	Model string `json:"model"`
	// Folder is where the run was read (for messages, not compared).
	Folder string `json:"folder"`
	// RunID is the manifest's, "" for a released run (not compared: a
	// re-execution with the same answers is the same run).
	RunID string `json:"run_id,omitempty"`
	// Answers is the SHA-256 over every task's key, final SQL, outcome,
	// error, row count and result bytes, in key order.
	Answers string `json:"answers_sha256"`
	// Tasks is the number of answers.
	Tasks int `json:"tasks"`
}

// Same reports whether two identities name the same answers.
func (id Identity) Same(o Identity) bool {
	return id.Model == o.Model && id.Answers == o.Answers && id.Tasks == o.Tasks
}

// String names the run for messages.
func (id Identity) String() string {
	a := id.Answers
	if len(a) > 12 {
		a = a[:12]
	}
	return fmt.Sprintf("model %q (%d answers, sha256 %s…, folder %s)", id.Model, id.Tasks, a, id.Folder)
}

// Identity fingerprints the run's answers (reading every result file
// once). Only a judge needs it, so Load leaves it to this call. An
// unreadable result enters the fingerprint as such and is reported; the
// judge reads the same file and records it per task.
func (r *Run) Identity() (Identity, error) {
	id := Identity{Model: r.Model(), Folder: r.Dir, Tasks: len(r.Outputs)}
	if abs, err := filepath.Abs(r.Dir); err == nil {
		id.Folder = abs
	}
	if r.Manifest != nil {
		id.RunID = r.Manifest.RunID
	}
	h := sha256.New()
	var errs []error
	field := func(s string) {
		// Length-prefixed, so that no two answers hash alike by shifting
		// bytes between fields.
		io.WriteString(h, strconv.Itoa(len(s)))
		h.Write([]byte{':'})
		io.WriteString(h, s)
	}
	for _, o := range r.Outputs {
		s := o.Summary
		field(o.Key.String())
		field(s.FinalSQL)
		field(strconv.FormatBool(s.ExecutionSuccess))
		if s.FinalError != nil {
			field("error:" + *s.FinalError)
		} else {
			field("")
		}
		field(strconv.FormatInt(int64(s.RowCount), 10))
		field(strconv.FormatBool(o.SQLAbsent))
		if o.ResultCSV == "" {
			field("no result")
			continue
		}
		sum, err := o.ResultSHA256()
		if err != nil {
			// The judge reads the same file and reports it per task.
			sum = "unreadable"
			errs = append(errs, err)
		}
		field(sum)
	}
	id.Answers = hex.EncodeToString(h.Sum(nil))
	return id, errors.Join(errs...)
}

// FileSHA256 is the hex SHA-256 of a regular file of at most limit bytes
// (read as Open reads: no links, FIFOs or devices).
func FileSHA256(path string, limit int64) (string, error) {
	f, _, err := Open(path, limit)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// LoadOutputs is Load for callers that need the answers only.
func LoadOutputs(dir string) ([]*Output, error) {
	r, err := Load(dir)
	if r == nil {
		return nil, err
	}
	return r.Outputs, err
}
