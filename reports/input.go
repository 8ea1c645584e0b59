package reports

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// Tree names one of a task's two rubric trees.
type Tree string

const (
	TreeSQL     Tree = "sql"
	TreeResults Tree = "results"
)

// LeafKey names a leaf within a task.
type LeafKey struct {
	Tree Tree
	ID   string
}

// Who decided a leaf.
const (
	// SourceRecorded: the reference's LLM judge, as recorded in a
	// detailed_grading.json given with --grading.
	SourceRecorded = "recorded"
	// SourceJudge: clinsql judge, when its ledger does not say how.
	SourceJudge = "judge"
	SourceCode  = "code"
	SourceLLM   = "llm"
	// SourceReplay: clinsql judge replaying recorded decisions.
	SourceReplay = "replay"
)

// Decision is what a judge recorded about one leaf.
type Decision struct {
	Source      string
	Explanation string
	// Kind is the recorded reply's kind (scoring.KindDecided,
	// KindJudgeError, KindUnparsed, KindNonBinary).
	Kind string
	// Score is the recorded score; Status the strict verdict read from it.
	Score  float64
	Status rubric.Status
	// ErrorKind says why a verdict is invalid, as the judge's ledger
	// classifies it (rate_limited, malformed_reply, not_recorded, ...).
	ErrorKind string
	// Calls, tokens and cost behind the decision, from the judge's ledger.
	Calls                          int
	PromptTokens, CompletionTokens int
	CostUSD                        float64
	LatencyMS                      int64
	// Judge names the backend that decided ("llm:<endpoint>/<model>",
	// "replay:<file>", "code"); Group the grouped call it was decided in
	// ("" alone); both from the judge's ledger.
	Judge, Group string
}

// Paths inside a run folder. clinsql judge writes into judge/ the ledger,
// judge_summary.json and, per split, detailed_grading.json (in judge/ for
// a one-split run, else in judge/<split>/).
const (
	GradingFile      = judgefmt.GradingFile
	JudgeSummaryFile = judgefmt.SummaryFile
	LedgerFile       = judgefmt.LedgerFile
)

// JudgeSummary is a run's judge/judge_summary.json, as clinsql judge
// writes it.
type JudgeSummary = judgefmt.Summary

// Model is one model's scored results with everything the report shows
// about them.
type Model struct {
	// Name is the model name from the grading's summary, made unique among
	// the report's models.
	Name string
	// Gradings are the detailed_grading.json files the decisions came
	// from (one per split); Run the run folder, "" when none was given.
	Gradings []string
	Run      string
	// Ref and Strict are the decisions scored in each mode.
	Ref, Strict *scoring.Rescored
	// Outputs are the run's per-task answers (empty without a run).
	Outputs map[datasets.Key]*runfolder.Output
	// Bench is the run's benchmark_summary.json, nil when absent.
	Bench *runfolder.BenchmarkSummary
	// Judge is the run's judge/judge_summary.json, nil when absent.
	Judge *JudgeSummary
	// Decisions holds every recorded leaf decision by task.
	Decisions map[datasets.Key]map[LeafKey]*Decision
	// Exchanges are a model judge's calls per task (prompt and replies,
	// from judge/transcript.jsonl), in tree and leaf order; none for
	// recorded decisions, code and replay.
	Exchanges map[datasets.Key][]*judgefmt.Exchange
	// Warnings did not stop the report.
	Warnings []error
	// Completeness is "complete", or "partial" or "interrupted" when the
	// judge output says so (see judgefmt.Summary.Completeness).
	Completeness string
	// Manifest is the run folder's manifest, nil without one (released
	// runs); Engine what the run says of the engine its answers ran on
	// (the manifest's, else its task summaries'; nil for a released run);
	// Database what the report says about the data it ran on.
	Manifest *runfolder.Manifest
	Engine   *runfolder.Engine
	Database *DatabaseNote

	// fromJudge: the decisions come from clinsql judge (a run's judge/).
	fromJudge bool

	ref, strict map[datasets.Key]*scoring.TaskScore
}

