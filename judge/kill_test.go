package judge

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

// killItems are 40 synthetic tasks with random rubrics, the same in the
// parent and the child process.
func killItems(t testing.TB) []Item {
	r := rand.New(rand.NewPCG(11, 12))
	var items []Item
	for i := range 40 {
		id := 0
		st, err := rubric.Parse([]byte(randomTree(r, &id, 3)), "sql.json", rubric.JSON)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := rubric.Parse([]byte(randomTree(r, &id, 3)), "results.json", rubric.JSON)
		if err != nil {
			t.Fatal(err)
		}
		key := datasets.Key{Split: "validation", Domain: "Kill", Difficulty: "easy", ID: fmt.Sprintf("%03d", i)}
		task := &datasets.Task{Key: key, Question: fmt.Sprintf("question %d", i), SQLRubric: st, ResultsRubric: rt}
		items = append(items, Item{Task: task, Answer: &codecheck.Answer{Key: key, Question: task.Question, SQL: fmt.Sprintf("SELECT %d", i)}})
	}
	return items
}

// killPrices price the kill tests' calls, so that the folder's spending
// record (llm.SpendingFile) can be checked against what the server billed.
var killPrices = llm.Prices{"judge-test": {Prompt: 1, Completion: 10}}

// killJudge is the judge of the kill tests, its cache and spending record
// in dir.
func killJudge(t testing.TB, url, dir string, group GroupMode) (*LLMJudge, Options, *llm.Meter) {
	j, meter := killClient(t, url, dir, nil, nil)
	return j, Options{Mode: rubric.Strict, Backend: j, Skipping: true, Tasks: 8, Leaves: 4, Group: group}, meter
}

