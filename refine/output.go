package refine

import (
	"bytes"
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
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// FailedToGenerate is the reference's final_error when no query came back.
const FailedToGenerate = "Failed to generate SQL"

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

// Summary builds the task's execution_summary.json from its record.
func Summary(rec *Record, t *datasets.Task, s refinefmt.Settings, runID string) *refinefmt.TaskSummary {
	ts := &refinefmt.TaskSummary{ExecutionSummary: runfolder.ExecutionSummary{
		Query:              t.Question,
		Model:              s.Model,
		ModelID:            s.ModelID,
		RefinementAttempts: []runfolder.Attempt{},
	}}
	for _, a := range rec.Attempts {
		ra := runfolder.Attempt{Attempt: a.Attempt, Success: a.Status == refinefmt.AttemptOK || a.Status == refinefmt.AttemptEmpty, RowCount: a.RowCount, Warnings: a.Warnings}
		if !ra.Success {
			e := attemptError(a)
			ra.Error = &e
		}
		ts.RefinementAttempts = append(ts.RefinementAttempts, ra)
	}
	u, usd, hits := rec.Usage()
	d := &refinefmt.TaskDetail{
		Status: rec.Status, SuccessAttempt: rec.SuccessAttempt, Stopped: rec.Stopped,
		Attempts: refinefmt.KeptAttempts(rec.Attempts, keptSQLBytes, keptErrorBytes), DurationMS: ms(rec.Duration), FinishedAt: time.Now().UTC(), RunID: runID, Settings: s,
		Usage: refinefmt.UsageJSON{Calls: len(rec.Attempts), CacheHits: hits, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CostUSD: usd},
	}
	if d.Attempts == nil {
		d.Attempts = []refinefmt.Attempt{}
	}
	if rec.Status == refinefmt.StatusUnsupported {
		d.ExcludedNote = "not counted in the model's attempt-wise success: the engine cannot run this query faithfully"
	}
	if f := rec.FinalAttempt(); f != nil {
		d.FinalAttempt = f.Attempt
		ts.FinalSQL = textclip.JSON(f.SQL, keptFinalSQLBytes)
		ts.RowCount = f.RowCount
		ts.ExecutionSuccess = f.Status == refinefmt.AttemptOK || f.Status == refinefmt.AttemptEmpty
		if !ts.ExecutionSuccess {
			e := attemptError(*f)
			if f.Status == refinefmt.AttemptNoSQL {
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

func attemptError(a refinefmt.Attempt) string {
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
func WriteTask(run string, t *datasets.Task, rec *Record, sum *refinefmt.TaskSummary) error {
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
	return refinefmt.WriteSummary(run, t.Key, sum)
}

// finalSQL is the final query as sql_<id>.sql holds it: whole (within
// DefaultMaxSQLBytes), where the summary may have cut it.
func finalSQL(rec *Record, sum *refinefmt.TaskSummary) string {
	if f := rec.FinalAttempt(); f != nil && f.SQL != "" && sum.FinalSQL != "" {
		return f.SQL
	}
	return sum.FinalSQL
}
