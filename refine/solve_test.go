package refine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

func TestFixAfterFailure(t *testing.T) {
	ex := miniEngine(t)
	srv := llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(badSQL)), llmtest.Text(cot(okSQL))), llmtest.Options{APIKey: testKey})
	task := fixtureTasks(t)[0]
	rec := solver(t, testModel("m", srv), ex).Solve(context.Background(), task)

	if rec.Status != refinefmt.StatusOK || rec.SuccessAttempt != 2 || len(rec.Attempts) != 2 {
		t.Fatalf("status %s, success at %d, %d attempts: %+v", rec.Status, rec.SuccessAttempt, len(rec.Attempts), rec.Attempts)
	}
	a1, a2 := rec.Attempts[0], rec.Attempts[1]
	if a1.Status != refinefmt.AttemptError || a1.ErrorClass != executor.ClassSyntax || !strings.Contains(a1.Error, "gendr") || a1.SQL != badSQL {
		t.Errorf("attempt 1: %+v", a1)
	}
	if a2.Status != refinefmt.AttemptOK || a2.Request != refinefmt.RequestFixError || a2.SQL != okSQL || a2.RowCount != 2 || strings.Join(a2.Columns, ",") != "gender,n" {
		t.Errorf("attempt 2: %+v", a2)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	fix := reqs[1].Prompt()
	for _, want := range []string{task.Question, "```sql\n" + badSQL + "\n```", a1.Error, "smallest change"} {
		if !strings.Contains(fix, want) {
			t.Errorf("fix prompt lacks %q", want)
		}
	}
	if a1.LLM.PromptTokens == 0 || a1.LLM.HTTPAttempts != 1 {
		t.Errorf("attempt 1 usage not recorded: %+v", a1.LLM)
	}
	// Each attempt keeps the reply it came from: the report's transcript.
	if a1.LLM.Reply != cot(badSQL) || a2.LLM.Reply != cot(okSQL) {
		t.Errorf("replies recorded %q, %q", a1.LLM.Reply, a2.LLM.Reply)
	}

	// The outputs are the reference layout, readable by runfolder.Load.
	run := t.TempDir()
	sum := Summary(rec, task, refinefmt.Settings{Model: "m", ModelID: "fake-m"}, "run-1")
	if err := WriteTask(run, task, rec, sum); err != nil {
		t.Fatal(err)
	}
	outs, err := runfolder.LoadOutputs(run)
	if err != nil || len(outs) != 1 {
		t.Fatalf("LoadRun: %v (%d outputs)", err, len(outs))
	}
	o := outs[0]
	if o.Key != task.Key || !o.Summary.ExecutionSuccess || o.Summary.FinalSQL != okSQL || o.Summary.RowCount != 2 ||
		o.Summary.FinalError != nil || len(o.Summary.RefinementAttempts) != 2 || o.Summary.RefinementAttempts[0].Success ||
		!strings.HasPrefix(*o.Summary.RefinementAttempts[0].Error, "syntax_error: ") || !o.Summary.RefinementAttempts[1].Success {
		t.Errorf("summary as read back: %+v", o.Summary)
	}
	csv, err := os.ReadFile(o.ResultCSV)
	if err != nil || string(csv) != "gender,n\nF,1\nM,2\n" {
		t.Errorf("result CSV %q, %v", csv, err)
	}
	if b, _ := os.ReadFile(filepath.Join(o.Dir, runfolder.SQLFile(task.ID))); string(b) != okSQL {
		t.Errorf("sql file %q", b)
	}
}

func TestProseBeforeFenceAndLeadingComment(t *testing.T) {
	ex := miniEngine(t)
	sql := "-- patients with at least one admission, with their gender\nWITH adm AS (\n  SELECT DISTINCT subject_id FROM mimiciv_3_1_hosp.admissions\n)\n" +
		"SELECT p.gender, COUNT(*) AS n\nFROM mimiciv_3_1_hosp.patients p JOIN adm USING (subject_id)\nGROUP BY p.gender\nORDER BY p.gender;"
	reply := "We start with the patients with admissions, with one row per patient.\n\nHere is the query:\n\n```sql\n" + sql + "\n```\n\nThis returns one row per gender."
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text(reply)), llmtest.Options{})
	task := fixtureTasks(t)[0]
	rec := solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusOK || len(rec.Attempts) != 1 {
		t.Fatalf("status %s: %+v", rec.Status, rec.Attempts)
	}
	if got := rec.Attempts[0].SQL; got != sql {
		t.Errorf("extracted\n%s\nwant\n%s", got, sql)
	}
	if rec.Attempts[0].Extraction != MethodSQLFence {
		t.Errorf("method %s", rec.Attempts[0].Extraction)
	}
}

