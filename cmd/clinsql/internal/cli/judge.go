package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/clinsql/clinsql/internal/progress"
	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

const judgeUsage = `usage: clinsql judge --tasks DIR --run DIR [--out DIR] (--judge replay:FILE | --judge PROVIDER/NAME | --judge-config FILE) [--mode strict|reference]

Judges a model's run (the reference inference layout: per task
execution_summary.json and result_<id>.csv) against the task rubrics.

Results-rubric leaves that code can decide (the result exists, a column
exists, no NULLs, a value lies in its band) are decided by code, with the
evidence as the explanation; the rest go to the judge backend:
  --judge-config FILE   an LLM endpoint and judge settings (YAML)
  --judge replay:FILE   recorded decisions (a reference detailed_grading.json)
  --judge PROVIDER/NAME an LLM judge with default settings, no config file:
                        openai/gpt-4o (OPENAI_API_KEY, OPENAI_BASE_URL),
                        azure/DEPLOYMENT (AZURE_OPENAI_API_KEY,
                        AZURE_OPENAI_ENDPOINT, OPENAI_API_VERSION), or
                        mock/NAME, the built-in model (offline, seeded)
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

--out (default <run>/judge, where report --run finds it; no other folder
inside the run) receives
ledger.jsonl (one line per leaf, appended as soon as it is decided),
detailed_grading.json and the three scoring summaries in the reference
shapes, and judge_summary.json. Running again into the same --out resumes:
decided leaves are not judged again, and a finished run makes no call.
Decisions are resumed only from a ledger this machine wrote (authenticated
with its key, kept in $CLINSQL_CONFIG_DIR or ~/.config/clinsql/local.key):
a ledger copied from elsewhere is moved aside and every leaf judged again;
code-decided leaves are decided again by code on every run.

A run that re-executed a recorded run's SQL (clinsql exec --run; its
manifest or its task summaries say so) replayed with --judge replay:FILE
gets a recorded decision only where its answer is checked against the
recorded run (--recorded-run, default the folder its manifest names): SQL
decisions where the final SQL is the recorded text, results decisions where
the result CSV is the recorded one byte for byte. Without the recorded run
no results decision is replayed (such leaves code cannot decide are
invalid). An exit code of 3 means the run stopped
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

// judgeRequest is what clinsql judge is asked to do: from its flags, or
// from a benchmark config (clinsql run).
type judgeRequest struct {
	TasksDir string
	Filter   *taskFilter
	Run, Out string
	// Replay is a recorded grading to replay (--judge replay:FILE);
	// Config a judge configuration (--judge-config).
	Replay, Config string
	// Model is a judge named as PROVIDER/NAME (--judge openai/gpt-4o,
	// --judge mock/demo), instead of a config file.
	Model      string
	Mode       rubric.Mode
	Guided     bool
	Samples    int
	CodeChecks bool
	Skip       bool
	Group      judge.GroupMode
	GroupGated bool
	// GroupSet and GatedSet: the grouping was given on the command line,
	// over the config's.
	GroupSet, GatedSet bool
	Budget             float64 // < 0: the config's
	Prices, Cache      string
	Concurrency        int
	RetryInvalid       bool
	// RecordedRun is --recorded-run: the run a re-executed run re-ran.
	RecordedRun  string
	AllowPartial bool
	OtherModel   bool
	EstimateOnly bool
	Verbose      bool
	BatchWait    time.Duration
}

// defaultJudgeRequest is clinsql judge's defaults.
func defaultJudgeRequest() judgeRequest {
	return judgeRequest{Mode: rubric.Strict, CodeChecks: true, Skip: true, Group: judge.DefaultGroup, Budget: -1}
}

func runJudge(ctx context.Context, env *Env, args []string) error {
	req, err := parseJudgeFlags(env, args)
	if err != nil {
		return err
	}
	return judgeRun(ctx, env, req)
}

func parseJudgeFlags(env *Env, args []string) (judgeRequest, error) {
	r := defaultJudgeRequest()
	fs := newFlagSet(env, "judge")
	fs.Usage = func() { fmt.Fprint(env.Stderr, judgeUsage); printFlags(fs) }
	fs.StringVar(&r.TasksDir, "tasks", "", "ClinSQL task `folder` or manifest")
	fs.StringVar(&r.Run, "run", "", "the model's run `folder`")
	fs.StringVar(&r.Out, "out", "", "output `folder` (default <run>/judge)")
	fs.StringVar(&r.RecordedRun, "recorded-run", "", "for a re-executed run (clinsql exec --run): the recorded run `folder` whose SQL it re-ran (default: the one its manifest names)")
	judgeSpec := fs.String("judge", "", "judge backend: replay:`FILE` (recorded detailed_grading.json), or PROVIDER/NAME (openai/gpt-4o, azure/DEPLOYMENT, mock/NAME)")
	fs.StringVar(&r.Config, "judge-config", "", "judge config `file` (LLM endpoint, samples, prices, budget)")
	modeName := fs.String("mode", string(rubric.Strict), "scoring `mode`: strict or reference")
	fs.BoolVar(&r.Guided, "reference-guided", false, "show the judge the gold SQL and result (labelled in every output)")
	fs.IntVar(&r.Samples, "samples", 0, "k-sample majority vote per leaf, odd (overrides the config)")
	fs.BoolVar(&r.CodeChecks, "code-checks", true, "let code decide the results leaves it can")
	fs.BoolVar(&r.Skip, "skip", true, "skip leaves that cannot change the score")
	groupName := fs.String("group", string(judge.DefaultGroup), "`grouping` of leaves into judge calls: leaf, category or tree")
	fs.BoolVar(&r.GroupGated, "group-gated", false, "also group the leaves waiting on a gate in the same call")
	fs.Float64Var(&r.Budget, "budget", -1, "cap in `USD` on what --out will ever spend, over every run (overrides the config)")
	fs.StringVar(&r.Prices, "prices", "", "price table `file` (overrides the config)")
	fs.StringVar(&r.Cache, "cache", "", "LLM cache `folder` (default <out>/llm-cache; \"off\" for none)")
	fs.IntVar(&r.Concurrency, "concurrency", 0, "tasks judged at once (default 1.25 x the endpoint's concurrency)")
	fs.BoolVar(&r.RetryInvalid, "retry-invalid", false, "judge again the leaves recorded as invalid")
	fs.BoolVar(&r.AllowPartial, "allow-partial", false, "judge a run with missing or pending tasks: only its answered tasks, the output marked partial")
	fs.BoolVar(&r.OtherModel, "replay-other-model", false, "replay recorded decisions made about another model's answers (on purpose)")
	fs.BoolVar(&r.EstimateOnly, "estimate", false, "print the estimate and stop")
	fs.BoolVar(&r.Verbose, "verbose", false, "log retries and calls")
	batchWait := addBatchWait(fs)
	r.Filter = addTaskFilter(fs)
	alias(fs, "v", "verbose")
	if err := parseFlags(fs, args); err != nil {
		return r, err
	}
	r.BatchWait = *batchWait
	if r.TasksDir == "" || r.Run == "" {
		return r, usagef("--tasks and --run are required")
	}
	if (*judgeSpec == "") == (r.Config == "") {
		return r, usagef("give exactly one of --judge replay:FILE, --judge PROVIDER/NAME and --judge-config FILE (try --judge mock/demo: the built-in model, no API key)")
	}
	var err error
	if r.Mode, err = rubric.ParseMode(*modeName); err != nil {
		return r, usageError{err.Error()}
	}
	set := explicitFlags(fs)
	r.GroupSet, r.GatedSet = set["group"], set["group-gated"]
	if r.Group, err = judge.ParseGroupMode(*groupName); err != nil {
		return r, usageError{err.Error()}
	}
	if *judgeSpec != "" {
		file, ok := strings.CutPrefix(*judgeSpec, "replay:")
		if !ok {
			if _, err := llm.ParseModelSpec(*judgeSpec); err != nil {
				return r, usagef("--judge %q: want replay:FILE (recorded decisions) or PROVIDER/NAME: %v", *judgeSpec, err)
			}
			r.Model = *judgeSpec
			return r, nil
		}
		if file == "" {
			return r, usagef("--judge %q: want replay:FILE or PROVIDER/NAME", *judgeSpec)
		}
		if r.Samples > 1 || r.Guided {
			return r, usagef("--samples and --reference-guided need an LLM judge (--judge-config)")
		}
		r.Replay = file
	}
	return r, nil
}

// judgeRun runs a judge request: the job below the command line
// (judge.RunJob), with the backend it names, a progress line and the
// printed summary.
func judgeRun(ctx context.Context, env *Env, r judgeRequest) error {
	tasks, err := loadTasks(env, r.TasksDir)
	if err != nil {
		return err
	}
	// The run's recorded subset is the default; the flags narrow it.
	recorded, label, err := runfolder.RunSubset(r.Run)
	if err != nil {
		return err
	}
	tasks, subset, err := r.Filter.selectTasks(env, tasks, r.TasksDir, recorded, label, "--run "+r.Run)
	if err != nil {
		return err
	}
	warnTasks(env, tasks)
	key, err := loadLocalKey()
	if err != nil {
		return err
	}
	j := &judgeBackend{env: env, req: r, batches: newBatchReporter(env.Stderr, "judge:")}
	defer j.close()
	if r.Model != "" {
		if j.endpoint, err = specEndpoint(env, r.Model); err != nil {
			return err
		}
		stopMock, err := startMock(tasks, &j.endpoint)
		if err != nil {
			return err
		}
		defer stopMock()
	}
	var bar *progress.Bar
	var barMu sync.Mutex
	shown := 0
	job := judge.Job{Tasks: tasks, Subset: subset, Run: r.Run, Out: r.Out,
		RecordedRun: r.RecordedRun, Key: key,
		Options: judge.Options{Mode: r.Mode, CodeChecks: r.CodeChecks, Skipping: r.Skip, ReferenceGuided: r.Guided, RetryInvalid: r.RetryInvalid,
			Group: r.Group, GroupGated: r.GroupGated, Tasks: r.Concurrency,
			// A call records every leaf of its group at once, and Progress
			// gives the count so far (from several workers): the line
			// advances by every leaf recorded, not by one per call.
			Progress: func(recorded int) {
				barMu.Lock()
				defer barMu.Unlock()
				for ; shown < recorded; shown++ {
					bar.Step("recorded", 0, 0, false)
				}
			}},
		NewBackend: j.open, AllowPartial: r.AllowPartial, ReplayOtherModel: r.OtherModel,
		Note: func(format string, a ...any) { fmt.Fprintf(env.Stderr, format+"\n", a...) },
		Estimated: func(e judge.JobEstimate) error {
			job := e.Options
			printEstimate(env.Stderr, e.Model, e.Tasks, e.Resumed, e.Estimate, job, j.meter, j.llm)
			if r.EstimateOnly {
				return judge.ErrEstimateOnly
			}
			bar = newBar(env, "judge: leaves", e.Leaves, false)
			j.batches.setBar(bar)
			return nil
		}}
	res, err := judge.RunJob(ctx, job)
	if bar != nil {
		bar.Finish()
	}
	if err != nil || res == nil {
		return err
	}
	printJudgeSummary(env.Stdout, res.Scored, res.Out)
	if o := res.Outcome; o.Stopped != nil {
		var ce *judge.ConfigError
		if errors.As(o.Stopped, &ce) {
			// Running again as it is would be refused again: a failure,
			// not a pause. The output is marked interrupted, so no report
			// ranks it.
			return fmt.Errorf("stopped before every leaf was decided (the output in %s is marked interrupted): %v", res.Out, o.Stopped)
		}
		return &ExitError{Code: exitIncomplete, Err: fmt.Errorf("stopped before every leaf was decided: %v; run the same command again to resume", o.Stopped)}
	}
	return nil
}

// judgeBackend opens the backend a judge request names, once the job has
// locked its folders, and closes what it opened.
type judgeBackend struct {
	env     *Env
	req     judgeRequest
	out     string // the output folder, once the job chose it
	batches *batchReporter
	llm     *judge.LLMJudge
	meter   *llm.Meter
	client  *llm.Client
	// endpoint is the judge --judge PROVIDER/NAME names.
	endpoint llm.Endpoint
}

func (j *judgeBackend) open(_ *runfolder.Run, out string, opts *judge.Options) error {
	r := j.req
	j.out = out
	if r.Out == "" {
		fmt.Fprintf(j.env.Stderr, "output: %s (the default for this run's answers; --out to choose)\n", out)
	}
	if r.Replay != "" {
		rp, err := judge.NewReplay(r.Replay)
		if err != nil {
			return err
		}
		opts.Backend = rp
	} else if err := j.openLLM(opts); err != nil {
		return err
	}
	if opts.GroupGated && opts.Group == judge.GroupLeaf {
		return usagef("--group-gated needs --group category or tree")
	}
	return nil
}

// openLLM opens the LLM judge of the request's configuration, which may
// set the grouping and the reference-guided mode where the flags do not.
func (j *judgeBackend) openLLM(opts *judge.Options) error {
	r := j.req
	cfg := &judge.Config{Endpoint: j.endpoint, Samples: 1}
	var err error
	if r.Model == "" {
		if cfg, err = judge.LoadConfig(r.Config); err != nil {
			return err
		}
	}
	if r.Samples != 0 {
		cfg.Samples = r.Samples
	}
	if cfg.Group != "" && !r.GroupSet {
		opts.Group = cfg.Group
	}
	if cfg.GroupGated && !r.GatedSet {
		opts.GroupGated = true
	}
	if r.Guided {
		cfg.ReferenceGuided = true
	}
	opts.ReferenceGuided = cfg.ReferenceGuided
	if r.Budget >= 0 {
		cfg.BudgetUSD = r.Budget
	}
	if r.Cache != "" {
		cfg.Cache = r.Cache
	}
	var logger *slog.Logger
	if r.Verbose {
		logger = slog.New(slog.NewTextHandler(j.env.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if j.llm, j.meter, j.client, err = openLLMJudge(j.env, cfg, j.out, r.Prices, logger, j.batches.options(r.BatchWait)); err != nil {
		return err
	}
	opts.Backend = j.llm
	return nil
}

func (j *judgeBackend) close() {
	if j.client != nil {
		noteRejected(j.env.Stderr, j.client.Cache())
		j.client.Close()
	}
	if j.meter != nil {
		j.meter.Close()
	}
}

func printEstimate(w io.Writer, model string, tasks, resumed int, e judge.Estimate, opts judge.Options, meter *llm.Meter, j *judge.LLMJudge) {
	judge.JobEstimate{Model: model, Tasks: tasks, Resumed: resumed, Estimate: e, Options: opts}.WriteText(w, meter, j)
}

func printJudgeSummary(w io.Writer, sc *judge.Scored, out string) { sc.Summary.WriteText(w, out) }
