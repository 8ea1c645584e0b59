package refinefmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/runfolder"
)

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
	// no placeholder is written (see package refine).
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
	// refine.Replay): for the released runs, what BigQuery did with the
	// same query.
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

// ParseDetail decodes the "clinsql" part of an execution_summary.json
// (runfolder.Output.Detail, read within runfolder.MaxSummaryBytes).
func ParseDetail(raw json.RawMessage) (*TaskDetail, error) {
	d := &TaskDetail{}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, err
	}
	return d, nil
}

// ReadSummary reads a task's execution_summary.json from a run folder, as
// runfolder reads it (no links, at most runfolder.MaxSummaryBytes). ok is
// false when the task has none (not done yet), and also when its summary is
// over the limit: an older clinsql kept a model's reply whole, however
// long, and such a task is answered again (the reply comes from the cache,
// now cut to size) rather than leave the run folder unreadable. Any other
// file that cannot be read is an error naming it.
func ReadSummary(run string, k datasets.Key) (sum *TaskSummary, ok bool, err error) {
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

// WriteSummary writes sum as task k's execution_summary.json in a run
// folder (indented, to a temporary name renamed into place). The task's
// folder must exist.
func WriteSummary(run string, k datasets.Key, sum *TaskSummary) error {
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(runfolder.TaskDir(run, k), runfolder.ExecutionSummaryFile), append(b, '\n'))
}
