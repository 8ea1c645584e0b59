package refine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// quotingExec records the queries it is asked to run and fails each as
// a syntax error quoting the query whole, as some engines' messages do.
type quotingExec struct{ queries []string }

func (c *quotingExec) Name() string { return "duckdb" }
func (c *quotingExec) Close() error { return nil }
func (c *quotingExec) Query(_ context.Context, sql string) (*executor.Result, error) {
	c.queries = append(c.queries, sql)
	return nil, &executor.Error{Class: executor.ClassSyntax, Engine: "duckdb", Message: "Syntax error near: " + sql}
}

// A 20 MB reply does not become a 20 MB query (issue 25: it was run,
// resent whole in every fix prompt, and kept in an 84 MB summary that the
// project's own reader refused). The query over BigQuery's maximum length
// fails without running, as the model's error; fix prompts show a bounded
// part of it; the summary stays small; an engine's message quoting a long
// query is cut too.
func TestOversizedReplyBounded(t *testing.T) {
	huge := "SELECT 1 AS x WHERE TRUE" + strings.Repeat(" OR TRUE", 20<<20/8) // 20 MB
	long := "SELECT 1 AS x" + strings.Repeat(" OR TRUE", 100<<10)             // within the cap; the engine's message quotes it
	// Answers by what the prompt shows (a retried call gets the same).
	reply := func(c *llmtest.Call) llmtest.Reply {
		switch p := c.Request.Messages[len(c.Request.Messages)-1].Content; {
		case strings.Contains(p, "too large"):
			return llmtest.Text(cot(long))
		case strings.Contains(p, "Syntax error near"):
			return llmtest.Text(cot(huge))
		}
		return llmtest.Text(cot(huge))
	}
	srv := llmtest.Start(t, reply, llmtest.Options{APIKey: testKey})
	ex := &quotingExec{}
	task := fixtureTasks(t)[0]
	m := testModel("m", srv)
	m.Limits.Timeout = 5 * time.Minute // a 20 MB reply on a loaded machine
	s := solver(t, m, ex)
	rec := s.Solve(context.Background(), task)
	if len(rec.Attempts) != 3 || rec.Status != refinefmt.StatusFailed {
		t.Fatalf("status %s, %d attempts (%s)", rec.Status, len(rec.Attempts), rec.Stopped)
	}
	a1 := rec.Attempts[0]
	if a1.Status != refinefmt.AttemptError || a1.ErrorClass != executor.ClassSyntax || !strings.Contains(a1.Error, "too large") {
		t.Errorf("attempt 1: %s %s %.200s", a1.Status, a1.ErrorClass, a1.Error)
	}
	if len(ex.queries) != 1 || ex.queries[0] != long {
		t.Errorf("ran %d queries; want only the one within the cap", len(ex.queries))
	}
	for i, r := range srv.Requests()[1:] {
		if n := len(r.Prompt()); n > 100<<10 {
			t.Errorf("fix prompt %d is %d bytes", i+1, n)
		}
	}
	run := t.TempDir()
	sum := Summary(rec, task, refinefmt.Settings{Model: "m"}, "run-1")
	if err := WriteTask(run, task, rec, sum); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(runfolder.TaskDir(run, task.Key), runfolder.ExecutionSummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 4<<20 {
		t.Errorf("execution_summary.json is %d bytes", st.Size())
	}
	if _, err := runfolder.LoadOutputs(run); err != nil {
		t.Errorf("the run folder does not read back: %v", err)
	}
}

// A summary over the readers' limit, as an older clinsql wrote it, does not
// brick the run folder: generate answers the task again (the reply from
// the cache, now bounded) and rewrites the file; the judge's reader names
// the file and what to do.
func TestOversizedSummaryAnsweredAgain(t *testing.T) {
	task := fixtureTasks(t)[0]
	out := t.TempDir()
	run := filepath.Join(out, "m") // Generate's folder for model m
	dir := runfolder.TaskDir(run, task.Key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := refinefmt.TaskSummary{ExecutionSummary: runfolder.ExecutionSummary{Query: task.Question, FinalSQL: strings.Repeat("x", runfolder.MaxSummaryBytes)},
		Clinsql: &refinefmt.TaskDetail{Status: refinefmt.StatusFailed}}
	b, _ := json.Marshal(old)
	path := filepath.Join(dir, runfolder.ExecutionSummaryFile)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runfolder.LoadOutputs(run)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "again") {
		t.Errorf("reading the old folder: %v, want an error naming the file and what to do", err)
	}
	if _, done, err := refinefmt.ReadSummary(run, task.Key); done || err != nil {
		t.Fatalf("ReadSummary: done %v, %v; want a task to answer again", done, err)
	}
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text(cot(okSQL))), llmtest.Options{APIKey: testKey})
	res, err := Generate(context.Background(), Options{Out: out, Tasks: []*datasets.Task{task}, Models: []Model{testModel("m", srv)}, Executor: miniEngine(t),
		LLM: llm.Options{Getenv: getenv, Sleep: noSleep}, Selection: &datasets.Selection{Keys: []string{task.Key.String()}}})
	if err != nil {
		t.Fatalf("generate again: %v", err)
	}
	if len(res.Models) != 1 || res.Models[0].Done != 1 {
		t.Errorf("generate again: %+v, want the task answered again", res.Models)
	}
	if st, err := os.Stat(path); err != nil || st.Size() > 1<<20 {
		t.Errorf("summary after the rerun: %v", err)
	}
}