// TaskScore returns the model's scores for a task in a mode, nil when the
// mode does not score the task (reference mode skips tasks the grading
// lacks).
func (m *Model) TaskScore(mode rubric.Mode, k datasets.Key) *scoring.TaskScore {
	if mode == rubric.Strict {
		return m.strict[k]
	}
	return m.ref[k]
}

// Rescored returns the model's scores in a mode.
func (m *Model) Rescored(mode rubric.Mode) *scoring.Rescored {
	if mode == rubric.Strict {
		return m.Strict
	}
	return m.Ref
}

// source is one model's inputs before scoring: one grading file per split
// (the reference writes one per split), a run folder, the judge's summary.
type source struct {
	gradings []*scoring.Grading
	origin   string // SourceRecorded or SourceJudge
	run      string
	outputs  []*runfolder.Output
	manifest *runfolder.Manifest
	// engine is what the run says of the engine its answers ran on (its
	// manifest's, else its task summaries'); reexec is set when the run
	// re-executed a recorded run's SQL (its manifest or its summaries say
	// so).
	engine *runfolder.Engine
	reexec *runfolder.ReExecution
	// identity is the run's as read now (nil without a run); idErr says
	// why some of its files could not be read.
	identity *runfolder.Identity
	idErr    error
	bench    *runfolder.BenchmarkSummary
	judge    *JudgeSummary
	// judgeDir is the folder the judge output was read from ("" for a
	// recorded grading).
	judgeDir string
	// ledger holds the last ledger record of every leaf, nil without one.
	ledger map[judgefmt.LeafKey]*judgefmt.Record
	// exchanges are the judge's transcript, nil without one.
	exchanges map[judgefmt.ExchangeKey]*judgefmt.Exchange
	warns     []error
}

