package runfolder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
)

// ManifestFile is the manifest's name at the top of a run folder.
const ManifestFile = "manifest.json"

// ManifestVersion is written in every manifest; readers refuse newer ones.
const ManifestVersion = 1

// Manifest says what a run folder holds and how it was made. clinsql
// generate writes it before the first task and again when it stops, so a
// run that was interrupted says so.
type Manifest struct {
	Version int `json:"manifest_version"`
	// Benchmark is "clinsql" (or "ehrsql").
	Benchmark string `json:"benchmark"`
	Model     string `json:"model"`
	// RecordedModel is, for a run that re-executes another run's SQL (exec
	// --run), the model that wrote that SQL: decisions recorded about it
	// may be replayed for this run.
	RecordedModel string `json:"recorded_model,omitempty"`
	// RecordedRun is, for a re-execution, the recorded run's folder as an
	// absolute path: where the judge finds the recorded answers to check
	// which re-executed results are the recorded ones, byte for byte.
	RecordedRun string `json:"recorded_run,omitempty"`
	RunID       string `json:"run_id"`
	// Command made the folder: "generate", "exec --run".
	Command string   `json:"command"`
	Splits  []string `json:"splits"`
	// Tasks is the task set the run is meant to answer, in key order.
	Tasks []string `json:"tasks"`
	// TasksSHA256 fingerprints the task set's questions, gold SQL, gold
	// results and rubrics (TaskFingerprint).
	TasksSHA256 string `json:"tasks_sha256"`
	Engine      Engine `json:"engine"`
	// Generation holds the generation settings (refinefmt.Settings).
	Generation json.RawMessage `json:"generation,omitempty"`
	Producer   buildinfo.Stamp `json:"producer"`
	Created    time.Time       `json:"created"`
	Updated    time.Time       `json:"updated"`
	// Complete reports that every task of Tasks is final; Pending lists
	// those that are not (a stop, an interrupt, endpoint failures).
	Complete bool     `json:"complete"`
	Pending  []string `json:"pending,omitempty"`
	// Subset reports that Tasks is a part of the splits (--limit, filters).
	// clinsql judge and report then take Tasks as their default task set.
	Subset bool `json:"subset,omitempty"`
	// Selection says how a subset's tasks were chosen (the subset flags of
	// the call that made the run), for labels; nil for a whole run, or a
	// subset made by calls with different selections.
	Selection *datasets.Selection `json:"selection,omitempty"`
}

// Engine describes the executor a run's answers ran on.
type Engine struct {
	// Name is the executor's (duckdb:<file>, bigquery:<project>, recorded).
	Name string `json:"name"`
	// Semantics are options that change results (division by zero).
	Semantics string `json:"semantics,omitempty"`
	// Database fingerprints the embedded database file (size and
	// modification time: hashing gigabytes at every start is too slow).
	Database string `json:"database,omitempty"`
	// DatabaseFacts say what data the answers ran on (absent in
	// manifests written before clinsql recorded them).
	DatabaseFacts
}

// MIMICIVPatients is the number of patients in MIMIC-IV v3.1
// (hosp.patients), the whole database BigQuery serves.
const MIMICIVPatients = 364_627

// IsSample reports whether a database of n patients is a sample of
// MIMIC-IV rather than the whole of it (fewer than a tenth of v3.1's
// patients, such as the 100-patient demo).
func IsSample(n int64) bool { return n < MIMICIVPatients/10 }

// OnSample reports whether the facts describe a sample: recorded so, or a
// recorded patient count that says so. The flag is derivable from the
// count; a manifest (from someone else's folder) whose flag contradicts its
// count is not taken at its word.
func (f DatabaseFacts) OnSample() bool { return f.Sample || (f.Patients > 0 && IsSample(f.Patients)) }

