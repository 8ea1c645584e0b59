package refine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/refine/refinetest"
	"github.com/clinsql/clinsql/runfolder"
)

// syntheticSchedule answers the synthetic tasks with okSQL, broken in the
// first errsByIndex(i) answers of task i.
func syntheticSchedule(tasks []*datasets.Task) *refinetest.Schedule {
	s := &refinetest.Schedule{Right: map[string]string{}}
	idx := map[string]int{}
	for i, t := range tasks {
		s.Right[t.Question] = okSQL
		idx[t.Question] = i
	}
	s.Errs = func(q string) int { return refinetest.ErrsByIndex(idx[q]) }
	return s
}

func TestGenerateTwoModels(t *testing.T) {
	ex := miniEngine(t)
	tasks := syntheticTasks(40)
	schedA, schedB := syntheticSchedule(tasks), syntheticSchedule(tasks)
	schedA.Hold, schedB.Hold = 5*time.Millisecond, 5*time.Millisecond
	srvA := llmtest.Start(t, schedA.Handler(), llmtest.Options{APIKey: testKey})
	srvB := llmtest.Start(t, schedB.Handler(), llmtest.Options{APIKey: testKey})
	mA, mB := testModel("model-a", srvA), testModel("model-b", srvB)
	mB.Prompt = refinefmt.ModeDirect
	mB.Tasks = 3
	mB.Limits.Concurrency = 3

	out := t.TempDir()
	cacheDir := filepath.Join(out, "llm-cache")
	cache, err := llm.OpenCache(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	prices := llm.Prices{"fake-model-a": {Prompt: 1, Completion: 2}, "fake-model-b": {Prompt: 3, Completion: 4}}
	meter := llm.NewMeter(prices, 0)
	var mu sync.Mutex
	events := map[string]int{}
	opts := Options{
		Out: out, Tasks: tasks, Models: []Model{mA, mB}, Executor: ex,
		LLM:         llm.Options{Cache: cache, Meter: meter, Getenv: getenv, Sleep: noSleep},
		Concurrency: 4, RunID: "first",
		Events: func(e Event) {
			mu.Lock()
			events[e.Model+"/"+e.Status]++
			mu.Unlock()
		},
	}
	res, err := Generate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// Attempt-wise success follows the schedule exactly: of 40 tasks, 24
	// right at once, 8 after one fix, 4 after two, 4 never.
	for _, mr := range res.Models {
		bs := mr.Summary
		if mr.Done != 40 || bs.Total != 40 || bs.Successful != 36 || len(bs.Pending) != 0 {
			t.Errorf("%s: done %d, total %d, successful %d, pending %v", mr.Model, mr.Done, bs.Total, bs.Successful, bs.Pending)
		}
		if got := bs.SuccessAt; len(got) != 3 || got[0] != 24 || got[1] != 8 || got[2] != 4 {
			t.Errorf("%s: success at attempts %v, want [24 8 4]", mr.Model, got)
		}
		if bs.CumulativeRate(2) != 80 {
			t.Errorf("%s: cumulative rate at 2 = %v", mr.Model, bs.CumulativeRate(2))
		}
		if mr.Usage.PromptTokens == 0 || mr.CostUSD == 0 {
			t.Errorf("%s: usage %+v cost %v", mr.Model, mr.Usage, mr.CostUSD)
		}
	}
	if events["model-a/ok"] != 36 || events["model-a/failed"] != 4 || events["model-b/ok"] != 36 {
		t.Errorf("events %v", events)
	}
	// Concurrency: each endpoint within its limit, both within the total.
	if a, b := srvA.MaxInFlight(), srvB.MaxInFlight(); a > 2 || b > 3 {
		t.Errorf("in flight: model-a %d (limit 2), model-b %d (limit 3)", a, b)
	}
	if both := schedA.MaxInFlight() + schedB.MaxInFlight(); both < 2 {
		t.Errorf("calls never overlapped (max %d)", both)
	}
	// The reference benchmark summary reads back with its shape.
	checkBenchmarkShape(t, filepath.Join(out, "model-a", runfolder.BenchmarkSummaryFile), "model-a", 40)

	// Direct mode asks for SQL only.
	if p := srvB.Requests()[0].Prompt(); strings.Contains(p, "Reasoning:") || !strings.Contains(p, "query only") {
		t.Errorf("direct prompt:\n%s", p)
	}

	// Resuming a finished run redoes nothing and asks nothing.
	callsA, callsB := srvA.Calls(), srvB.Calls()
	opts.RunID = "second"
	res, err = Generate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if srvA.Calls() != callsA || srvB.Calls() != callsB || res.Models[0].Resumed != 40 || res.Models[0].Done != 0 {
		t.Errorf("resume: %d+%d new calls, resumed %d, done %d", srvA.Calls()-callsA, srvB.Calls()-callsB, res.Models[0].Resumed, res.Models[0].Done)
	}

	// Deleting some outputs redoes only those, from the cache.
	for _, tk := range tasks[:5] {
		os.Remove(filepath.Join(runfolder.TaskDir(filepath.Join(out, "model-a"), tk.Key), runfolder.ExecutionSummaryFile))
	}
	res, err = Generate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Models[0].Done != 5 || res.Models[0].Resumed != 35 || srvA.Calls() != callsA {
		t.Errorf("partial redo: done %d, resumed %d, %d new calls (want 0: cached)", res.Models[0].Done, res.Models[0].Resumed, srvA.Calls()-callsA)
	}
	sum, _, err := refinefmt.ReadSummary(filepath.Join(out, "model-a"), tasks[0].Key)
	if err != nil || sum.Clinsql.RunID != "second" || sum.Clinsql.Usage.CacheHits != sum.Clinsql.Usage.Calls {
		t.Errorf("redone task: %v %+v", err, sum.Clinsql)
	}
	if sum, _, _ := refinefmt.ReadSummary(filepath.Join(out, "model-a"), tasks[10].Key); sum.Clinsql.RunID != "first" {
		t.Errorf("a finished task was redone (run %s)", sum.Clinsql.RunID)
	}

	// Other settings in the same folder are refused before any call.
	mA2 := mA
	mA2.Prompt = refinefmt.ModeSchemaHinted
	opts.Models = []Model{mA2}
	if _, err := Generate(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "prompt") || !strings.Contains(err.Error(), refinefmt.SettingsFile) {
		t.Errorf("changed prompt mode accepted: %v", err)
	}
	// So is an engine that now gives other results (its semantics).
	opts.Models = []Model{mA}
	opts.Executor = withSemantics{opts.Executor, "division_by_zero=null"}
	if _, err := Generate(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "engine_semantics") {
		t.Errorf("changed engine semantics accepted: %v", err)
	}

	llmtest.AssertNoSecret(t, out, testKey)
	if os.Getenv("REFINE_KEEP") != "" {
		os.CopyFS(os.Getenv("REFINE_KEEP"), os.DirFS(out))
	}
}

// withSemantics gives an executor results-changing options (as the
// command line's bridged DuckDB engine reports --zero-division).
type withSemantics struct {
	executor.Executor
	sem string
}

func (w withSemantics) Semantics() string { return w.sem }

// checkBenchmarkShape checks the reference keys of benchmark_summary.json.
func checkBenchmarkShape(t *testing.T, path, model string, total int) {
	t.Helper()
	// The file's raw shape: the reference's keys, nested as published.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if m["model"] != model || m["total_queries"] != float64(total) {
		t.Errorf("%s: model %v total %v", path, m["model"], m["total_queries"])
	}
	for _, k := range []string{"attempt_success_counts", "attempt_success_rates", "attempt_cumulative_success_counts", "attempt_cumulative_success_rates"} {
		v, ok := m[k].(map[string]any)
		if !ok || len(v) != 3 || v["1"] == nil || v["3"] == nil {
			t.Errorf("%s: %s = %v", path, k, m[k])
		}
	}
	splits := m["splits"].(map[string]any)
	val := splits["validation"].(map[string]any)
	doms := val["domain_results"].(map[string]any)
	for d, dv := range doms {
		lv := dv.(map[string]any)["level_results"].(map[string]any)
		for l, x := range lv {
			lx := x.(map[string]any)
			if lx["domain"] != d || lx["difficulty"] != l || lx["model"] != model || lx["split"] != "validation" {
				t.Errorf("%s/%s: %v", d, l, lx)
			}
		}
	}
}