// loadSources reads every input. A judge output (judged) is paired with
// the run it judged: a --run with the same identity, else the folder its
// summary names, checked the same way. Runs whose judge/ folder holds no
// decisions are paired with the grading file of the same model, when that
// grading can be about the run's answers.
func loadSources(ctx context.Context, gradings, runs, judged []string, workers int) ([]*source, error) {
	gs := make([]*source, len(gradings))
	rs := make([]*source, len(runs))
	js := make([]*source, len(judged))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	var errs = make([]error, len(gradings)+len(runs)+len(judged))
	for i, path := range gradings {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			gr, err := scoring.ReadGrading(path)
			if err != nil {
				errs[i] = fmt.Errorf("--grading %s: %w", path, err)
				return nil
			}
			gs[i] = &source{gradings: []*scoring.Grading{gr}, origin: SourceRecorded}
			return nil
		})
	}
	for i, dir := range runs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			s, err := loadRun(dir, true)
			if err != nil {
				errs[len(gradings)+i] = fmt.Errorf("--run %s: %w", dir, err)
				return nil
			}
			rs[i] = s
			return nil
		})
	}
	for i, dir := range judged {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			s, err := loadJudged(dir)
			if err != nil {
				errs[len(gradings)+len(runs)+i] = fmt.Errorf("--judged %s: %w", dir, err)
				return nil
			}
			js[i] = s
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Gradings of one model for different splits make one model; a second
	// grading of a split already covered makes another entry.
	var out []*source
	byModel := map[string][]*source{}
	for _, s := range gs {
		name := s.gradings[0].Model()
		var into *source
		for _, c := range byModel[name] {
			if !overlap(c, s.gradings[0]) {
				into = c
				break
			}
		}
		if into != nil {
			into.gradings = append(into.gradings, s.gradings[0])
			continue
		}
		byModel[name] = append(byModel[name], s)
		out = append(out, s)
	}
	// Judge outputs take the run they judged: a --run of the same
	// answers, else the folder they name.
	used := map[*source]bool{}
	for _, j := range js {
		var r *source
		for _, c := range rs {
			if !used[c] && len(c.gradings) == 0 && c.identity != nil && j.judge.Run.Same(*c.identity) {
				r = c
				break
			}
		}
		if r == nil {
			var err error
			if r, err = judgedRun(j); err != nil {
				errs = append(errs, fmt.Errorf("--judged %s: %w", j.judgeDir, err))
				continue
			}
		}
		used[r] = true
		j.lend(r)
		out = append(out, j)
	}
	// Pair runs without decisions with the grading of the same model.
	for _, r := range rs {
		if used[r] {
			continue
		}
		if len(r.gradings) > 0 {
			out = append(out, r)
			continue
		}
		name := runModelName(r)
		cands := byModel[name]
		switch {
		case len(cands) == 0:
			errs = append(errs, fmt.Errorf("--run %s: no %s, and no --grading of model %q or --judged output of its answers to pair it with: judge it first (clinsql judge) and give its output with --judged, or give its detailed_grading.json",
				r.run, filepath.Join(runfolder.JudgeDir, GradingFile), name))
		case cands[0].run != "":
			errs = append(errs, fmt.Errorf("--run %s: model %q already has run %s", r.run, name, cands[0].run))
		default:
			c := cands[0]
			if err := canLend(r, c); err != nil {
				errs = append(errs, err)
				continue
			}
			c.lend(r)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// lend gives s the run folder r read: its outputs and what it says about
// itself.
func (s *source) lend(r *source) {
	s.run, s.outputs, s.manifest, s.engine, s.reexec, s.bench = r.run, r.outputs, r.manifest, r.engine, r.reexec, r.bench
	s.identity, s.idErr = r.identity, r.idErr
	s.warns = append(s.warns, r.warns...)
}

// canLend reports whether run r may lend its answers to the recorded
// grading c: the grading must be about these answers. A grading clinsql
// judge wrote records the run it judged, which must be r as it is now. A
// grading that records none (a published one, or the reference scorer's)
// judged some run of the model's answers; it is refused for a run that
// re-executed a recorded run's SQL (its manifest or its own task summaries
// say so: the released SQL run again on the demo database, say), whose
// results are not the ones the grading judged: its scores, engine and
// database would be another run's.
func canLend(r, c *source) error {
	for _, g := range c.gradings {
		if id := g.Summary.Run; id != nil {
			if r.identity == nil || !id.Same(*r.identity) {
				return fmt.Errorf("--run %s: --grading %s was made on other answers (%s) than the run holds now (%s): judge the run again, or give the run it was made on",
					r.run, g.File, id, describeIdentity(r))
			}
			continue
		}
		if x := r.reexec; x != nil {
			return fmt.Errorf("--run %s re-executed %s's SQL on %s (%s), and --grading %s records no run it judged (a published grading judged the recorded run's results, not these): "+
				"its scores are not this run's. Judge the run (clinsql judge --run %s ...) and give its output with --judged, or give the recorded run with --run",
				r.run, orUnknownModel(x.RecordedModel), x.Engine, x.Evidence, g.File, r.run)
		}
	}
	return nil
}

func orUnknownModel(s string) string {
	if s == "" {
		return "an unrecorded model"
	}
	return s
}

func describeIdentity(r *source) string {
	if r.identity == nil {
		return "unreadable"
	}
	return r.identity.String()
}

// judgedRun reads the run a judge output names in its summary, and checks
// that it still holds the answers judged.
func judgedRun(j *source) (*source, error) {
	id := j.judge.Run
	if id.Folder == "" {
		return nil, fmt.Errorf("it names no run folder: give the run it judged with --run")
	}
	if st, err := os.Stat(id.Folder); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the run it judged (%s) is not there: give it with --run", id.Folder)
	}
	r, err := loadRun(id.Folder, false)
	if err != nil {
		return nil, fmt.Errorf("the run it judged: %w", err)
	}
	if err := bound(j.judge, r, j.judgeDir); err != nil {
		return nil, err
	}
	return r, nil
}

// bound refuses a judge output whose run identity is not the run's as it
// is now: its verdicts would stand beside answers they were not made on.
func bound(js *JudgeSummary, r *source, judgeDir string) error {
	if js.Run == nil || r.identity == nil {
		return nil // checked by the caller's warning
	}
	if js.Run.Same(*r.identity) {
		return nil
	}
	why := "the run changed after it was judged (a result or summary rewritten, a task re-executed or regenerated)"
	if r.idErr != nil {
		why = fmt.Sprintf("some of its files cannot be read now (%v)", r.idErr)
	}
	return fmt.Errorf("the judge output in %s was made on other answers than %s holds now (judged: %s; now: %s): %s, so its verdicts would be shown beside answers they were not made on; judge the run again (clinsql judge)",
		judgeDir, r.run, js.Run, r.identity, why)
}

// loadRun reads a run folder: its outputs, benchmark_summary.json, what it
// says of itself, its identity, and (withJudge) the decisions of its
// judge/ folder, checked against its identity.
func loadRun(dir string, withJudge bool) (*source, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("not a folder")
	}
	s := &source{run: dir, origin: SourceJudge}
	run, err := runfolder.Load(dir)
	if run == nil || (len(run.Outputs) == 0 && err != nil) {
		return nil, err
	}
	if err != nil {
		// Unreadable task summaries are per-task problems: the other
		// tasks still report.
		s.warns = append(s.warns, err)
	}
	s.outputs, s.manifest, s.engine = run.Outputs, run.Manifest, run.EngineRecord()
	s.reexec = run.ReExecution()
	id, idErr := run.Identity()
	s.identity, s.idErr = &id, idErr
	if bs, err := runfolder.ReadBenchmarkSummary(run.Root); err != nil {
		s.warns = append(s.warns, fmt.Errorf("%v (refinement cross-check skipped)", err))
	} else {
		s.bench = bs
	}
	if !withJudge {
		return s, nil
	}
	jd := filepath.Join(dir, runfolder.JudgeDir)
	if err := s.loadJudgeDir(jd); err != nil {
		return nil, err
	}
	if s.judge != nil {
		if err := bound(s.judge, s, jd); err != nil {
			return nil, err
		}
		if s.judge.Run == nil {
			s.warns = append(s.warns, fmt.Errorf("%s: written before judge outputs recorded the run they judged: whether %s still holds the answers judged cannot be checked", jd, dir))
		}
	}
	return s, nil
}

// loadJudged reads a judge output folder (clinsql judge --out): its
// decisions and its summary, which names the run it judged.
func loadJudged(dir string) (*source, error) {
	s := &source{origin: SourceJudge}
	if err := s.loadJudgeDir(dir); err != nil {
		return nil, err
	}
	if s.judge == nil || s.judge.Run == nil || len(s.gradings) == 0 {
		return nil, fmt.Errorf("not a judge output folder of this clinsql (no %s naming the run it judged, or no %s): judge the run into it (clinsql judge --out %s)", JudgeSummaryFile, GradingFile, dir)
	}
	return s, nil
}

// loadJudgeDir reads a judge output's gradings, ledger and summary from
// dir, when there are any.
func (s *source) loadJudgeDir(dir string) error {
	paths, err := judgeGradings(dir)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return nil
	}
	s.judgeDir = dir
	for _, p := range paths {
		g, err := scoring.ReadGrading(p)
		if err != nil {
			return err
		}
		s.gradings = append(s.gradings, g)
	}
	lpath := filepath.Join(dir, LedgerFile)
	if _, err := os.Lstat(lpath); err == nil {
		l, err := judgefmt.ReadLedger(lpath)
		if err != nil {
			return err
		}
		if l.Torn {
			s.warns = append(s.warns, fmt.Errorf("%s: last line incomplete (a judge run was killed while writing); ignored", lpath))
		}
		s.ledger = l.Last()
		tpath := filepath.Join(dir, judgefmt.TranscriptFile)
		xs, bad, err := judgefmt.ReadTranscript(tpath)
		switch {
		case err != nil:
			s.warns = append(s.warns, fmt.Errorf("%s: %v (the judge's prompts and replies are not shown)", tpath, err))
		case bad > 0:
			s.warns = append(s.warns, fmt.Errorf("%s: %d lines are not exchanges (a judge run was killed while writing); skipped", tpath, bad))
		}
		s.exchanges = xs
	}
	jpath := filepath.Join(dir, JudgeSummaryFile)
	if b, err := runfolder.ReadFile(jpath, runfolder.MaxJudgeFileBytes); err == nil {
		if js, err := judgefmt.DecodeSummary(b); err != nil {
			s.warns = append(s.warns, fmt.Errorf("%s: %v", jpath, err))
		} else {
			s.judge = js
		}
	}
	return nil
}

