package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

const judgeUsage = `usage: clinsql judge --tasks DIR --run DIR [--out DIR] (--judge replay:FILE | --judge-config FILE) [--mode strict|reference]

Judges a model's run (the reference inference layout: per task
execution_summary.json and result_<id>.csv) against the task rubrics.

Results-rubric leaves that code can decide (the result exists, a column
exists, no NULLs, a value lies in its band) are decided by code, with the
evidence as the explanation; the rest go to the judge backend:
  --judge-config FILE   an LLM endpoint and judge settings (YAML)
  --judge replay:FILE   recorded decisions (a reference detailed_grading.json)
Leaves whose verdict cannot change the score are skipped.

--group sets how many leaves one judge call decides:
  leaf       one call per leaf
  category   one call for the leaves of a top-level rubric category that
             are ready at the same moment
  tree       one call for the leaves of a rubric tree that are ready at
             the same moment (the default)
A leaf is ready when no undecided gate (a critical sibling, an earlier
sequential sibling) could still make it skippable. The prompt gives the
question, SQL, execution and result preview once, then each leaf with its
id; the reply must give exactly one verdict per id, else it is retried and
then every leaf of the call is invalid. --group-gated also puts in a call
the leaves waiting on a gate in the same call: fewer calls, but verdicts
behind a gate that fails are paid for and not counted. On the 16 released
validation runs (code checks, skipping, reference mode) the judge makes
per task 9.52 calls leaf by leaf, 8.67 by category, 3.73 by tree, 1.56 by
tree with --group-gated. Scores are the same whatever the grouping. With
--judge replay:FILE the grouping is simulated: each group counts as one
call. The config file may set group: and group_gated: too; its endpoint's
max_tokens is per leaf (a call of n leaves may use n times it). With
--samples K each leaf of a group keeps its own majority vote over K draws
of the group prompt.

--out (default <run>/judge) receives ledger.jsonl (one line per leaf,
appended as soon as it is decided), detailed_grading.json and the three
scoring summaries in the reference shapes, and judge_summary.json. Running
again into the same --out resumes: decided leaves are not judged again, and
a finished run makes no call. An exit code of 3 means the run stopped
before every leaf was decided (budget, interrupt, --batch-wait); what was
done is kept.

An endpoint with mode: batch sends the judge's requests through the
provider's batch API (OpenAI, Azure OpenAI) at half the price: every group
that is ready goes into one batch, the next level of gated leaves into the
next. Batches are recorded in --out (batches-<endpoint>.jsonl); --batch-wait
bounds the wait, and running again collects them.
The budget caps what --out spends over every run (spending.jsonl there).

--mode strict (the default, as for rescore, report and run) honours
critical flags everywhere and keeps invalid verdicts (judge errors,
unreadable replies) apart from failures; --mode reference aggregates as the
published scorer, and with --judge replay:FILE leaves out of the averages
the tasks the recorded grading lacks, as the published scorer did (with
--code-checks=false it then prints the published averages).
`

// exitIncomplete is the exit code of a run that stopped early.
const exitIncomplete = 3

