package judge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/internal/pyjson"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/ledger"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
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

func (c *Counts) add(r *ledger.Record) {
	c.Total++
	if r == nil {
		c.Undecided++
		return
	}
	switch r.Source {
	case ledger.SourceCode:
		c.Code++
	case ledger.SourceLLM:
		c.LLM++
	case ledger.SourceReplay:
		c.Replay++
	case ledger.SourceSkip:
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

// SplitScores are a split's averages.
type SplitScores struct {
	Tasks               int     `json:"tasks"`
	AverageSQLScore     float64 `json:"average_sql_score"`
	AverageResultsScore float64 `json:"average_results_score"`
	TasksWithInvalid    int     `json:"tasks_with_invalid_leaves"`
}

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
	Group           GroupMode   `json:"group"`
	GroupGated      bool        `json:"group_gated"`
	Complete        bool        `json:"complete"`
	// Completeness is "complete", "subset" (part of the run's tasks, on
	// purpose: Subset says which), "partial" (the run lacks answers and was
	// judged with --allow-partial: Missing lists them) or "interrupted"
	// (leaves left undecided: StoppedBy says why). Only complete outputs
	// are ranked by clinsql report unless asked otherwise.
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

	ByTree map[ledger.Tree]Counts        `json:"by_tree"`
	ByKind map[codecheck.LeafKind]Counts `json:"by_kind"`
	Splits map[string]SplitScores        `json:"splits"`
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

// Scored is a judged run scored: per split, the reference scorer's shapes.
type Scored struct {
	Splits  map[string]*scoring.Rescored
	Summary *Summary
}

// Score evaluates every item's trees in the outcome's mode and tallies the
// summary. model names the run in the output files.
func Score(o *Outcome, model string) *Scored {
	mode := o.Opts.Mode
	s := &Summary{Model: model, Mode: mode, Judge: o.Judge, ReferenceGuided: o.Opts.ReferenceGuided,
		CodeChecks: o.Opts.CodeChecks, Skipping: o.Opts.Skipping, Samples: 1, Complete: o.Complete(),
		Group: o.Opts.Group.orLeaf(), GroupGated: o.Opts.GroupGated,
		ByTree: map[ledger.Tree]Counts{}, ByKind: map[codecheck.LeafKind]Counts{}, Splits: map[string]SplitScores{},
		ErrorKinds: map[string]int{}, This: o.This, Scores: map[datasets.Key][2]float64{}}
	if sp, ok := o.Opts.Backend.(interface{ Samples() int }); ok {
		s.Samples = sp.Samples()
	}
	s.Completeness = "complete"
	if !s.Complete {
		s.Completeness = "interrupted"
	}
	s.Producer = buildinfo.Current()
	if o.Stopped != nil {
		s.StoppedBy = o.Stopped.Error()
	}
	out := &Scored{Splits: map[string]*scoring.Rescored{}, Summary: s}
	rec, _ := o.Opts.Backend.(recording)
	order := map[*scoring.TaskScore]int{}
	items := append([]*ItemResult(nil), o.Items...)
	sort.Slice(items, func(i, j int) bool { return items[i].Task.Key.Less(items[j].Task.Key) })
	voted, flipped := 0, 0
	for _, it := range items {
		key := it.Task.Key
		ts := &scoring.TaskScore{Key: key, SamplePath: it.Answer.Dir, Graded: true, Kinds: map[string]int{},
			SQL:     rubric.Evaluate(it.Task.SQLRubric.Root, it.SQL, mode),
			Results: rubric.Evaluate(it.Task.ResultsRubric.Root, it.Results, mode)}
		if rec != nil {
			recPath, i, ok := rec.Recorded(key)
			ts.Graded = ok
			if mode == rubric.Reference && ok {
				// As recorded, so that the summary files are the
				// published ones byte for byte.
				ts.SamplePath, order[ts] = recPath, i
			}
		}
		tc := TaskCost{Task: key.String(), SQLScore: ts.SQL.Value, ResultsScore: ts.Results.Value, InvalidLeaves: ts.Invalid()}
		switch {
		case mode == rubric.Reference && !ts.Graded:
			tc.Excluded = true
			s.Excluded = append(s.Excluded, key.String())
		default:
			split := out.Splits[key.Split]
			if split == nil {
				split = &scoring.Rescored{Model: model, Split: key.Split, Mode: mode}
				out.Splits[key.Split] = split
			}
			split.Tasks = append(split.Tasks, ts)
			s.Scores[key] = [2]float64{ts.SQL.Value, ts.Results.Value}
		}
		groups := map[string]bool{}
		for _, t := range []struct {
			tree      ledger.Tree
			root      *rubric.Node
			uncounted map[string]bool
		}{{ledger.TreeSQL, it.Task.SQLRubric.Root, uncountedLeaves(ts.SQL)}, {ledger.TreeResults, it.Task.ResultsRubric.Root, uncountedLeaves(ts.Results)}} {
			bt := s.ByTree[t.tree]
			for _, l := range t.root.Leaves() {
				r := it.Records[ledger.LeafKey{Task: key.String(), Tree: t.tree, Leaf: l.ID}]
				bt.add(r)
				k := leafKind(t.tree, l)
				if r != nil {
					k = r.Kind
				}
				bk := s.ByKind[k]
				bk.add(r)
				s.ByKind[k] = bk
				tc.Leaves++
				if r == nil {
					continue
				}
				if r.Source == ledger.SourceLLM || r.Source == ledger.SourceReplay {
					tc.BackendLeaves++
					switch {
					case r.Group == "":
						tc.BackendCalls++
					case !groups[r.Group]:
						groups[r.Group] = true
						tc.BackendCalls++
					}
					if t.uncounted[l.ID] {
						s.BackendLeavesUncounted++
					}
				}
				tc.LLMCalls += r.Calls - r.CacheHits
				tc.PromptTokens += r.PromptTokens
				tc.CompletionTokens += r.CompletionTokens
				tc.CostUSD += r.CostUSD
				s.RepliesCostUSD += max(r.ReplyCostUSD, r.CostUSD)
				s.CacheHits += r.CacheHits
				if r.ErrorKind != "" {
					s.ErrorKinds[r.ErrorKind]++
				}
				if r.Votes != nil {
					voted++
					if r.Votes.Pass > 0 && r.Votes.Fail > 0 {
						flipped++
					}
				}
			}
			s.ByTree[t.tree] = bt
		}
		s.Detail = append(s.Detail, tc)
		s.LLMCalls += tc.LLMCalls
		s.BackendCalls += tc.BackendCalls
		s.PromptTokens += tc.PromptTokens
		s.CompletionTokens += tc.CompletionTokens
		s.CostUSD += tc.CostUSD
	}
	for _, t := range s.ByTree {
		s.LeavesTotal += t.Total
		s.LeavesCode += t.Code
		s.LeavesLLM += t.LLM
		s.LeavesReplay += t.Replay
		s.LeavesSkipped += t.Skipped
		s.LeavesInvalid += t.Invalid
		s.LeavesUndecided += t.Undecided
	}
	s.Tasks = len(items)
	if s.Tasks > 0 {
		s.LLMCallsPerTask = float64(s.LLMCalls) / float64(s.Tasks)
		s.BackendLeavesPerTask = float64(s.LeavesLLM+s.LeavesReplay) / float64(s.Tasks)
		s.BackendCallsPerTask = float64(s.BackendCalls) / float64(s.Tasks)
	}
	if voted > 0 {
		f := float64(flipped) / float64(voted)
		s.FlipRate = &f
	}
	if sp, ok := o.Opts.Backend.(interface {
		Spending() (thisRun, folder float64, ok bool)
	}); ok {
		if run, folder, ok := sp.Spending(); ok {
			s.Spending = &Spending{ThisRunUSD: run, FolderUSD: folder}
		}
	}
	if len(s.ErrorKinds) == 0 {
		s.ErrorKinds = nil
	}
	for name, r := range out.Splits {
		if len(order) > 0 {
			// Replayed in reference mode: the recording's order, in
			// which the reference scorer listed and summed its samples.
			sort.SliceStable(r.Tasks, func(i, j int) bool { return order[r.Tasks[i]] < order[r.Tasks[j]] })
		}
		b := scoring.Summarise(r.Tasks)
		s.Splits[name] = SplitScores{Tasks: b.All.N, AverageSQLScore: scoring.Round6(b.All.SQL),
			AverageResultsScore: scoring.Round6(b.All.Results), TasksWithInvalid: b.All.InvalidTasks}
	}
	return out
}

// recording is a backend that replays a reference scorer's decisions
// (Replay): it knows which tasks that scorer graded, their sample paths and
// its order.
type recording interface {
	Recorded(datasets.Key) (samplePath string, index int, ok bool)
}

// Binding is what a judge output is bound to, beyond the outcome: the run,
// the task set, the backend, and the tasks the run lacked.
type Binding struct {
	Run         *runfolder.Identity
	TasksSHA256 string
	Backend     string
	// Missing are tasks the run lacks, judged without them on purpose
	// (--allow-partial): the output is then "partial".
	Missing []string
	// Subset describes a task filter: the output is then "subset", never
	// taken for a score of the whole run.
	Subset string
}

// Bind records b in the summary and marks the scores partial when tasks
// were missing (an interrupted output stays "interrupted").
func (sc *Scored) Bind(b Binding) {
	s := sc.Summary
	s.Run, s.TasksSHA256, s.Backend, s.Missing, s.Subset = b.Run, b.TasksSHA256, b.Backend, b.Missing, b.Subset
	switch {
	case s.Completeness != "complete":
	case len(b.Missing) > 0:
		s.Completeness = "partial"
	case b.Subset != "":
		s.Completeness = "subset"
	}
}

// uncountedLeaves returns the leaves of a scored tree whose verdicts the
// score does not use: the leaf or an ancestor comes after a failed
// sequential sibling or beside a failed critical one (Score.Counted).
func uncountedLeaves(s *rubric.Score) map[string]bool {
	out := map[string]bool{}
	var walk func(s *rubric.Score, counted bool)
	walk = func(s *rubric.Score, counted bool) {
		counted = counted && s.Counted
		if s.Node.IsLeaf() {
			if !counted {
				out[s.Node.ID] = true
			}
			return
		}
		for _, c := range s.Children {
			walk(c, counted)
		}
	}
	walk(s, true)
	return out
}

// WriteFiles writes, per split, detailed_grading.json and the three
// scoring summaries (into dir when the run has one split, else into
// dir/<split>/), and judge_summary.json into dir.
func (sc *Scored) WriteFiles(dir string, o *Outcome) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	byKey := map[datasets.Key]*ItemResult{}
	for _, it := range o.Items {
		byKey[it.Task.Key] = it
	}
	for name, r := range sc.Splits {
		r.Completeness = sc.Summary.Completeness
		sub := dir
		if len(sc.Splits) > 1 {
			sub = filepath.Join(dir, name)
		}
		if err := r.WriteFiles(sub); err != nil {
			return err
		}
		b, err := gradingJSON(r, byKey, sc.Summary)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(sub, GradingFile), b); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(sc.Summary, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, SummaryFile), append(b, '\n'))
}