func TestNeverFixes(t *testing.T) {
	ex := miniEngine(t)
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text(cot(badSQL))), llmtest.Options{})
	task := fixtureTasks(t)[0]
	rec := solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusFailed || len(rec.Attempts) != 3 || rec.SuccessAttempt != 0 || srv.Calls() != 3 {
		t.Fatalf("status %s, %d attempts, %d calls", rec.Status, len(rec.Attempts), srv.Calls())
	}
	for i, a := range rec.Attempts {
		want := refinefmt.RequestFixError
		if i == 0 {
			want = refinefmt.RequestGenerate
		}
		if a.Status != refinefmt.AttemptError || a.Request != want {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
	}
	sum := Summary(rec, task, refinefmt.Settings{Model: "m"}, "r")
	if sum.ExecutionSuccess || sum.FinalSQL != badSQL || sum.FinalError == nil || !strings.Contains(*sum.FinalError, "gendr") {
		t.Errorf("summary: %+v", sum)
	}
	// No refinement at all with rounds: 0.
	m := testModel("m0", srv)
	m.Rounds = intp(0)
	if rec := solver(t, m, ex).Solve(context.Background(), task); len(rec.Attempts) != 1 || rec.Status != refinefmt.StatusFailed {
		t.Errorf("rounds 0: %d attempts, %s", len(rec.Attempts), rec.Status)
	}
}

func TestHistoryShowsEveryAttempt(t *testing.T) {
	ex := miniEngine(t)
	bad2 := strings.Replace(badSQL, "gendr", "gndr", 1)
	srv := llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(badSQL)), llmtest.Text(cot(bad2)), llmtest.Text(cot(okSQL))), llmtest.Options{})
	m := testModel("m", srv)
	m.History = true
	rec := solver(t, m, ex).Solve(context.Background(), fixtureTasks(t)[0])
	if rec.Status != refinefmt.StatusOK || rec.SuccessAttempt != 3 {
		t.Fatalf("status %s at %d", rec.Status, rec.SuccessAttempt)
	}
	third := srv.Requests()[2].Prompt()
	if !strings.Contains(third, "Attempt 1:\n```sql\n"+badSQL) || !strings.Contains(third, "Latest attempt:\n```sql\n"+bad2) {
		t.Errorf("third prompt lacks the history:\n%s", third[strings.Index(third, "Question:"):])
	}
	// Without history only the last attempt is shown.
	srv2 := llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(badSQL)), llmtest.Text(cot(bad2)), llmtest.Text(cot(okSQL))), llmtest.Options{})
	solver(t, testModel("m", srv2), ex).Solve(context.Background(), fixtureTasks(t)[0])
	if third := srv2.Requests()[2].Prompt(); strings.Contains(third, badSQL) || !strings.Contains(third, bad2) {
		t.Errorf("without history the third prompt shows attempt 1 or lacks attempt 2")
	}
}

