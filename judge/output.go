package judge

import (
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// Scored is a judged run scored: per split, the reference scorer's shapes.
type Scored struct {
	Splits  map[string]*scoring.Rescored
	Summary *judgefmt.Summary
}

// Score evaluates every item's trees in the outcome's mode and tallies the
// summary. model names the run in the output files.
func Score(o *Outcome, model string) *Scored {
	mode := o.Opts.Mode
	s := &judgefmt.Summary{Model: model, Mode: mode, Judge: o.Judge, ReferenceGuided: o.Opts.ReferenceGuided,
		CodeChecks: o.Opts.CodeChecks, Skipping: o.Opts.Skipping, Samples: 1, Complete: o.Complete(),
		Group: string(o.Opts.Group.orLeaf()), GroupGated: o.Opts.GroupGated,
		ByTree: map[judgefmt.Tree]judgefmt.Counts{}, ByKind: map[judgefmt.LeafKind]judgefmt.Counts{}, Splits: map[string]judgefmt.SplitScores{},
		ErrorKinds: map[string]int{}, This: o.This, Scores: map[datasets.Key][2]float64{}}
	if sp, ok := o.Opts.Backend.(interface{ Samples() int }); ok {
		s.Samples = sp.Samples()
	}
	s.Completeness = "complete"
	if !s.Complete {
		s.Completeness = "interrupted"
	}
	if errors.As(o.Stopped, new(*ConfigError)) {
		// The judge could not judge: its endpoint refused its calls.
		// Reports refuse such an output, flagged or not.
		s.Completeness = "failed"
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
		tc := judgefmt.TaskCost{Task: key.String(), SQLScore: ts.SQL.Value, ResultsScore: ts.Results.Value, InvalidLeaves: ts.Invalid()}
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
			tree      judgefmt.Tree
			root      *rubric.Node
			uncounted map[string]bool
		}{{judgefmt.TreeSQL, it.Task.SQLRubric.Root, uncountedLeaves(ts.SQL)}, {judgefmt.TreeResults, it.Task.ResultsRubric.Root, uncountedLeaves(ts.Results)}} {
			bt := s.ByTree[t.tree]
			for _, l := range t.root.Leaves() {
				r := it.Records[judgefmt.LeafKey{Task: key.String(), Tree: t.tree, Leaf: l.ID}]
				bt.Add(r)
				k := leafKind(t.tree, l)
				if r != nil {
					k = r.Kind
				}
				bk := s.ByKind[k]
				bk.Add(r)
				s.ByKind[k] = bk
				tc.Leaves++
				if r == nil {
					continue
				}
				if r.Source == judgefmt.SourceLLM || r.Source == judgefmt.SourceReplay {
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
			s.Spending = &judgefmt.Spending{ThisRunUSD: run, FolderUSD: folder}
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
		s.Splits[name] = judgefmt.SplitScores{Tasks: b.All.N, AverageSQLScore: scoring.Round6(b.All.SQL),
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
	byKey := map[datasets.Key]judgefmt.Graded{}
	for _, it := range o.Items {
		byKey[it.Task.Key] = judgefmt.Graded{Task: it.Task, Records: it.Records}
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
		b, err := judgefmt.MarshalGrading(r, byKey, sc.Summary)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(sub, judgefmt.GradingFile), b); err != nil {
			return err
		}
	}
	return judgefmt.WriteSummary(dir, sc.Summary)
}