// gradingJSON renders detailed_grading.json in the reference shape, leaves
// only (the early-graded variant), each entry with the reference's fields
// (score, explanation, critical, weight) plus verdict and source. Skipped
// leaves are written with score 0 and an explanation saying why, invalid
// ones with an explanation starting "Error:" (so that clinsql rescore
// classifies them as judge errors), undecided ones not at all: rescoring
// the file gives the same scores as the judge.
func gradingJSON(r *scoring.Rescored, items map[datasets.Key]*ItemResult, s *Summary) ([]byte, error) {
	b := scoring.Summarise(r.Tasks)
	diff := pyjson.Object{}
	for _, d := range datasets.Difficulties {
		if a, ok := b.ByDifficulty[d]; ok {
			diff = append(diff, pyjson.Member{Key: d, Value: pyjson.Object{
				{Key: "total_samples", Value: a.N},
				{Key: "average_sql_score", Value: scoring.Round6(a.SQL)},
				{Key: "average_results_score", Value: scoring.Round6(a.Results)},
			}})
		}
	}
	summary := pyjson.Object{
		{Key: "experiment_model", Value: r.Model},
		{Key: "split", Value: r.Split},
		{Key: "category", Value: "all_categories"},
		{Key: "difficulty", Value: "all"},
		{Key: "total_samples", Value: b.All.N},
		{Key: "average_sql_score", Value: scoring.Round6(b.All.SQL)},
		{Key: "average_results_score", Value: scoring.Round6(b.All.Results)},
		{Key: "difficulty_breakdown", Value: diff},
		{Key: "scoring_mode", Value: string(r.Mode)},
		{Key: "completeness", Value: s.Completeness},
		{Key: "producer", Value: s.Producer},
		{Key: "judge", Value: pyjson.Object{
			{Key: "name", Value: s.Judge},
			{Key: "reference_guided", Value: s.ReferenceGuided},
			{Key: "code_checks", Value: s.CodeChecks},
			{Key: "skipping", Value: s.Skipping},
			{Key: "samples", Value: s.Samples},
			{Key: "complete", Value: s.Complete},
			{Key: "completeness", Value: s.Completeness},
		}},
	}
	var evals []any
	for _, ts := range r.Tasks {
		it := items[ts.Key]
		key := ts.Key.String()
		evals = append(evals, pyjson.Object{
			{Key: "sample_path", Value: ts.SamplePath},
			{Key: "sql_score", Value: ts.SQL.Value},
			{Key: "results_score", Value: ts.Results.Value},
			{Key: "sql_evaluations", Value: leafEntries(it.Task.SQLRubric.Root, it.Records, key, ledger.TreeSQL)},
			{Key: "results_evaluations", Value: leafEntries(it.Task.ResultsRubric.Root, it.Records, key, ledger.TreeResults)},
		})
	}
	return pyjson.Marshal(pyjson.Object{{Key: "summary", Value: summary}, {Key: "detailed_evaluations", Value: evals}})
}

func leafEntries(root *rubric.Node, recs map[ledger.LeafKey]*ledger.Record, key string, t ledger.Tree) pyjson.Object {
	o := pyjson.Object{}
	for _, l := range root.Leaves() {
		r := recs[ledger.LeafKey{Task: key, Tree: t, Leaf: l.ID}]
		if r == nil {
			continue
		}
		expl := r.Explanation
		score := r.Score
		switch r.Verdict {
		case rubric.Skipped:
			score = 0
		case rubric.Invalid:
			if len(expl) < 6 || expl[:6] != "Error:" {
				expl = "Error: " + expl
			}
		}
		o = append(o, pyjson.Member{Key: l.ID, Value: pyjson.Object{
			{Key: "score", Value: score},
			{Key: "explanation", Value: expl},
			{Key: "critical", Value: l.Critical},
			{Key: "weight", Value: l.Weight},
			{Key: "verdict", Value: r.Verdict.String()},
			{Key: "source", Value: string(r.Source)},
		}})
	}
	return o
}