// besideGood is a run of two models over the same synthetic tasks: bad,
// whose endpoint (srv) answers every call with one failing reply, and good,
// which follows the synthetic schedule.
type besideGood struct {
	bad, good *ModelResult
	srv       *llmtest.Server
	ex        executor.Executor
	tasks     []*datasets.Task
	out       string
}

func failingBesideGood(t *testing.T, n int, failing llmtest.Reply) besideGood {
	t.Helper()
	r := besideGood{ex: miniEngine(t), tasks: syntheticTasks(n), out: t.TempDir()}
	r.srv = llmtest.Start(t, llmtest.Fixed(failing), llmtest.Options{})
	srvOK := llmtest.Start(t, syntheticSchedule(r.tasks).Handler(), llmtest.Options{})
	res, err := Generate(context.Background(), Options{
		Out: r.out, Tasks: r.tasks, Models: []Model{testModel("bad", r.srv), testModel("good", srvOK)}, Executor: r.ex,
		LLM: llm.Options{Getenv: getenv, Sleep: noSleep},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.bad, r.good = res.Models[0], res.Models[1]
	return r
}

func TestGenerateStopsModelOnAuthError(t *testing.T) {
	r := failingBesideGood(t, 12, llmtest.HTTPError(401, "invalid_api_key", "Incorrect API key provided"))
	bad, good, srv, ex, tasks, out := r.bad, r.good, r.srv, r.ex, r.tasks, r.out
	if !strings.Contains(bad.Stopped, "auth") || len(bad.Pending) != 12 || bad.Done != 0 {
		t.Errorf("bad model: stopped %q, pending %d, done %d", bad.Stopped, len(bad.Pending), bad.Done)
	}
	if srv.Calls() > 2 {
		t.Errorf("the failing endpoint got %d calls; it should stop after the in-flight ones", srv.Calls())
	}
	if good.Done != 12 || len(good.Pending) != 0 {
		t.Errorf("good model: done %d pending %d", good.Done, len(good.Pending))
	}
	// A missing key is refused before anything runs.
	m := testModel("nokey", srv)
	m.APIKeyEnv = "CLINSQL_UNSET_KEY"
	if _, err := Generate(context.Background(), Options{Out: out, Tasks: tasks, Models: []Model{m}, Executor: ex, LLM: llm.Options{Getenv: getenv}}); err == nil || !strings.Contains(err.Error(), "CLINSQL_UNSET_KEY") {
		t.Errorf("missing key: %v", err)
	}
}

// TestGenerateStopsModelWhenEndpointDown: a model whose endpoint fails
// every call (503 after retries) is stopped after llm.MaxDownInARow tasks
// in a row, its tasks left pending (never failed); the other model is not
// held up, and a resumed run against the endpoint once it is back finishes
// every task.
func TestGenerateStopsModelWhenEndpointDown(t *testing.T) {
	r := failingBesideGood(t, 40, llmtest.ServerError(503))
	bad, good, down, ex, tasks, out := r.bad, r.good, r.srv, r.ex, r.tasks, r.out
	if !strings.Contains(bad.Stopped, "in a row") || len(bad.Pending) != 40 || bad.Done != 0 {
		t.Errorf("down model: stopped %q, pending %d, done %d", bad.Stopped, len(bad.Pending), bad.Done)
	}
	// Each failed task made the client's attempts; at most the tasks in
	// flight when the model stopped add to those that stopped it.
	m := testModel("bad", down)
	perTask := m.Endpoint.WithDefaults().Retry.MaxAttempts
	if maxCalls := (llm.MaxDownInARow + m.TasksOrDefault()) * perTask; down.Calls() > maxCalls {
		t.Errorf("the down endpoint got %d calls, want at most %d", down.Calls(), maxCalls)
	}
	if good.Done != 40 || len(good.Pending) != 0 {
		t.Errorf("good model: done %d pending %d", good.Done, len(good.Pending))
	}
	back := syntheticSchedule(tasks)
	srvBack := llmtest.Start(t, back.Handler(), llmtest.Options{})
	res, err := Generate(context.Background(), Options{
		Out: out, Tasks: tasks, Models: []Model{testModel("bad", srvBack)}, Executor: ex,
		LLM: llm.Options{Getenv: getenv, Sleep: noSleep},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Models[0]; r.Done != 40 || len(r.Pending) != 0 || r.Stopped != "" {
		t.Errorf("resumed: done %d pending %d stopped %q", r.Done, len(r.Pending), r.Stopped)
	}
}

func TestSettingsFileRecordsNoKey(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("x")), llmtest.Options{})
	m := testModel("m", srv)
	s := settingsOf(m, "duckdb", "abc")
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), testKey) || !strings.Contains(string(b), `"model_id":"fake-m"`) {
		t.Errorf("settings %s", b)
	}
	_ = mimic.V31
}