// splitsOfGrading lists the splits a grading's samples belong to.
func splitsOfGrading(g *scoring.Grading) map[string]bool {
	out := map[string]bool{}
	for _, e := range g.Evaluations {
		if k, err := datasets.ParseKey(e.SamplePath); err == nil {
			out[k.Split] = true
		}
	}
	return out
}

// overlap reports whether g grades a split that s already holds.
func overlap(s *source, g *scoring.Grading) bool {
	mine := splitsOfGrading(g)
	for _, h := range s.gradings {
		for sp := range splitsOfGrading(h) {
			if mine[sp] {
				return true
			}
		}
	}
	return false
}

// judgeGradings finds the judge's detailed_grading.json files: in dir for a
// one-split run, else one per split folder.
func judgeGradings(dir string) ([]string, error) {
	one := filepath.Join(dir, GradingFile)
	if _, err := os.Stat(one); err == nil {
		return []string{one}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil // no judge/ folder: a run without decisions
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name(), GradingFile)
		if _, err := os.Stat(p); e.IsDir() && err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// runModelName is the model a run folder holds: benchmark_summary.json's
// model, else the execution summaries', else the folder's name.
func runModelName(s *source) string {
	if s.bench != nil && s.bench.Model != "" {
		return s.bench.Model
	}
	for _, o := range s.outputs {
		if o.Summary.Model != "" {
			return o.Summary.Model
		}
	}
	return filepath.Base(filepath.Clean(s.run))
}

// scoreModels rescores every source in both modes and gathers its leaf
// decisions. Models keep the order of the sources; duplicate names get a
// suffix so that tables and links stay unambiguous.
//
// With subset, the tasks are part of the inputs' on purpose: decisions and
// outputs about other tasks are left out, not reported as strays.
func scoreModels(ctx context.Context, srcs []*source, tasks []*datasets.Task, workers int, subset bool) ([]*Model, error) {
	byKey := make(map[datasets.Key]*datasets.Task, len(tasks))
	for _, t := range tasks {
		byKey[t.Key] = t
	}
	models := make([]*Model, len(srcs))
	errs := make([]error, len(srcs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, s := range srcs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			m, err := scoreModel(s, tasks, byKey, subset)
			if err != nil {
				errs[i] = err
				return nil
			}
			models[i] = m
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Two inputs of one model (its recorded decisions and a run judged by
	// clinsql judge, two judge runs, ...) stay apart: the judged one is
	// called "<model> (judge)", further ones get "#2", "#3".
	taken := map[string]bool{}
	for _, m := range models {
		if !taken[m.Name] {
			taken[m.Name] = true
			continue
		}
		old := m.Name
		name := old + " (judge)"
		if !m.fromJudge || taken[name] {
			name = old
			for i := 2; taken[name]; i++ {
				name = fmt.Sprintf("%s #%d", old, i)
			}
		}
		m.Name = name
		taken[name] = true
		m.Warnings = append(m.Warnings, fmt.Errorf("%s: a second input for model %q, shown as %q", strings.Join(m.Gradings, ", "), old, m.Name))
	}
	return models, nil
}

func scoreModel(s *source, tasks []*datasets.Task, byKey map[datasets.Key]*datasets.Task, subset bool) (*Model, error) {
	first := s.gradings[0]
	var files []string
	for _, g := range s.gradings {
		files = append(files, g.File)
	}
	m := &Model{Name: first.Model(), Gradings: files, Run: s.run, Bench: s.bench, Judge: s.judge, fromJudge: s.origin == SourceJudge,
		Outputs: map[datasets.Key]*runfolder.Output{}, Decisions: map[datasets.Key]map[LeafKey]*Decision{},
		Warnings: s.warns}
	m.Completeness = completeness(s)
	m.Manifest, m.Engine = s.manifest, s.engine
	if m.Name == "" {
		m.Name = filepath.Base(filepath.Dir(first.File))
		m.Warnings = append(m.Warnings, fmt.Errorf("%s: summary has no experiment_model; named %q", first.File, m.Name))
	}
	for _, g := range s.gradings {
		if subset {
			g = g.Only(tasks)
		}
		ref, err := scoring.Rescore(g, tasks, rubric.Reference)
		if err != nil {
			return nil, err
		}
		strict, err := scoring.Rescore(g, tasks, rubric.Strict)
		if err != nil {
			return nil, err
		}
		m.Warnings = append(m.Warnings, strict.Warnings...)
		if m.Ref == nil {
			m.Ref, m.Strict = ref, strict
		} else {
			m.Ref.Tasks = append(m.Ref.Tasks, ref.Tasks...)
			m.Strict.Tasks = append(m.Strict.Tasks, strict.Tasks...)
		}
		for _, e := range g.Evaluations {
			k, err := datasets.ParseKey(e.SamplePath)
			if err != nil || byKey[k] == nil {
				continue // Rescore has already refused such a file
			}
			d := map[LeafKey]*Decision{}
			for tree, recs := range map[Tree]map[string]scoring.Record{TreeSQL: e.SQLEvaluations, TreeResults: e.ResultsEvaluations} {
				root := byKey[k].SQLRubric.Root
				if tree == TreeResults {
					root = byKey[k].ResultsRubric.Root
				}
				for id, r := range recs {
					if n := root.Find(id); n == nil || !n.IsLeaf() {
						continue
					}
					v, kind, _ := scoring.Classify(r)
					d[LeafKey{tree, id}] = &Decision{Source: s.origin, Explanation: r.Explanation, Kind: kind, Score: r.Score, Status: v.Status}
				}
			}
			m.Decisions[k] = d
		}
	}
	if s.ledger != nil {
		m.Warnings = append(m.Warnings, ledgerDecisions(m, s, byKey, subset)...)
	}
	if j := s.judge; j != nil && j.Skipping && j.LeavesSkipped > 0 {
		other := rubric.Reference
		if j.Mode == rubric.Reference {
			other = rubric.Strict
		}
		m.Warnings = append(m.Warnings, fmt.Errorf("%s: judged in %s mode with gate-aware skipping (%d leaves skipped): its %s-mode scores count the skipped leaves as failed, which only %s mode guarantees cannot matter",
			s.run, j.Mode, j.LeavesSkipped, other, j.Mode))
	}
	m.ref, m.strict = index(m.Ref), index(m.Strict)
	for _, o := range s.outputs {
		if byKey[o.Key] == nil {
			if subset {
				continue
			}
			m.Warnings = append(m.Warnings, fmt.Errorf("%s: output for %s, which is not among the tasks", s.run, o.Key))
			continue
		}
		m.Outputs[o.Key] = o
	}
	return m, nil
}

// ledgerDecisions replaces the decisions read from the grading files with
// the judge's ledger records, which say who decided each leaf and at what
// cost. The grading files still give the scores: clinsql judge writes them
// so that rescoring gives the judge's own scores.
func ledgerDecisions(m *Model, s *source, byKey map[datasets.Key]*datasets.Task, subset bool) []error {
	var warns []error
	bad := 0
	for lk, r := range s.ledger {
		k, err := datasets.ParseKey(lk.Task)
		if err != nil || byKey[k] == nil {
			bad++
			continue
		}
		d := &Decision{Source: string(r.Source), Explanation: r.Explanation, Score: r.Score, Status: r.Verdict,
			Kind: scoring.KindDecided, ErrorKind: r.ErrorKind, Calls: r.Calls,
			PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, CostUSD: r.CostUSD,
			LatencyMS: r.LatencyMS, Judge: r.Judge, Group: r.Group}
		switch {
		case r.Source == judgefmt.SourceSkip || r.Verdict == rubric.Skipped:
			d.Source, d.Status = "", rubric.Skipped
		case r.Verdict != rubric.Invalid:
		case r.ErrorKind == "malformed_reply" || r.ErrorKind == "no_majority" || r.ErrorKind == scoring.KindUnparsed:
			d.Kind = scoring.KindUnparsed
		case r.ErrorKind == scoring.KindNonBinary:
			d.Kind = scoring.KindNonBinary
		default:
			d.Kind = scoring.KindJudgeError
		}
		if m.Decisions[k] == nil {
			m.Decisions[k] = map[LeafKey]*Decision{}
		}
		m.Decisions[k][LeafKey{Tree(lk.Tree), lk.Leaf}] = d
	}
	if bad > 0 && !subset {
		warns = append(warns, fmt.Errorf("%s: %d ledger records name tasks that are not among the tasks", filepath.Join(s.judgeDir, LedgerFile), bad))
	}
	// The transcript: each task's calls in tree order, then by their
	// first leaf's place in the rubric.
	for _, x := range s.exchanges {
		k, err := datasets.ParseKey(x.Task)
		if err != nil || byKey[k] == nil {
			continue
		}
		if m.Exchanges == nil {
			m.Exchanges = map[datasets.Key][]*judgefmt.Exchange{}
		}
		m.Exchanges[k] = append(m.Exchanges[k], x)
	}
	for k, xs := range m.Exchanges {
		order := map[LeafKey]int{}
		for i, l := range byKey[k].SQLRubric.Root.Leaves() {
			order[LeafKey{TreeSQL, l.ID}] = i
		}
		for i, l := range byKey[k].ResultsRubric.Root.Leaves() {
			order[LeafKey{TreeResults, l.ID}] = i
		}
		sort.SliceStable(xs, func(i, j int) bool {
			if xs[i].Tree != xs[j].Tree {
				return xs[i].Tree == judgefmt.TreeSQL
			}
			return order[LeafKey{Tree(xs[i].Tree), xs[i].Leaves[0]}] < order[LeafKey{Tree(xs[j].Tree), xs[j].Leaves[0]}]
		})
	}
	return warns
}

func index(r *scoring.Rescored) map[datasets.Key]*scoring.TaskScore {
	out := make(map[datasets.Key]*scoring.TaskScore, len(r.Tasks))
	for _, t := range r.Tasks {
		out[t.Key] = t
	}
	return out
}

// splitsOf lists the splits the models' strict scores cover, sorted with
// validation before test (the release's order of interest) and any others
// after.
func splitsOf(models []*Model) []string {
	set := map[string]bool{}
	for _, m := range models {
		for _, t := range m.Strict.Tasks {
			set[t.Key.Split] = true
		}
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	rank := func(s string) int {
		switch s {
		case "validation":
			return 0
		case "test":
			return 1
		}
		return 2
	}
	sort.Slice(out, func(i, j int) bool {
		if rank(out[i]) != rank(out[j]) {
			return rank(out[i]) < rank(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

func defaultWorkers(n int) int {
	if n > 0 {
		return n
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// slug makes a model name usable as a folder name.
func slug(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	// A name of dots would name the parent folder or this one
	// (models/../split): the model's summaries would land outside models/.
	if strings.Trim(b.String(), ".") == "" {
		return strings.Repeat("_", max(b.Len(), 1))
	}
	return b.String()
}

// completeness is the least complete status of a source's gradings and
// judge summary.
func completeness(s *source) string {
	status := "complete"
	worse := func(st string) {
		switch {
		case st == "" || st == "complete" || status == "failed":
		case st == "failed" || status != "interrupted":
			status = st
		}
	}
	for _, g := range s.gradings {
		worse(g.Summary.Status())
	}
	if s.judge != nil {
		switch {
		case s.judge.Completeness != "":
			worse(s.judge.Completeness)
		case !s.judge.Complete:
			worse("interrupted")
		}
	}
	return status
}
