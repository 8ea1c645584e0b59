package judge

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/internal/released"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/rubric"
)

// grouping is one grouping option of the measurement.
type groupOpt struct {
	mode  GroupMode
	gated bool
}

func (g groupOpt) String() string { return g.mode.describe(g.gated) }

var groupings = []groupOpt{{GroupLeaf, false}, {GroupCategory, false}, {GroupTree, false}, {GroupCategory, true}, {GroupTree, true}}

// completionPerVerdict is the completion tokens assumed per leaf verdict
// (one to three sentences of reasoning and the JSON around them) when
// estimating the tokens of a replayed run.
const completionPerVerdict = 75

// callTokens estimates the tokens the backend calls of a judged run would
// use: the calls are rebuilt from the records (a leaf judged alone, or
// every leaf of one group id), their prompts built as the LLM judge builds
// them and measured with llm.EstimateTokens, and completionPerVerdict
// tokens assumed per leaf. wasted is what the verdicts that cannot count
// (see uncounted) cost: a call of uncounted leaves only, or the difference
// the uncounted leaves make to their group's prompt and reply.
func callTokens(o *Outcome) (prompt, completion, wasted, calls int) {
	for _, it := range o.Items {
		type call struct {
			tree      judgefmt.Tree
			uncounted map[string]bool
			leaves    []*rubric.Node
		}
		var list []*call
		groups := map[string]*call{}
		for _, t := range []struct {
			tree      judgefmt.Tree
			root      *rubric.Node
			uncounted map[string]bool
		}{{judgefmt.TreeSQL, it.Task.SQLRubric.Root, uncountedLeaves(rubric.Evaluate(it.Task.SQLRubric.Root, it.SQL, o.Opts.Mode))},
			{judgefmt.TreeResults, it.Task.ResultsRubric.Root, uncountedLeaves(rubric.Evaluate(it.Task.ResultsRubric.Root, it.Results, o.Opts.Mode))}} {
			for _, l := range t.root.Leaves() {
				r := it.Records[judgefmt.LeafKey{Task: it.Task.Key.String(), Tree: t.tree, Leaf: l.ID}]
				if r == nil || (r.Source != judgefmt.SourceReplay && r.Source != judgefmt.SourceLLM) {
					continue
				}
				c := groups[r.Group]
				if r.Group == "" || c == nil {
					c = &call{tree: t.tree, uncounted: t.uncounted}
					list = append(list, c)
					if r.Group != "" {
						groups[r.Group] = c
					}
				}
				c.leaves = append(c.leaves, l)
			}
		}
		size := func(c *call, leaves []*rubric.Node) int {
			if len(leaves) == 0 {
				return 0
			}
			n := len(leaves) * completionPerVerdict
			if o.Opts.Group.orLeaf() == GroupLeaf {
				return n + llm.EstimateTokens(BuildPrompt(&LeafRequest{Task: it.Task, Answer: it.Answer, Tree: c.tree, Leaf: leaves[0]}, PromptOptions{}))
			}
			return n + llm.EstimateTokens(BuildGroupPrompt(&GroupRequest{Task: it.Task, Answer: it.Answer, Tree: c.tree, Leaves: leaves}, PromptOptions{}))
		}
		for _, c := range list {
			calls++
			all := size(c, c.leaves)
			completion += len(c.leaves) * completionPerVerdict
			prompt += all - len(c.leaves)*completionPerVerdict
			var counted []*rubric.Node
			for _, l := range c.leaves {
				if !c.uncounted[l.ID] {
					counted = append(counted, l)
				}
			}
			if len(counted) < len(c.leaves) {
				wasted += all - size(c, counted)
			}
		}
	}
	return prompt, completion, wasted, calls
}