// DatabaseFacts describe the data an engine's database holds, as the
// engine found them when it opened: the embedded engine reads them from the
// table clinsql db build records (mimic.FactsTable), else counts the
// patients. An engine that cannot tell leaves them zero: unknown, never
// guessed.
type DatabaseFacts struct {
	// Patients is the database's patient count; 0 when unknown.
	Patients int64 `json:"patients,omitempty"`
	// Sample reports a database holding fewer than a tenth of MIMIC-IV
	// v3.1's patients (such as the 100-patient demo): scores on it are not
	// comparable with scores on the whole of MIMIC-IV (BigQuery).
	Sample bool `json:"sample,omitempty"`
	// Source is what the database was built from ("mimic-iv-demo",
	// "mimic-iv"), SourceSHA256 the build's fingerprint of the source
	// files; "" for a database built before clinsql recorded them.
	Source       string `json:"source,omitempty"`
	SourceSHA256 string `json:"source_sha256,omitempty"`
}

// DatabaseFingerprint is "<bytes>@<mtime>" of a database file, "" when it
// cannot be read.
func DatabaseFingerprint(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(st.Size(), 10) + "@" + st.ModTime().UTC().Format(time.RFC3339Nano)
}

// TaskFingerprint is the SHA-256 of the tasks' keys, questions, gold SQL,
// gold results and both rubric trees, in key order: what a run's answers
// and a judge's decisions are relative to.
func TaskFingerprint(tasks []*datasets.Task) string {
	ts := append([]*datasets.Task(nil), tasks...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Key.Less(ts[j].Key) })
	h := sha256.New()
	for _, t := range ts {
		sql, _ := json.Marshal(t.SQLRubric)
		res, _ := json.Marshal(t.ResultsRubric)
		for _, f := range [][]byte{[]byte(t.Key.String()), []byte(t.Question), []byte(t.GoldSQL), t.GoldResult, sql, res} {
			h.Write([]byte(strconv.Itoa(len(f)) + ":"))
			h.Write(f)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ReadManifest reads dir's manifest: nil, nil when there is none.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	if !Exists(path) {
		return nil, nil
	}
	b, err := ReadFile(path, MaxSummaryBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %s", path, datasets.DescribeJSONError(err))
	}
	if m.Version == 0 || m.Model == "" {
		return nil, fmt.Errorf("%s: not a clinsql manifest (no manifest_version or model)", path)
	}
	if m.Version > ManifestVersion {
		return nil, fmt.Errorf("%s: manifest_version %d is newer than this clinsql's %d: update clinsql", path, m.Version, ManifestVersion)
	}
	return &m, nil
}

// WriteManifest writes m into dir atomically, stamping Version, Producer
// and Updated (and Created on the first write).
func WriteManifest(dir string, m *Manifest) error {
	m.Version = ManifestVersion
	m.Producer = buildinfo.Current()
	now := time.Now().UTC().Truncate(time.Millisecond)
	if m.Created.IsZero() {
		m.Created = now
	}
	m.Updated = now
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// Missing lists the tasks of the given set, in the run's splits, that
// have no final answer: none in the folder, or pending in the manifest.
// Completeness is relative to the tasks asked about: a run made with
// --limit is partial against its whole split, and complete against the
// subset it was asked to answer. The list is in key order.
func (r *Run) Missing(tasks []*datasets.Task) []datasets.Key {
	have := map[datasets.Key]bool{}
	splits := map[string]bool{}
	for _, o := range r.Outputs {
		have[o.Key] = true
		splits[o.Key.Split] = true
	}
	if r.Manifest != nil {
		for _, s := range r.Manifest.Splits {
			splits[s] = true
		}
		for _, s := range r.Manifest.Pending {
			if k, err := datasets.ParseKey(s); err == nil {
				delete(have, k)
			}
		}
	}
	var out []datasets.Key
	seen := map[datasets.Key]bool{}
	for _, t := range tasks {
		if splits[t.Split] && !have[t.Key] && !seen[t.Key] {
			seen[t.Key] = true
			out = append(out, t.Key)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}