func runJudge(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "judge")
	fs.Usage = func() { fmt.Fprint(env.Stderr, judgeUsage); printFlags(fs) }
	tasksDir := fs.String("tasks", "", "ClinSQL task `folder` or manifest")
	runDir := fs.String("run", "", "the model's run `folder`")
	out := fs.String("out", "", "output `folder` (default <run>/judge)")
	judgeSpec := fs.String("judge", "", "judge backend: replay:`FILE` (recorded detailed_grading.json)")
	configFile := fs.String("judge-config", "", "judge config `file` (LLM endpoint, samples, prices, budget)")
	modeName := fs.String("mode", string(rubric.Strict), "scoring `mode`: strict or reference")
	guided := fs.Bool("reference-guided", false, "show the judge the gold SQL and result (labelled in every output)")
	samples := fs.Int("samples", 0, "k-sample majority vote per leaf, odd (overrides the config)")
	codeChecks := fs.Bool("code-checks", true, "let code decide the results leaves it can")
	skip := fs.Bool("skip", true, "skip leaves that cannot change the score")
	groupName := fs.String("group", string(judge.DefaultGroup), "`grouping` of leaves into judge calls: leaf, category or tree")
	groupGated := fs.Bool("group-gated", false, "also group the leaves waiting on a gate in the same call")
	budget := fs.Float64("budget", -1, "cap in `USD` on what --out will ever spend, over every run (overrides the config)")
	prices := fs.String("prices", "", "price table `file` (overrides the config)")
	cacheDir := fs.String("cache", "", "LLM cache `folder` (default <out>/llm-cache; \"off\" for none)")
	concurrency := fs.Int("concurrency", 0, "tasks judged at once (default 1.25 x the endpoint's concurrency)")
	retryInvalid := fs.Bool("retry-invalid", false, "judge again the leaves recorded as invalid")
	allowPartial := fs.Bool("allow-partial", false, "judge a run with missing or pending tasks: only its answered tasks, the output marked partial")
	otherModel := fs.Bool("replay-other-model", false, "replay recorded decisions made about another model's answers (on purpose)")
	estimateOnly := fs.Bool("estimate", false, "print the estimate and stop")
	verbose := fs.Bool("verbose", false, "log retries and calls")
	batchWait := addBatchWait(fs)
	sel := addTaskFilter(fs, true)
	alias(fs, "v", "verbose")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tasksDir == "" || *runDir == "" {
		return usagef("--tasks and --run are required")
	}
	batches := newBatchReporter(env.Stderr, "judge:")
	if (*judgeSpec == "") == (*configFile == "") {
		return usagef("give exactly one of --judge replay:FILE and --judge-config FILE")
	}
	mode, err := rubric.ParseMode(*modeName)
	if err != nil {
		return usageError{err.Error()}
	}
	if *out == "" {
		*out = filepath.Join(*runDir, runfolder.JudgeDir)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	group, err := judge.ParseGroupMode(*groupName)
	if err != nil {
		return usageError{err.Error()}
	}

	tasks, err := loadTasks(env, *tasksDir)
	if err != nil {
		return err
	}
	if tasks, err = sel.apply(tasks); err != nil {
		return err
	}
	subset := subsetNote(env, sel, *tasksDir, len(tasks))
	// The run is read under a shared lock (no generate may write it
	// meanwhile), the output written under an exclusive one (one judge at
	// a time per output folder).
	if runLock, err := runfolder.LockShared(*runDir); err != nil {
		return err
	} else {
		defer runLock.Release()
	}
	outLock, err := runfolder.LockExclusive(*out)
	if err != nil {
		return err
	}
	defer outLock.Release()
	run, err := runfolder.Load(*runDir)
	if err != nil {
		if run == nil || len(run.Outputs) == 0 {
			return err
		}
		// An unreadable answer is judged as no answer; say which.
		fmt.Fprintf(env.Stderr, "warning: some outputs cannot be read and are judged as empty answers:\n%v\n", err)
	}
	outputs := run.Outputs
	if subset != "" {
		outputs = outputsOf(outputs, tasks) // the run's other tasks are not judged
	}
	model := run.Model()
	var missing []string
	if m := run.Missing(tasks); len(m) > 0 {
		for _, k := range m {
			missing = append(missing, k.String())
		}
		if !*allowPartial {
			return &ExitError{Code: 1, Err: fmt.Errorf("run %s (model %q) is partial: %d of %d tasks have no final answer (first: %s); "+
				"finish it (run the same clinsql generate again), or pass --allow-partial to judge the %d answered tasks with the output marked partial",
				*runDir, model, len(m), len(m)+len(outputs), m[0], len(outputs))}
		}
		fmt.Fprintf(env.Stderr, "note: judging a partial run: %d tasks have no answer; the output is marked partial\n", len(m))
	}
	items, err := judge.Pair(tasks, outputs, *runDir)
	if err != nil {
		return err
	}

	opts := judge.Options{Mode: mode, CodeChecks: *codeChecks, Skipping: *skip, ReferenceGuided: *guided, RetryInvalid: *retryInvalid,
		Group: group, GroupGated: *groupGated}
	var llmJudge *judge.LLMJudge
	var meter *llm.Meter
	var maxTokens int
	switch {
	case *judgeSpec != "":
		file, ok := strings.CutPrefix(*judgeSpec, "replay:")
		if !ok || file == "" {
			return usagef("--judge %q: want replay:FILE", *judgeSpec)
		}
		if *samples > 1 || *guided {
			return usagef("--samples and --reference-guided need an LLM judge (--judge-config)")
		}
		rp, err := judge.NewReplay(file)
		if err != nil {
			return err
		}
		recorded := ""
		if run.Manifest != nil {
			recorded = run.Manifest.RecordedModel
		}
		if rm := rp.Model(); !judge.SameModel(rm, model) && (recorded == "" || !judge.SameModel(rm, recorded)) {
			if !*otherModel {
				return fmt.Errorf("--judge %s: the recorded decisions are about model %q, but --run %s holds model %q: "+
					"replaying them would score one model's answers with another's verdicts; pass --replay-other-model to do it on purpose", *judgeSpec, rm, *runDir, model)
			}
			fmt.Fprintf(env.Stderr, "warning: replaying decisions about model %q for run %q (--replay-other-model)\n", rm, model)
		}
		if recorded != "" {
			same := sameResults(run.Outputs)
			engine := run.Manifest.Engine.Name
			rp.ReExecuted(same, engine)
			fmt.Fprintf(env.Stderr, "note: %s re-executed %s's SQL on %s: recorded SQL decisions are replayed, but recorded results decisions only for the %d of %d answers whose result is byte for byte the recorded one; "+
				"results leaves code cannot decide on the others are invalid (judge them with --judge-config)\n", *runDir, recorded, engine, len(same), len(run.Outputs))
		}
		opts.Backend = rp
	default:
		cfg, err := judge.LoadConfig(*configFile)
		if err != nil {
			return err
		}
		if *samples != 0 {
			cfg.Samples = *samples
		}
		if cfg.Group != "" && !set["group"] {
			opts.Group = cfg.Group
		}
		if cfg.GroupGated && !set["group-gated"] {
			opts.GroupGated = true
		}
		if *guided {
			cfg.ReferenceGuided = true
		}
		opts.ReferenceGuided = cfg.ReferenceGuided
		if *budget >= 0 {
			cfg.BudgetUSD = *budget
		}
		if *cacheDir != "" {
			cfg.Cache = *cacheDir
		}
		var logger *slog.Logger
		if *verbose {
			logger = slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
		var client *llm.Client
		if llmJudge, meter, client, err = openLLMJudge(env, cfg, *out, *prices, logger, batches.options(*batchWait)); err != nil {
			return err
		}
		defer meter.Close()
		defer client.Close()
		opts.Backend = llmJudge
		maxTokens = client.Endpoint().Sampling.MaxTokens
	}
	opts.Tasks = *concurrency
	if opts.GroupGated && opts.Group == judge.GroupLeaf {
		return usagef("--group-gated needs --group category or tree")
	}

	runID, err := run.Identity()
	if err != nil {
		// Refused result files (links, FIFOs, devices, oversized) are
		// judged as unreadable results; say which.
		fmt.Fprintf(env.Stderr, "warning: some results cannot be read and are judged as having none:\n%v\n", err)
	}
	binding := judge.Binding{Run: &runID, TasksSHA256: runfolder.TaskFingerprint(pairedTasks(items)),
		Backend: judge.BackendIdentity(opts.Backend), Missing: missing, Subset: subset}
	header := judgefmt.LedgerHeader{Mode: mode, Judge: opts.Backend.Name(), ReferenceGuided: opts.ReferenceGuided,
		CodeChecks: opts.CodeChecks, Skipping: opts.Skipping, Samples: 1, Group: string(opts.Group), GroupGated: opts.GroupGated,
		Run: binding.Run, TasksSHA256: binding.TasksSHA256, Backend: binding.Backend, Partial: len(missing) > 0}
	if llmJudge != nil {
		header.Samples = llmJudge.Samples()
	}
	led, err := judgefmt.OpenLedger(filepath.Join(*out, judgefmt.LedgerFile), header)
	if err != nil {
		return err
	}
	defer led.Close()
	if led.Recovered {
		fmt.Fprintf(env.Stderr, "note: %s ended in a torn line (a killed run); it was dropped and that leaf is judged again\n", led.Path())
	}

	var prompter judge.Prompter
	samplesN := 1
	if llmJudge != nil {
		prompter, samplesN = llmJudge, llmJudge.Samples()
	}
	est := judge.EstimateRun(items, led, opts, prompter, samplesN, maxTokens)
	printEstimate(env.Stderr, model, len(items), led.Len(), est, opts, meter, llmJudge)
	if *estimateOnly {
		return nil
	}

	bar := newBar(env, "judge: leaves", est.Leaves, false)
	// A call records every leaf of its group at once, and Progress gives
	// the count so far (from several workers): the line advances by
	// every leaf recorded, not by one per call.
	var barMu sync.Mutex
	shown := 0
	batches.setBar(bar)
	opts.Progress = func(recorded int) {
		barMu.Lock()
		defer barMu.Unlock()
		for ; shown < recorded; shown++ {
			bar.Step("recorded", 0, 0, false)
		}
	}
	o, err := judge.Run(ctx, items, led, opts)
	bar.Finish()
	if err != nil {
		return err
	}
	sc := judge.Score(o, model)
	sc.Bind(binding)
	if err := sc.WriteFiles(*out, o); err != nil {
		return err
	}
	printJudgeSummary(env.Stdout, sc, *out)
	if o.Stopped != nil {
		return &ExitError{Code: exitIncomplete, Err: fmt.Errorf("stopped before every leaf was decided: %v; run the same command again to resume", o.Stopped)}
	}
	return nil
}

func printEstimate(w io.Writer, model string, tasks, resumed int, e judge.Estimate, opts judge.Options, meter *llm.Meter, j *judge.LLMJudge) {
	fmt.Fprintf(w, "judging %s: %d tasks, mode %s, judge %s, grouping %s", model, tasks, opts.Mode, opts.Backend.Name(), groupName(opts.Group, opts.GroupGated))
	if opts.ReferenceGuided {
		fmt.Fprint(w, ", REFERENCE-GUIDED (gold shown to the judge)")
	}
	fmt.Fprintln(w)
	if resumed > 0 {
		fmt.Fprintf(w, "resuming: %d leaves already decided\n", resumed)
	}
	fmt.Fprintf(w, "estimate: %d leaves to decide, %d by code, at most %d by the judge in %d calls", e.Leaves, e.CodeLeaves, e.BackendLeaves, e.Calls)
	if opts.Skipping {
		fmt.Fprint(w, " (gate skipping usually saves about a third)")
	}
	fmt.Fprintln(w)
	if j == nil {
		return
	}
	fmt.Fprintf(w, "estimate: at most %d calls, ~%d prompt and at most %d completion tokens", e.Calls, e.PromptTokens, e.CompletionTokens)
	if meter != nil {
		if usd, err := meter.Prices().Estimate(endpointModel(j), 1, e.PromptTokens, e.CompletionTokens); err == nil {
			fmt.Fprintf(w, ", at most %s before cache hits", batchPrice(meter.Prices(), endpointModel(j), usd))
		} else if len(meter.Prices()) > 0 {
			fmt.Fprintf(w, " (no price for %s)", endpointModel(j))
		}
		if b := meter.Budget(); b > 0 {
			fmt.Fprintf(w, "; budget $%.2f", b)
		}
	}
	fmt.Fprintln(w)
}

// groupName is "tree" or "tree+gated".
func groupName(g judge.GroupMode, gated bool) string {
	if gated {
		return string(g) + "+gated"
	}
	return string(g)
}

func endpointModel(j *judge.LLMJudge) string {
	name := strings.TrimPrefix(j.Name(), "llm:")
	_, rest, _ := strings.Cut(name, "/")
	m, _, _ := strings.Cut(rest, "@")
	return m
}

func printJudgeSummary(w io.Writer, sc *judge.Scored, out string) {
	s := sc.Summary
	fmt.Fprintf(w, "%s  mode %s  judge %s", s.Model, s.Mode, s.Judge)
	if s.ReferenceGuided {
		fmt.Fprint(w, "  REFERENCE-GUIDED")
	}
	if s.Completeness != "complete" {
		fmt.Fprintf(w, "  %s", strings.ToUpper(s.Completeness))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "leaves\ttotal\tcode\tllm\treplay\tskipped\tinvalid\tundecided\t\n")
	for _, name := range []judgefmt.Tree{judgefmt.TreeSQL, judgefmt.TreeResults} {
		c := s.ByTree[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, c.Total, c.Code, c.LLM, c.Replay, c.Skipped, c.Invalid, c.Undecided)
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.LeavesTotal, s.LeavesCode, s.LeavesLLM, s.LeavesReplay, s.LeavesSkipped, s.LeavesInvalid, s.LeavesUndecided)
	tw.Flush()
	fmt.Fprintf(w, "judge calls %d (%.2f per task, grouping %s) for %d leaves", s.BackendCalls, s.BackendCallsPerTask, groupName(judge.GroupMode(s.Group), s.GroupGated), s.LeavesLLM+s.LeavesReplay)
	if s.BackendLeavesUncounted > 0 {
		fmt.Fprintf(w, ", %d of them cannot count", s.BackendLeavesUncounted)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "llm calls %d (%.2f per task; %d cache hits), tokens %d prompt + %d completion, $%.4f; this run: %d calls, %d leaves recorded\n",
		s.LLMCalls, s.LLMCallsPerTask, s.CacheHits, s.PromptTokens, s.CompletionTokens, s.CostUSD, s.This.LLMCalls, s.This.Recorded)
	if s.FlipRate != nil {
		fmt.Fprintf(w, "k=%d vote: flip rate %.3f\n", s.Samples, *s.FlipRate)
	}
	for _, split := range sortedSplits(s.Splits) {
		v := s.Splits[split]
		fmt.Fprintf(w, "%s: %d tasks, SQL %s (%.6f), execution %s (%.6f), %s mode", split, v.Tasks, pct(v.AverageSQLScore), v.AverageSQLScore,
			pct(v.AverageResultsScore), v.AverageResultsScore, s.Mode)
		if s.Completeness != "complete" {
			fmt.Fprintf(w, " (%s: not a score of the whole run)", s.Completeness)
		}
		if v.TasksWithInvalid > 0 {
			fmt.Fprintf(w, ", %d tasks with invalid leaves", v.TasksWithInvalid)
		}
		fmt.Fprintln(w)
	}
	if n := len(s.Excluded); n > 0 {
		fmt.Fprintf(w, "left out of the scores in reference mode, as the published scorer did: %d task(s) the recorded grading lacks (%s); strict mode keeps them\n",
			n, strings.Join(s.Excluded, ", "))
	}
	fmt.Fprintf(w, "wrote %s, %s, %s, %s, %s and %s to %s\n", judgefmt.LedgerFile, judgefmt.GradingFile, scoring.ScoringFile,
		scoring.DifficultyFile, scoring.ScenarioFile, judgefmt.SummaryFile, out)
}

func sortedSplits(m map[string]judgefmt.SplitScores) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pairedTasks are the tasks of the items judged.
func pairedTasks(items []judge.Item) []*datasets.Task {
	out := make([]*datasets.Task, len(items))
	for i, it := range items {
		out[i] = it.Task
	}
	return out
}

// sameResults are the answers of a re-executed run whose result is the
// recorded one, byte for byte.
func sameResults(outputs []*runfolder.Output) map[datasets.Key]bool {
	same := map[datasets.Key]bool{}
	for _, o := range outputs {
		if o.SameResultAsRecorded() {
			same[o.Key] = true
		}
	}
	return same
}
