package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Attempt is one execution in a model's self-refinement loop.
type Attempt struct {
	Attempt  int     `json:"attempt"`
	Success  bool    `json:"success"`
	RowCount int     `json:"row_count"`
	Error    *string `json:"error"`
	// Warnings are clinsql's (not in the reference format): the query ran,
	// but not exactly as BigQuery would have (see executor.Result).
	Warnings []string `json:"warnings,omitempty"`
}

// ExecutionSummary is a task's execution_summary.json in the reference
// inference layout. clinsql writes the same shape, with optional fields of
// its own.
type ExecutionSummary struct {
	Query              string    `json:"query"`
	FinalSQL           string    `json:"final_sql"`
	ExecutionSuccess   bool      `json:"execution_success"`
	RowCount           int       `json:"row_count"`
	FinalError         *string   `json:"final_error"`
	Model              string    `json:"model"`
	ModelID            string    `json:"model_id,omitempty"`
	RefinementAttempts []Attempt `json:"refinement_attempts"`
}

// Output is one model's answer to one task, as found in a run folder.
type Output struct {
	Key
	Dir     string // the task's folder in the run
	Summary ExecutionSummary
	// ResultCSV is the path of result_<id>.csv, or "" when the file is
	// absent (the release lacks one 989,918-row result).
	ResultCSV string
	// SQLAbsent marks an answer released as its result CSV alone (no
	// execution_summary.json): the SQL text is unknown, not empty.
	SQLAbsent bool
}

// ExecutionSummaryFile is the per-task summary in a run folder.
const ExecutionSummaryFile = "execution_summary.json"

// LoadRun reads a model's outputs in the reference inference layout:
// dir/<split>/<Domain>/<difficulty>_level_queries/<id>/execution_summary.json
// and result_<id>.csv. dir may also be a single split folder. Outputs come
// back sorted by key; every unreadable summary is reported, naming its file
// and field.
func LoadRun(dir string) ([]*Output, error) {
	splits, err := splitDirs(dir)
	if err != nil {
		return nil, err
	}
	var outs []*Output
	var errs []error
	for _, s := range splits {
		err := filepath.WalkDir(s, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			if d.IsDir() || d.Name() != ExecutionSummaryFile {
				return nil
			}
			taskDir := filepath.Dir(path)
			rel, _ := filepath.Rel(filepath.Dir(s), taskDir)
			key, err := ParseKey(rel)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", path, err))
				return nil
			}
			o, err := readOutput(key, taskDir)
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			outs = append(outs, o)
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(outs) == 0 && len(errs) == 0 {
		return nil, fmt.Errorf("%s: no %s found (want <split>/<Domain>/<difficulty>_level_queries/<id>/%s)", dir, ExecutionSummaryFile, ExecutionSummaryFile)
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Key.Less(outs[j].Key) })
	return outs, errors.Join(errs...)
}

func readOutput(key Key, dir string) (*Output, error) {
	path := filepath.Join(dir, ExecutionSummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	o := &Output{Key: key, Dir: dir}
	if err := json.Unmarshal(b, &o.Summary); err != nil {
		return nil, fmt.Errorf("%s: %s", path, describeJSONError(err))
	}
	csv := filepath.Join(dir, GoldResultFile(key.ID))
	if _, err := os.Stat(csv); err == nil {
		o.ResultCSV = csv
	}
	return o, nil
}

// DescribeJSONError names the field of a type mismatch, or the byte offset
// of a syntax error.
func DescribeJSONError(err error) string { return describeJSONError(err) }

// describeJSONError names the field of a type mismatch.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q: want %s, found JSON %s", te.Field, te.Type, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