func TestRefineOnEmpty(t *testing.T) {
	ex := miniEngine(t)
	task := fixtureTasks(t)[0]

	// By default an empty result is a success, as in the reference.
	srv := llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(emptySQL)), llmtest.Text(cot(okSQL))), llmtest.Options{})
	rec := solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusEmpty || len(rec.Attempts) != 1 || rec.SuccessAttempt != 1 || rec.Result == nil {
		t.Fatalf("default: status %s, %d attempts", rec.Status, len(rec.Attempts))
	}
	// The empty result's CSV holds its header only: no placeholder.
	run := t.TempDir()
	if err := WriteTask(run, task, rec, Summary(rec, task, refinefmt.Settings{}, "r")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(runfolder.TaskDir(run, task.Key), datasets.GoldResultFile(task.ID))); string(b) != "subject_id\n" {
		t.Errorf("empty result CSV %q, %v", b, err)
	}

	srv = llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(emptySQL)), llmtest.Text(cot(okSQL))), llmtest.Options{})
	m := testModel("m", srv)
	m.RefineOnEmpty = true
	rec = solver(t, m, ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusOK || len(rec.Attempts) != 2 || rec.Attempts[1].Request != refinefmt.RequestFixEmpty || rec.SuccessAttempt != 1 {
		t.Fatalf("refine on empty: status %s, attempts %+v", rec.Status, rec.Attempts)
	}
	if p := srv.Requests()[1].Prompt(); !strings.Contains(p, "returned no rows") || !strings.Contains(p, emptySQL) {
		t.Errorf("fix-empty prompt:\n%s", p)
	}

	// An empty answer that a fix makes fail stays the answer.
	srv = llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(emptySQL)), llmtest.Text(cot(badSQL)), llmtest.Text(cot(badSQL))), llmtest.Options{})
	m = testModel("m", srv)
	m.RefineOnEmpty = true
	rec = solver(t, m, ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusEmpty || rec.Final != 0 || len(rec.Attempts) != 3 {
		t.Errorf("empty then failures: status %s, final %d, %d attempts", rec.Status, rec.Final, len(rec.Attempts))
	}
}

func TestNoSQLReply(t *testing.T) {
	ex := miniEngine(t)
	task := fixtureTasks(t)[0]
	srv := llmtest.Start(t, llmtest.Queue(llmtest.Text("I cannot write this query."), llmtest.Text(cot(okSQL))), llmtest.Options{})
	rec := solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusOK || rec.SuccessAttempt != 2 || rec.Attempts[0].Status != refinefmt.AttemptNoSQL || rec.Attempts[1].Request != refinefmt.RequestFixNoSQL {
		t.Fatalf("status %s: %+v", rec.Status, rec.Attempts)
	}
	srv = llmtest.Start(t, llmtest.Fixed(llmtest.Text("No idea.")), llmtest.Options{})
	rec = solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	sum := Summary(rec, task, refinefmt.Settings{}, "r")
	if rec.Status != refinefmt.StatusNoSQL || len(rec.Attempts) != 3 || sum.FinalSQL != "" || !strings.HasPrefix(*sum.FinalError, FailedToGenerate) {
		t.Errorf("never any SQL: status %s, final error %v", rec.Status, sum.FinalError)
	}
	run := t.TempDir()
	if err := WriteTask(run, task, rec, sum); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{runfolder.SQLFile(task.ID), datasets.GoldResultFile(task.ID)} {
		if _, err := os.Stat(filepath.Join(runfolder.TaskDir(run, task.Key), f)); err == nil {
			t.Errorf("%s written for a task without SQL", f)
		}
	}
}

// TestRateLimitsAndTimeouts: 429s and a hung reply are retried by the
// client and cost no refinement round; an endpoint that never recovers
// leaves the task pending, not failed.
func TestRateLimitsAndTimeouts(t *testing.T) {
	ex := miniEngine(t)
	task := fixtureTasks(t)[0]
	h := llmtest.Then(llmtest.Queue(llmtest.Text(cot(badSQL)), llmtest.Text(cot(okSQL))),
		llmtest.RateLimited("1"), llmtest.RateLimitedMs(20), llmtest.Hang())
	srv := llmtest.Start(t, h, llmtest.Options{})
	// The hung reply times out when the server hangs on it (an event: a
	// short timeout could also cut a reply a loaded machine was slow to
	// deliver).
	rec := solver(t, testModel("m", srv), ex, func(o *llm.Options) { o.WithTimeout = srv.Timeouts() }).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusOK || len(rec.Attempts) != 2 || rec.SuccessAttempt != 2 {
		t.Fatalf("status %s, %d attempts: %+v", rec.Status, len(rec.Attempts), rec.Attempts)
	}
	if rec.Attempts[0].LLM.HTTPAttempts != 4 {
		t.Errorf("first call took %d HTTP attempts, want 4 (two 429s, one timeout, one reply)", rec.Attempts[0].LLM.HTTPAttempts)
	}

	srv = llmtest.Start(t, llmtest.Fixed(llmtest.RateLimited("0")), llmtest.Options{})
	rec = solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusLLMError || rec.LLMError != llm.KindRateLimited || len(rec.Attempts) != 0 || refinefmt.Finished(rec.Status) {
		t.Errorf("endless 429: status %s (%s), %d attempts", rec.Status, rec.LLMError, len(rec.Attempts))
	}
	// A 429 during a fix leaves the task pending too, with its first
	// attempt not counted against the model.
	srv = llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(badSQL)), llmtest.RateLimited("0"), llmtest.RateLimited("0"),
		llmtest.RateLimited("0"), llmtest.RateLimited("0")), llmtest.Options{})
	rec = solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusLLMError {
		t.Errorf("429 during fix: status %s", rec.Status)
	}
	// A prompt too long for the model ends the task with what it has.
	srv = llmtest.Start(t, llmtest.Queue(llmtest.Text(cot(badSQL)), llmtest.ContextLengthExceeded()), llmtest.Options{})
	rec = solver(t, testModel("m", srv), ex).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusFailed || len(rec.Attempts) != 1 || !strings.Contains(rec.Stopped, "context_length") {
		t.Errorf("context length: status %s, %d attempts, stopped %q", rec.Status, len(rec.Attempts), rec.Stopped)
	}
}