// killClient is the LLM judge of the kill tests over url, its cache and
// spending record in dir; mod adjusts its endpoint, batch is the client's
// BatchOptions.
func killClient(t testing.TB, url, dir string, mod func(*llm.Endpoint), batch *llm.BatchOptions) (*LLMJudge, *llm.Meter) {
	cache, err := llm.OpenCache(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	meter, err := llm.OpenMeter(dir, killPrices, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { meter.Close() })
	ep := llm.Endpoint{Name: "kill", Kind: llm.KindOpenAI, BaseURL: url, Model: "judge-test", APIKeyEnv: "JUDGE_TEST_KEY",
		Sampling: llmfmt.Sampling{Temperature: new(0.0)}, Capabilities: llm.Capabilities{JSONSchema: true},
		Limits: llm.Limits{Concurrency: 2, Timeout: 5 * time.Second}, Retry: llm.Retry{MaxAttempts: 2, BaseDelay: time.Millisecond}}
	if mod != nil {
		mod(&ep)
	}
	c, err := llm.New(ep, llm.Options{Cache: cache, Meter: meter, Getenv: testGetenv, Batch: batch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	j, err := NewLLMJudge(c, LLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return j, meter
}

// TestKillChild is the child of TestKillResume: it judges until killed.
func TestKillChild(t *testing.T) {
	dir := os.Getenv("JUDGE_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestKillResume")
	}
	_, opts, _ := killJudge(t, os.Getenv("JUDGE_KILL_URL"), dir, GroupMode(os.Getenv("JUDGE_KILL_GROUP")))
	l := openLedger(t, dir, opts)
	if _, err := Run(context.Background(), killItems(t), l, opts); err != nil {
		t.Fatal(err)
	}
	t.Fatal("the child was meant to be killed before finishing")
}

// checkKillSpending: nothing the server billed is missing from the
// folder's spending record after the kill: every request it received was
// reserved before it was sent, and calls in flight at the kill count at
// their reservation.
func checkKillSpending(t *testing.T, srv *llmtest.Server, meter *llm.Meter, dir string) {
	t.Helper()
	// The requests the child had sent end as their connections close.
	if !srv.WaitIdle(10 * time.Second) {
		t.Fatal("the server is still handling requests of the killed child")
	}
	p, c := srv.Billed()
	usd, _ := killPrices.Cost("judge-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
	b, _ := os.ReadFile(filepath.Join(dir, llm.SpendingFile))
	reserved := bytes.Count(b, []byte(`"op":"reserve"`))
	st := meter.Resumed()
	t.Logf("spending after the kill: %d requests, %d reserved, %d in flight; billed $%.6f, recorded $%.6f", srv.Calls(), reserved, st.Unreconciled, usd, st.SpentUSD)
	if reserved < srv.Calls() || st.SpentUSD < usd-1e-12 {
		t.Errorf("%d requests reached the server, %d were reserved; billed $%.6f, recorded $%.6f", srv.Calls(), reserved, usd, st.SpentUSD)
	}
}

// TestKillResume really kills (SIGKILL) a process in the middle of a
// judging run, resumes in this process, and checks that every leaf is
// decided exactly once, that no finished call is made again (beyond the
// few in flight at the kill), and that the scores equal an uninterrupted
// run's; judging leaf by leaf, and in groups (a group in flight at the
// kill is judged again, its leaves once).
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	for _, g := range []GroupMode{GroupLeaf, GroupTree} {
		t.Run(string(g), func(t *testing.T) { killResume(t, g) })
	}
}

func killResume(t *testing.T, group GroupMode) {
	srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{Latency: 15 * time.Millisecond})
	dir := t.TempDir()
	items := killItems(t)
	total := leafCount(items)

	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.v")
	cmd.Env = append(os.Environ(), "JUDGE_KILL_DIR="+dir, "JUDGE_KILL_URL="+srv.OpenAIBaseURL(), "JUDGE_KILL_GROUP="+string(group))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ledgerPath := filepath.Join(dir, judgefmt.LedgerFile)
	deadline := time.Now().Add(10 * time.Minute) // a guard against a hang, not a measure
	for {
		b, _ := os.ReadFile(ledgerPath)
		if n := bytes.Count(b, []byte("\n")); n > total/3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the child did not get a third of the way in time:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Success() || ee.ProcessState.String() != "signal: killed" {
		t.Fatalf("child ended with %v, want killed:\n%s", err, out.String())
	}
	before, err := judgefmt.ReadLedger(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	callsAtKill := srv.Calls()
	requestsAtKill := len(srv.Requests())
	if len(before.Records) == 0 || len(before.Records) >= total {
		t.Fatalf("killed after %d of %d leaves", len(before.Records), total)
	}

	j, opts, meter := killJudge(t, srv.OpenAIBaseURL(), dir, group)
	checkKillSpending(t, srv, meter, dir)
	l := openLedger(t, dir, opts)
	o := mustRun(t, items, l, opts)
	if !o.Complete() {
		t.Fatalf("resume incomplete: %v", o.Stopped)
	}
	l.Close()
	after := checkDecidedOnce(t, ledgerPath, total)
	llmLeaves, grouped := 0, 0
	for _, r := range after.Records {
		if r.Source == judgefmt.SourceLLM {
			llmLeaves++
			if r.GroupSize > 1 {
				grouped++
			}
		}
	}
	if group != GroupLeaf && grouped == 0 {
		t.Error("no leaf was judged in a group")
	}
	// Every call the child finished is in the cache: the resume repeats at
	// most the calls in flight when it died (the endpoint allows 2). Calls
	// are compared by prompt, so that a retry inside either process (a slow
	// reply on a loaded machine) is not mistaken for a repeat.
	reqs := srv.Requests()
	asked := map[string]bool{}
	for _, c := range reqs[:requestsAtKill] {
		asked[c.LastUser()] = true
	}
	repeated := map[string]bool{}
	for _, c := range reqs[requestsAtKill:] {
		if asked[c.LastUser()] {
			repeated[c.LastUser()] = true
		}
	}
	if len(repeated) > 2 {
		t.Errorf("%d prompts the child had sent were sent again after the resume (at most 2 were in flight)", len(repeated))
	}
	t.Logf("%s: killed after %d of %d leaves (%d calls); resumed with %d more calls, %d cache hits; %d LLM leaves in all, %d in groups",
		group, len(before.Records), total, callsAtKill, srv.Calls()-callsAtKill, o.This.CacheHits, llmLeaves, grouped)

	// Scores equal an uninterrupted run's.
	opts.Backend = j
	fresh := mustRun(t, items, openLedger(t, t.TempDir(), opts), opts)
	if a, b := Score(o, "m").Summary.Scores, Score(fresh, "m").Summary.Scores; fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("resumed scores differ from an uninterrupted run")
	}
}

// checkDecidedOnce reads the ledger and checks that each of the total
// leaves has exactly one record.
func checkDecidedOnce(t *testing.T, path string, total int) *judgefmt.LedgerContents {
	t.Helper()
	after, err := judgefmt.ReadLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	count := map[judgefmt.LeafKey]int{}
	for _, r := range after.Records {
		count[r.Key()]++
	}
	for k, n := range count {
		if n != 1 {
			t.Errorf("%v decided %d times", k, n)
		}
	}
	if len(count) != total || len(after.Records) != total {
		t.Errorf("%d records for %d leaves, want %d", len(after.Records), len(count), total)
	}
	return after
}
