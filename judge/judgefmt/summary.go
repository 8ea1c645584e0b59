package judgefmt

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/clinsql/clinsql/scoring"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// Output file names besides the ledger and the scoring summaries.
const (
	GradingFile = "detailed_grading.json"
	SummaryFile = "judge_summary.json"
)

// Counts tallies leaves by who decided them.
type Counts struct {
	Total     int `json:"total"`
	Code      int `json:"code"`
	LLM       int `json:"llm"`
	Replay    int `json:"replay"`
	Skipped   int `json:"skipped"`
	Invalid   int `json:"invalid"`
	Undecided int `json:"undecided"`
}

// Add counts one leaf: r is its record, nil when it is undecided.
func (c *Counts) Add(r *Record) {
	c.Total++
	if r == nil {
		c.Undecided++
		return
	}
	switch r.Source {
	case SourceCode:
		c.Code++
	case SourceLLM:
		c.LLM++
	case SourceReplay:
		c.Replay++
	case SourceSkip:
		c.Skipped++
	}
	if r.Verdict == rubric.Invalid {
		c.Invalid++
	}
}

// TaskCost is one task's judging cost, over every run of the ledger.
type TaskCost struct {
	Task             string  `json:"task"`
	Leaves           int     `json:"leaves"`
	BackendLeaves    int     `json:"backend_leaves"`
	BackendCalls     int     `json:"backend_calls"`
	LLMCalls         int     `json:"llm_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	SQLScore         float64 `json:"sql_score"`
	ResultsScore     float64 `json:"results_score"`
	InvalidLeaves    int     `json:"invalid_leaves"`
	// Excluded: the task is left out of the scores (see Summary.Excluded).
	Excluded bool `json:"excluded,omitempty"`
}

// SplitScores are a split's averages (scoring.SplitScores: the rescore
// summary states them too).
type SplitScores = scoring.SplitScores

// Summary is judge_summary.json. Leaf counts and costs cover every record
// in the ledger (all invocations that built it); ThisRun is the last
// invocation alone.
type Summary struct {
	Model           string      `json:"model"`
	Mode            rubric.Mode `json:"mode"`
	Judge           string      `json:"judge"`
	ReferenceGuided bool        `json:"reference_guided"`
	CodeChecks      bool        `json:"code_checks"`
	Skipping        bool        `json:"skipping"`
	Samples         int         `json:"samples"`
	Group           string      `json:"group"`
	GroupGated      bool        `json:"group_gated"`
	Complete        bool        `json:"complete"`
	// Completeness is "complete", "subset" (part of the run's tasks, on
	// purpose: Subset says which), "partial" (the run lacks answers and was
	// judged with --allow-partial: Missing lists them) or "interrupted"
	// (leaves left undecided: StoppedBy says why) or "failed" (stopped by
	// a configuration failure: the judge endpoint refused its calls). Only
	// complete outputs are ranked by clinsql report unless asked
	// otherwise; failed ones never are.
	Completeness string   `json:"completeness"`
	Missing      []string `json:"missing_tasks,omitempty"`
	// Subset describes the task filter of a judge run over part of the
	// run's tasks (--task, --domain, ...): its completeness is "subset".
	Subset    string `json:"subset,omitempty"`
	StoppedBy string `json:"stopped_by,omitempty"`
	Tasks     int    `json:"tasks"`
	// Run, TasksSHA256 and Backend are what the scores are bound to (see
	// LedgerHeader); Producer the clinsql build that wrote the file.
	Run         *runfolder.Identity `json:"run,omitempty"`
	TasksSHA256 string              `json:"tasks_sha256,omitempty"`
	Backend     string              `json:"backend,omitempty"`
	Producer    buildinfo.Stamp     `json:"producer"`

	LeavesTotal     int `json:"leaves_total"`
	LeavesCode      int `json:"leaves_code"`
	LeavesLLM       int `json:"leaves_llm"`
	LeavesReplay    int `json:"leaves_replay"`
	LeavesSkipped   int `json:"leaves_skipped"`
	LeavesInvalid   int `json:"leaves_invalid"`
	LeavesUndecided int `json:"leaves_undecided"`

	// LLMCalls counts chat completions sent to the endpoint (cache hits
	// are not calls); BackendLeavesPerTask is the number of leaves a
	// backend (LLM or replay) decided, per task.
	LLMCalls         int     `json:"llm_calls"`
	CacheHits        int     `json:"cache_hits"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// RepliesCostUSD is what the replies the verdicts used cost when they
	// were bought, by this run or an earlier one, read from the cache or
	// not (a record without reply_cost_usd counts its cost_usd). CostUSD
	// counts only what the runs that recorded the verdicts paid: nothing
	// for a reply an earlier run bought and was killed before recording,
	// which a resumed run reads from the cache.
	RepliesCostUSD float64 `json:"replies_cost_usd"`
	// Spending is the LLM judge's meter after this run (absent without
	// one).
	Spending             *Spending `json:"spending,omitempty"`
	LLMCallsPerTask      float64   `json:"llm_calls_per_task"`
	BackendLeavesPerTask float64   `json:"backend_leaves_per_task"`
	// BackendCalls counts the requests that decided the backend leaves:
	// one per leaf judged alone, one per group. It is what an LLM judge
	// with one sample and no cache would call, and what a replay of
	// recorded decisions simulates.
	BackendCalls        int     `json:"backend_calls"`
	BackendCallsPerTask float64 `json:"backend_calls_per_task"`
	// BackendLeavesUncounted are backend leaves whose verdict the score
	// does not use (after a failed sequential sibling, beside a failed
	// critical one: see rubric.Score.Counted): paid for, not counted. Gate
	// skipping keeps them few; gated grouping (GroupGated) adds the leaves
	// judged beside a gate that then failed.
	BackendLeavesUncounted int `json:"backend_leaves_uncounted"`
	// FlipRate is the share of leaves decided by a k-sample vote whose
	// samples disagreed (k > 1 only).
	FlipRate   *float64       `json:"flip_rate,omitempty"`
	ErrorKinds map[string]int `json:"error_kinds,omitempty"`

	ByTree map[Tree]Counts        `json:"by_tree"`
	ByKind map[LeafKind]Counts    `json:"by_kind"`
	Splits map[string]SplitScores `json:"splits"`
	// Excluded lists the tasks judged but left out of the scores: in
	// reference mode, the tasks a replayed recording lacks. The published
	// scorer dropped those from its denominator (the 12 early-graded
	// models lack validation/Vital_Signs_Monitoring/easy_level_queries/012,
	// whose rubric copy failed to load), so reference mode does too;
	// strict mode keeps them, scored.
	Excluded []string `json:"excluded_tasks,omitempty"`
	// Detail is per task, in key order.
	Detail []TaskCost `json:"tasks_detail"`
	This   RunCounts  `json:"this_run"`
	// Scores are the task scores (SQL, results), for callers.
	Scores map[datasets.Key][2]float64 `json:"-"`
}