// TestReplayGrouping is the grouped-judging measurement over the 16
// released models' validation outputs, replaying their recorded decisions:
// each group counts as one backend call.
//
//   - Without code checks and skipping, in reference mode, every groupOpt
//     reproduces every published task score, and in both modes equals
//     judging leaf by leaf.
//   - With code checks and skipping (the judge's defaults), every groupOpt
//     gives the same task scores as judging leaf by leaf, in both modes;
//     it logs per grouping the backend calls, backend leaves and uncounted
//     backend leaves per task and the estimated tokens per task.
//
// The table is also written to testdata/out/grouping.tsv (not committed).
func TestReplayGrouping(t *testing.T) {
	tasks, models := released.Load(t)
	models = replayedModels(t, models)
	type row struct {
		mode                                                        rubric.Mode
		g                                                           groupOpt
		tasks, calls, leaves, uncounted, prompt, completion, wasted int
	}
	var rows []row
	for _, mode := range []rubric.Mode{rubric.Reference, rubric.Strict} {
		published, pubMismatch, mismatches := 0, 0, 0
		byGroup := make([]row, len(groupings))
		for _, m := range models {
			// Leaf by leaf: every leaf judged, and with code checks and
			// skipping (the judge's defaults).
			full := runReplay(t, tasks, m, Options{Mode: mode})
			code := runReplay(t, tasks, m, Options{Mode: mode, CodeChecks: true, Skipping: true})
			for i, gr := range groupings {
				r := &byGroup[i]
				r.mode, r.g = mode, gr
				o := code
				if gr.mode != GroupLeaf {
					opts := Options{Mode: mode, Group: gr.mode, GroupGated: gr.gated}
					gfull := runReplay(t, tasks, m, opts)
					mismatches += compareScores(t, mode, m.Name, "all leaves, "+gr.String(), full, gfull)
					if mode == rubric.Reference {
						// The recorded decisions reproduce the published
						// scores, whatever the grouping.
						for _, ts := range Score(gfull, m.Name).Splits["validation"].Tasks {
							if e, ok := m.ByKey[ts.Key]; ok {
								published += 2
								if ts.SQL.Value != e.SQLScore || ts.Results.Value != e.ResultsScore {
									pubMismatch++
									t.Errorf("%s %s %s: replayed %v/%v, published %v/%v", gr, m.Name, ts.Key, ts.SQL.Value, ts.Results.Value, e.SQLScore, e.ResultsScore)
								}
							}
						}
					}
					opts.CodeChecks, opts.Skipping = true, true
					o = runReplay(t, tasks, m, opts)
					mismatches += compareScores(t, mode, m.Name, "code checks and skipping, "+gr.String(), code, o)
				}
				s := Score(o, m.Name).Summary
				r.tasks += s.Tasks
				r.calls += s.BackendCalls
				r.leaves += s.LeavesReplay
				r.uncounted += s.BackendLeavesUncounted
				prompt, completion, wasted, calls := callTokens(o)
				if calls != s.BackendCalls {
					t.Errorf("%s %s: %d calls rebuilt from the records, summary says %d", gr, m.Name, calls, s.BackendCalls)
				}
				r.prompt += prompt
				r.completion += completion
				r.wasted += wasted
			}
		}
		rows = append(rows, byGroup...)
		if mode == rubric.Reference {
			t.Logf("reference mode, every leaf judged, grouped by category, tree, category+gated and tree+gated: %d published task scores checked, %d mismatches",
				published, pubMismatch)
		}
		t.Logf("%s mode: task trees whose grouped score differs from the leaf-by-leaf score (all leaves; code checks and skipping): %d", mode, mismatches)
	}
	var b strings.Builder
	b.WriteString("mode\tgrouping\ttasks\tcalls_per_task\tleaves_per_call\tbackend_leaves_per_task\tuncounted_leaves_per_task\tprompt_tokens_per_task\tcompletion_tokens_per_task\ttokens_per_task\twasted_tokens_per_task\n")
	t.Logf("validation, %d models x 190 tasks, code checks + skipping, replayed decisions (one call per group); per task:", len(models))
	t.Logf("  %-9s %-14s %6s %10s %7s %9s %7s %10s %7s %7s", "mode", "grouping", "calls", "leaves/call", "leaves", "uncounted", "prompt", "completion", "tokens", "wasted")
	for _, r := range rows {
		n := float64(r.tasks)
		per := func(x int) float64 { return float64(x) / n }
		t.Logf("  %-9s %-14s %6.2f %10.2f %7.2f %9.2f %7.0f %10.0f %7.0f %7.0f", r.mode, r.g, per(r.calls), float64(r.leaves)/float64(r.calls), per(r.leaves),
			per(r.uncounted), per(r.prompt), per(r.completion), per(r.prompt+r.completion), per(r.wasted))
		fmt.Fprintf(&b, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\n", r.mode, r.g, r.tasks, per(r.calls), float64(r.leaves)/float64(r.calls), per(r.leaves),
			per(r.uncounted), per(r.prompt), per(r.completion), per(r.prompt+r.completion), per(r.wasted))
		if r.mode == rubric.Reference && r.g == (groupOpt{DefaultGroup, false}) && per(r.calls) > 4 {
			t.Errorf("default grouping %s: %.2f calls per task in reference mode, want at most 4", r.g, per(r.calls))
		}
	}
	// The README's table is the reference-mode rows; it is checked against
	// the golden file by TestReadmeGroupingTable. Only the full set of
	// models makes the figures (the race detector replays three).
	var md strings.Builder
	md.WriteString("| `--group` | calls | leaves per call | tokens (est.) | tokens on verdicts that cannot count |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.mode != rubric.Reference {
			continue
		}
		n := float64(r.tasks)
		fmt.Fprintf(&md, "| %s | %.2f | %.2f | %s | %s |\n", readmeGrouping(r.g), float64(r.calls)/n, float64(r.leaves)/float64(r.calls),
			thousands(int(math.Round(float64(r.prompt+r.completion)/n))), thousands(int(math.Round(float64(r.wasted)/n))))
	}
	if len(models) == 16 {
		goldenFile(t, groupingGolden, md.String())
	} else {
		t.Logf("%d models replayed: %s not compared", len(models), groupingGolden)
	}
	t.Logf("  (tokens: prompts the LLM judge would send, measured with llm.EstimateTokens; %d completion tokens assumed per verdict;"+
		" wasted: the tokens of verdicts that cannot count)", completionPerVerdict)
	out := filepath.Join("testdata", "out", "grouping.tsv")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareScores reports the task trees whose scores (value, bounds,
// invalid count) differ between two runs of the same items.
func compareScores(t *testing.T, mode rubric.Mode, model, what string, a, b *Outcome) int {
	t.Helper()
	byKey := map[datasets.Key]*ItemResult{}
	for _, it := range b.Items {
		byKey[it.Task.Key] = it
	}
	var keys []datasets.Key
	for _, it := range a.Items {
		keys = append(keys, it.Task.Key)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	n := 0
	ai := map[datasets.Key]*ItemResult{}
	for _, it := range a.Items {
		ai[it.Task.Key] = it
	}
	for _, k := range keys {
		x, y := ai[k], byKey[k]
		for _, tr := range []struct {
			root   *rubric.Node
			dx, dy rubric.Decisions
		}{{x.Task.SQLRubric.Root, x.SQL, y.SQL}, {x.Task.ResultsRubric.Root, x.Results, y.Results}} {
			sx, sy := rubric.Evaluate(tr.root, tr.dx, mode), rubric.Evaluate(tr.root, tr.dy, mode)
			if !sameScore(sx, sy) {
				n++
				t.Errorf("%s %s %s %s: %v [%v,%v] inv %d leaf by leaf, %v [%v,%v] inv %d grouped", mode, model, what, k,
					sx.Value, sx.Lo, sx.Hi, sx.Invalid, sy.Value, sy.Lo, sy.Hi, sy.Invalid)
			}
		}
	}
	return n
}

// groupingGolden holds the README's grouping table (reference mode, 16
// models), written by TestReplayGrouping.
var groupingGolden = filepath.Join("testdata", "grouping.md")

// readmeGrouping spells a grouping as the README's table does.
func readmeGrouping(g groupOpt) string {
	s := "`" + string(g.mode)
	if g.gated {
		s += " --group-gated"
	}
	s += "`"
	if g.mode == DefaultGroup && !g.gated {
		s += " (default)"
	}
	return s
}

// thousands writes n with comma separators: 10766 -> 10,766.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
