package refine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/runfolder"
)

// FailedToGenerate is the reference's final_error when no query came back.
const FailedToGenerate = "Failed to generate SQL"

// TaskSummary is a task's execution_summary.json as clinsql writes it: the
// reference fields first, in the reference order (the one
// runfolder.ExecutionSummary that every reader uses), then clinsql's own
// under "clinsql". [runfolder.Load] and the reference tools read it alike.
type TaskSummary struct {
	runfolder.ExecutionSummary
	Clinsql *TaskDetail `json:"clinsql,omitempty"`
}

// TaskDetail is clinsql's own part of execution_summary.json.
type TaskDetail struct {
	Status string `json:"status"`
	// SuccessAttempt is the first attempt that ran without error (0: none).
	SuccessAttempt int    `json:"success_attempt"`
	FinalAttempt   int    `json:"final_attempt"` // 1-based; 0 when there is none
	Stopped        string `json:"stopped,omitempty"`
	// ResultFile is "result_<id>.csv" when the final query ran (its rows,
	// or only its header when it returned none), "" when it did not run:
	// no placeholder is written (see the package documentation).
	ResultFile   string    `json:"result_file"`
	RowsWritten  int       `json:"rows_written"`
	Truncated    bool      `json:"truncated,omitempty"`
	Attempts     []Attempt `json:"attempts"`
	Usage        UsageJSON `json:"usage"`
	DurationMS   float64   `json:"duration_ms"`
	FinishedAt   time.Time `json:"finished_at"`
	RunID        string    `json:"run_id"`
	Settings     Settings  `json:"settings"`
	ExcludedNote string    `json:"excluded,omitempty"`
	// Recorded is the recorded run's own outcome for a replayed task (see
	// Replay): for the released runs, what BigQuery did with the same query.
	Recorded *runfolder.ExecutionSummary `json:"recorded,omitempty"`
	// RecordedResultSHA256 is the SHA-256 of the recorded run's result CSV
	// for a replayed task ("" when it had none): judge replays decisions
	// about the recorded result only onto the same bytes.
	RecordedResultSHA256 string `json:"recorded_result_sha256,omitempty"`
}