// Spending is what the LLM judge's meter recorded.
type Spending struct {
	// ThisRunUSD is what this run's calls were charged: every attempt,
	// failed ones and replies never recorded included.
	ThisRunUSD float64 `json:"this_run_usd"`
	// FolderUSD is the output folder's spending record over every run
	// into it, unsettled reservations (killed calls, batches not yet
	// read) at their worst case: never less than the provider billed for
	// the calls made from the folder.
	FolderUSD float64 `json:"folder_usd"`
}

// RunCounts is what one invocation did (as opposed to what the ledger
// holds from every invocation).
type RunCounts struct {
	Recorded         int     `json:"leaves_recorded"`
	Resumed          int     `json:"leaves_resumed"`
	LLMCalls         int     `json:"llm_calls"`
	CacheHits        int     `json:"cache_hits"`
	HTTPAttempts     int     `json:"http_attempts"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	WallSeconds      float64 `json:"wall_seconds"`
}

// WriteSummary writes s as dir/judge_summary.json, atomically.
func WriteSummary(dir string, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, SummaryFile), append(b, '\n'))
}

// ReadSummary reads a judge_summary.json, bounded as every file of a run
// folder is (runfolder.MaxJudgeFileBytes).
func ReadSummary(path string) (*Summary, error) {
	b, err := runfolder.ReadFile(path, runfolder.MaxJudgeFileBytes)
	if err != nil {
		return nil, err
	}
	s, err := DecodeSummary(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

// DecodeSummary reads judge_summary.json's bytes.
func DecodeSummary(b []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
