package refine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// The child process of TestKilledAndResumed is this test binary run again
// with these variables set.
const (
	helperEnv   = "CLINSQL_REFINE_HELPER" // the fake server's base URL
	helperOut   = "CLINSQL_REFINE_HELPER_OUT"
	helperDB    = "CLINSQL_REFINE_HELPER_DB"
	helperTasks = "CLINSQL_REFINE_HELPER_TASKS"
)

const killTasks = 60

// helperMain runs a generation the parent test will kill.
func helperMain() int {
	n, _ := strconv.Atoi(os.Getenv(helperTasks))
	out := os.Getenv(helperOut)
	ex, err := duckdb.Open(os.Getenv(helperDB), duckdb.Options{Limits: executor.Limits{Timeout: 30 * time.Second}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ex.Close()
	cache, err := llm.OpenCache(filepath.Join(out, "llm-cache"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	meter, err := llm.OpenMeter(out, killPrices, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = Generate(context.Background(), Options{
		Out: out, Tasks: syntheticTasks(n), Models: []Model{killModel(os.Getenv(helperEnv))}, Executor: ex,
		LLM: llm.Options{Cache: cache, Meter: meter, Getenv: getenv}, Concurrency: 2, RunID: "child",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// killPrices price the kill test's calls, so that the run folder's
// spending record (llm.SpendingFile) can be checked against what the
// server billed.
var killPrices = llm.Prices{"fake-killed": {Prompt: 1, Completion: 10}}

func killModel(baseURL string) Model {
	t0 := 0.0
	return Model{Endpoint: llm.Endpoint{
		Name: "killed", Kind: llm.KindOpenAI, BaseURL: baseURL, Model: "fake-killed", APIKeyEnv: "CLINSQL_TEST_KEY",
		Sampling: llmfmt.Sampling{Temperature: &t0},
		Limits:   llm.Limits{Concurrency: 2, Timeout: 5 * time.Second},
	}}
}

// TestKilledAndResumed kills (SIGKILL) a process in the middle of a run and
// resumes the run in this one: tasks finished before the kill are not
// redone, every task ends finished exactly once, no output is damaged and
// the attempt-wise success follows the schedule.
func TestKilledAndResumed(t *testing.T) {
	db, err := buildMini()
	if err != nil {
		t.Fatal(err)
	}
	tasks := syntheticTasks(killTasks)
	sched := syntheticSchedule(tasks)
	sched.Hold = 20 * time.Millisecond
	srv := llmtest.Start(t, sched.Handler(), llmtest.Options{APIKey: testKey})
	out := t.TempDir()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+srv.OpenAIBaseURL(), helperOut+"="+out, helperDB+"="+db,
		helperTasks+"="+strconv.Itoa(killTasks))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(out, "killed")
	deadline := time.Now().Add(10 * time.Minute) // a guard against a hang, not a measure
	for countSummaries(run) < 10 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child finished no 10 tasks in 60s: %s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()
	// Nothing the server billed is missing from the folder's spending:
	// every request was reserved before it was sent, and calls in flight
	// at the kill count at their reservation.
	if !srv.WaitIdle(10 * time.Second) {
		t.Fatal("the server is still handling requests of the killed child")
	}
	meter, err := llm.OpenMeter(out, killPrices, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer meter.Close()
	bp, bc := srv.Billed()
	billed, _ := killPrices.Cost("fake-killed", llm.Usage{PromptTokens: bp, CompletionTokens: bc})
	sp, _ := os.ReadFile(filepath.Join(out, llm.SpendingFile))
	st := meter.Resumed()
	if reserved := strings.Count(string(sp), `"op":"reserve"`); reserved < srv.Calls() || st.SpentUSD < billed-1e-12 {
		t.Errorf("%d requests reached the server, %d were reserved; billed $%.6f, recorded $%.6f", srv.Calls(), reserved, billed, st.SpentUSD)
	}
	before := countSummaries(run)
	if before >= killTasks {
		t.Fatalf("the child finished all %d tasks before the kill; slow it down", before)
	}
	firstRun := map[datasets.Key]bool{}
	for _, tk := range tasks {
		sum, ok, err := refinefmt.ReadSummary(run, tk.Key)
		if err != nil {
			t.Fatalf("damaged summary after the kill: %v", err)
		}
		if ok {
			if sum.Clinsql.RunID != "child" {
				t.Fatalf("%s: run %s", tk.Key, sum.Clinsql.RunID)
			}
			firstRun[tk.Key] = true
		}
	}
	askedBefore := map[string]int{}
	for _, tk := range tasks {
		askedBefore[tk.Question] = sched.Calls(tk.Question)
	}
	t.Logf("killed after %d of %d tasks (%d model calls; %d in flight, spent $%.6f, billed $%.6f)", before, killTasks, srv.Calls(), st.Unreconciled, st.SpentUSD, billed)

	ex := miniEngine(t)
	cache, err := llm.OpenCache(filepath.Join(out, "llm-cache"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(context.Background(), Options{
		Out: out, Tasks: tasks, Models: []Model{killModel(srv.OpenAIBaseURL())}, Executor: ex,
		LLM: llm.Options{Cache: cache, Meter: meter, Getenv: getenv}, Concurrency: 2, RunID: "resume",
	})
	if err != nil {
		t.Fatal(err)
	}
	mr := res.Models[0]
	if mr.Resumed != len(firstRun) || mr.Done != killTasks-len(firstRun) || len(mr.Pending) != 0 {
		t.Errorf("resumed %d (want %d), done %d (want %d), pending %v", mr.Resumed, len(firstRun), mr.Done, killTasks-len(firstRun), mr.Pending)
	}
	for _, tk := range tasks {
		sum, ok, err := refinefmt.ReadSummary(run, tk.Key)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", tk.Key, ok, err)
		}
		wantRun := "resume"
		if firstRun[tk.Key] {
			wantRun = "child"
			if n := sched.Calls(tk.Question); n != askedBefore[tk.Question] {
				t.Errorf("%s was finished before the kill, yet the model was asked again", tk.Key)
			}
		}
		if sum.Clinsql.RunID != wantRun {
			t.Errorf("%s: finished by %s, want %s", tk.Key, sum.Clinsql.RunID, wantRun)
		}
	}
	outs, err := runfolder.LoadOutputs(run)
	if err != nil || len(outs) != killTasks {
		t.Fatalf("LoadRun: %d outputs, %v", len(outs), err)
	}
	bs := mr.Summary
	if want := []int{36, 12, 6}; bs.Total != killTasks || bs.SuccessAt[0] != want[0] || bs.SuccessAt[1] != want[1] || bs.SuccessAt[2] != want[2] {
		t.Errorf("after resume: total %d, success at %v, want %v", bs.Total, bs.SuccessAt, want)
	}
	// Temporary files the kill left are cleaned when their task is redone,
	// and never named like an output.
	filepath.WalkDir(run, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), atomicfile.TempMark) && !strings.HasPrefix(d.Name(), ".") {
			t.Errorf("temporary file with an output-like name: %s", path)
		}
		return nil
	})
	llmtest.AssertNoSecret(t, out, testKey)
}

func countSummaries(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == runfolder.ExecutionSummaryFile {
			n++
		}
		return nil
	})
	return n
}