// UsageJSON totals a task's model calls.
type UsageJSON struct {
	Calls            int     `json:"calls"`
	CacheHits        int     `json:"cache_hits"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// Settings are what a run's answers depend on. A run folder keeps them in
// SettingsFile, and a resumed run must have the same.
type Settings struct {
	Model         string          `json:"model"`    // the models file's name
	ModelID       string          `json:"model_id"` // sent to the endpoint
	Kind          string          `json:"kind"`
	Host          string          `json:"host"` // base URL host and path, no credentials
	Deployment    string          `json:"deployment,omitempty"`
	Sampling      llmfmt.Sampling `json:"sampling"`
	Prompt        PromptMode      `json:"prompt"`
	PromptVersion string          `json:"prompt_version"`
	SchemaSHA256  string          `json:"schema_sha256"`
	Rounds        int             `json:"rounds"`
	RefineOnEmpty bool            `json:"refine_on_empty"`
	History       bool            `json:"history"`
	Engine        string          `json:"engine"`
	// EngineSemantics are the engine's options that change results (the
	// embedded engine's division by zero), when it reports them.
	EngineSemantics string `json:"engine_semantics,omitempty"`
}

// semantic is an executor whose results depend on options beyond its name;
// they are part of the run settings, so that a run folder is not resumed
// under other semantics.
type semantic interface{ Semantics() string }

// engineSemantics is ex's Semantics, or "" when it reports none.
func engineSemantics(ex executor.Executor) string {
	if s, ok := ex.(semantic); ok {
		return s.Semantics()
	}
	return ""
}

// Bounds on the text a summary keeps, encoded (textclip.JSON), so that an
// execution_summary.json stays far below what its readers take
// (runfolder.MaxSummaryBytes, 16 MiB) whatever the model wrote: the final
// query whole up to keptFinalSQLBytes (a query within DefaultMaxSQLBytes
// takes at most that unless it is mostly characters JSON escapes), every
// attempt's query up to keptSQLBytes, every message up to keptErrorBytes.
// With MaxRounds the worst case is about 3 MiB.
const (
	keptFinalSQLBytes = 2 << 20
	keptSQLBytes      = 32 << 10
)

// KeptAttempts returns the attempts as a record file keeps them: each
// query and message cut to sqlBytes and errBytes encoded bytes.
func KeptAttempts(as []Attempt, sqlBytes, errBytes int) []Attempt {
	out := make([]Attempt, len(as))
	for i, a := range as {
		a.SQL = textclip.JSON(a.SQL, sqlBytes)
		a.Error = textclip.JSON(a.Error, errBytes)
		out[i] = a
	}
	return out
}

// Summary builds the task's execution_summary.json from its record.
func Summary(rec *Record, t *datasets.Task, s Settings, runID string) *TaskSummary {
	ts := &TaskSummary{ExecutionSummary: runfolder.ExecutionSummary{
		Query:              t.Question,
		Model:              s.Model,
		ModelID:            s.ModelID,
		RefinementAttempts: []runfolder.Attempt{},
	}}
	for _, a := range rec.Attempts {
		ra := runfolder.Attempt{Attempt: a.Attempt, Success: a.Status == AttemptOK || a.Status == AttemptEmpty, RowCount: a.RowCount, Warnings: a.Warnings}
		if !ra.Success {
			e := attemptError(a)
			ra.Error = &e
		}
		ts.RefinementAttempts = append(ts.RefinementAttempts, ra)
	}
	u, usd, hits := rec.Usage()
	d := &TaskDetail{
		Status: rec.Status, SuccessAttempt: rec.SuccessAttempt, Stopped: rec.Stopped,
		Attempts: KeptAttempts(rec.Attempts, keptSQLBytes, keptErrorBytes), DurationMS: ms(rec.Duration), FinishedAt: time.Now().UTC(), RunID: runID, Settings: s,
		Usage: UsageJSON{Calls: len(rec.Attempts), CacheHits: hits, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CostUSD: usd},
	}
	if d.Attempts == nil {
		d.Attempts = []Attempt{}
	}
	if rec.Status == StatusUnsupported {
		d.ExcludedNote = "not counted in the model's attempt-wise success: the engine cannot run this query faithfully"
	}
	if f := rec.FinalAttempt(); f != nil {
		d.FinalAttempt = f.Attempt
		ts.FinalSQL = textclip.JSON(f.SQL, keptFinalSQLBytes)
		ts.RowCount = f.RowCount
		ts.ExecutionSuccess = f.Status == AttemptOK || f.Status == AttemptEmpty
		if !ts.ExecutionSuccess {
			e := attemptError(*f)
			if f.Status == AttemptNoSQL {
				e = FailedToGenerate + ": " + e
			}
			ts.FinalError = &e
		}
		if rec.Result != nil {
			d.ResultFile = runfolder.ResultFile(t.ID)
			d.RowsWritten = len(rec.Result.Rows)
			d.Truncated = rec.Result.Truncated
		}
	} else {
		e := FailedToGenerate
		if rec.Stopped != "" {
			e += ": " + rec.Stopped
		}
		ts.FinalError = &e
	}
	ts.Clinsql = d
	return ts
}

func attemptError(a Attempt) string {
	if a.ErrorClass != "" {
		return string(a.ErrorClass) + ": " + a.Error
	}
	return a.Error
}

// WriteTask writes a finished task's outputs into its folder of the run:
// query_<id>.txt, sql_<id>.sql (the final query, even when it failed, as
// upstream does; absent when there is none), result_<id>.csv (when the final
// query ran) and execution_summary.json. Each file is written to a temporary
// name and renamed into place, and the summary comes last, so a task counts
// as done only once all of its files are whole; files of an earlier answer
// that this one does not have are removed first.
func WriteTask(run string, t *datasets.Task, rec *Record, sum *TaskSummary) error {
	dir := runfolder.TaskDir(run, t.Key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sumPath := filepath.Join(dir, runfolder.ExecutionSummaryFile)
	sqlPath := filepath.Join(dir, runfolder.SQLFile(t.ID))
	csvPath := filepath.Join(dir, runfolder.ResultFile(t.ID))
	// The summary goes first, so that a crash below leaves the task pending.
	for _, p := range []string{sumPath, sqlPath, csvPath} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	atomicfile.RemoveTemps(dir)
	if err := atomicfile.Write(filepath.Join(dir, runfolder.QuestionFile(t.ID)), []byte(t.Question)); err != nil {
		return err
	}
	if text := finalSQL(rec, sum); text != "" {
		if err := atomicfile.Write(sqlPath, []byte(text)); err != nil {
			return err
		}
	}
	if rec.Result != nil {
		var b bytes.Buffer
		if err := executor.WriteCSV(&b, rec.Result); err != nil {
			return fmt.Errorf("%s: %w", csvPath, err)
		}
		if err := atomicfile.Write(csvPath, b.Bytes()); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(sumPath, append(b, '\n'))
}

// finalSQL is the final query as sql_<id>.sql holds it: whole (within
// DefaultMaxSQLBytes), where the summary may have cut it.
func finalSQL(rec *Record, sum *TaskSummary) string {
	if f := rec.FinalAttempt(); f != nil && f.SQL != "" && sum.FinalSQL != "" {
		return f.SQL
	}
	return sum.FinalSQL
}

// ReadTask reads a task's execution_summary.json from a run folder, as
// runfolder reads it (no links, at most runfolder.MaxSummaryBytes). ok is
// false when the task has none (not done yet), and also when its summary is
// over the limit: an older clinsql kept a model's reply whole, however
// long, and such a task is answered again (the reply comes from the cache,
// now cut to size) rather than leave the run folder unreadable. Any other
// file that cannot be read is an error naming it.
func ReadTask(run string, k datasets.Key) (sum *TaskSummary, ok bool, err error) {
	path := filepath.Join(runfolder.TaskDir(run, k), runfolder.ExecutionSummaryFile)
	b, err := runfolder.ReadFile(path, runfolder.MaxSummaryBytes)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, runfolder.ErrTooLarge) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	sum = &TaskSummary{}
	if err := json.Unmarshal(b, sum); err != nil {
		return nil, false, fmt.Errorf("%s: %v", path, err)
	}
	return sum, true, nil
}