// TestGenerateInterrupted cancels a run half-way: calls in flight end,
// their tasks stay pending (never failed), the summary is still written,
// and a second run finishes exactly the rest.
func TestGenerateInterrupted(t *testing.T) {
	ex := miniEngine(t)
	tasks := syntheticTasks(30)
	sched := syntheticSchedule(tasks)
	sched.Hold = 10 * time.Millisecond
	srv := llmtest.Start(t, sched.Handler(), llmtest.Options{APIKey: testKey})
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	opts := Options{Out: out, Tasks: tasks, Models: []Model{testModel("m", srv)}, Executor: ex,
		LLM: llm.Options{Getenv: getenv, Sleep: noSleep}, Concurrency: 2,
		Events: func(e Event) {
			if n++; n == 8 {
				cancel()
			}
		}}
	res, err := Generate(ctx, opts)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v", err)
	}
	mr := res.Models[0]
	if mr.Summary == nil || len(mr.Pending) == 0 || mr.Done+len(mr.Pending) != 30 || mr.Summary.Statuses[refinefmt.StatusInterrupted] != 0 {
		t.Fatalf("after the interrupt: done %d, pending %d", mr.Done, len(mr.Pending))
	}
	if mr.Summary.Total != mr.Done {
		t.Errorf("summary counts %d tasks, %d are done", mr.Summary.Total, mr.Done)
	}
	first := mr.Done
	opts.Events = nil
	res, err = Generate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if mr := res.Models[0]; mr.Resumed != first || mr.Done != 30-first || mr.Summary.Successful != 27 {
		t.Errorf("resume: resumed %d done %d successful %d", mr.Resumed, mr.Done, mr.Summary.Successful)
	}
}

// TestGenerateStopsModelOnTransportGarbage: a model whose endpoint answers
// every call with garbage on the wire (a dead proxy: bodies that are not
// JSON, cut off or truncated) is stopped after llm.MaxDownInARow tasks in
// a row, as the judge stops on such replies, its tasks left pending.
func TestGenerateStopsModelOnTransportGarbage(t *testing.T) {
	for name, f := range map[string]llmtest.Fault{"not JSON": llmtest.Malformed, "cut off": llmtest.CutOff} {
		t.Run(name, func(t *testing.T) { // one engine on the database at a time
			r := failingBesideGood(t, 40, llmtest.Broken(f))
			if !strings.Contains(r.bad.Stopped, "in a row") || len(r.bad.Pending) != 40 || r.bad.Done != 0 {
				t.Errorf("stopped %q, pending %d, done %d; want stopped after %d tasks in a row", r.bad.Stopped, len(r.bad.Pending), r.bad.Done, llm.MaxDownInARow)
			}
			if r.good.Done != 40 {
				t.Errorf("good model done %d", r.good.Done)
			}
		})
	}
}