// flakyExec fails with a class before handing queries to the real engine.
type flakyExec struct {
	executor.Executor
	class executor.Class
	fails atomic.Int32 // failures left; <0: always
	calls atomic.Int32
}

func (f *flakyExec) Query(ctx context.Context, sql string) (*executor.Result, error) {
	f.calls.Add(1)
	if n := f.fails.Load(); n != 0 {
		f.fails.Add(-1)
		return nil, &executor.Error{Class: f.class, Engine: "flaky", Message: "injected " + string(f.class)}
	}
	return f.Executor.Query(ctx, sql)
}

func TestEngineFaultsAreNotTheModels(t *testing.T) {
	ex := miniEngine(t)
	task := fixtureTasks(t)[0]

	// Transient infrastructure errors are retried within the attempt.
	fx := &flakyExec{Executor: ex, class: executor.ClassInfra}
	fx.fails.Store(2)
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text(cot(okSQL))), llmtest.Options{})
	s := solver(t, testModel("m", srv), fx)
	rec := s.Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusOK || len(rec.Attempts) != 1 || rec.Attempts[0].ExecRetries != 2 || srv.Calls() != 1 {
		t.Fatalf("transient infra: status %s, attempts %+v, %d calls", rec.Status, rec.Attempts, srv.Calls())
	}
	// Lasting ones leave the task pending, no round used.
	fx = &flakyExec{Executor: ex, class: executor.ClassInfra}
	fx.fails.Store(-1)
	srv = llmtest.Start(t, llmtest.Fixed(llmtest.Text(cot(okSQL))), llmtest.Options{})
	s = solver(t, testModel("m", srv), fx)
	rec = s.Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusInfraError || len(rec.Attempts) != 0 || fx.calls.Load() != 4 || srv.Calls() != 1 {
		t.Errorf("lasting infra: status %s, %d attempts, %d queries, %d calls", rec.Status, len(rec.Attempts), fx.calls.Load(), srv.Calls())
	}
	// Unsupported queries finish the task, excluded from the model's rates.
	fx = &flakyExec{Executor: ex, class: executor.ClassUnsupported}
	fx.fails.Store(-1)
	srv = llmtest.Start(t, llmtest.Fixed(llmtest.Text(cot(okSQL))), llmtest.Options{})
	rec = solver(t, testModel("m", srv), fx).Solve(context.Background(), task)
	if rec.Status != refinefmt.StatusUnsupported || len(rec.Attempts) != 1 || fx.calls.Load() != 1 || srv.Calls() != 1 {
		t.Errorf("unsupported: status %s, %d attempts, %d queries", rec.Status, len(rec.Attempts), fx.calls.Load())
	}
	// A cancelled run is interrupted, not failed.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec = solver(t, testModel("m", srv), ex).Solve(ctx, task)
	if rec.Status != refinefmt.StatusInterrupted {
		t.Errorf("cancelled: status %s", rec.Status)
	}
}
