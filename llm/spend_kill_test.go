package llm_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestSpendKillChild is the child of TestSpendKilled: it spends until
// killed.
func TestSpendKillChild(t *testing.T) {
	dir := os.Getenv("LLM_SPEND_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestSpendKilled")
	}
	meter, err := llm.OpenMeter(dir, spendPrices, 0)
	if err != nil {
		t.Fatal(err)
	}
	ep := llm.Endpoint{Name: "fake", Kind: llm.KindOpenAI, BaseURL: os.Getenv("LLM_SPEND_KILL_URL"), Model: "gpt-test", APIKeyEnv: "LLMTEST_KEY",
		Sampling: llmfmt.Sampling{MaxTokens: 100}, Limits: llm.Limits{Concurrency: 4, Timeout: 5 * time.Second}}
	c := newClient(t, ep, llm.Options{Meter: meter})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				if _, err := c.Complete(context.Background(), ask(fmt.Sprintf("worker %d question %d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	t.Fatal("the child was meant to be killed")
}

// TestSpendKilled kills (SIGKILL) a process in the middle of its calls and
// checks that nothing the provider billed is missing from the folder's
// spending: every request the server received has its reservation on disk,
// the calls in flight at the kill count at their reservation, and the
// folder's total is at least what the server billed. A resumed meter goes
// on from there.
func TestSpendKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	// Replies use the whole max_tokens: each call costs nearly its
	// reservation, so a call in flight missing from the record shows.
	r := llmtest.Text("ok")
	r.CompletionTokens = 100
	srv := llmtest.Start(t, llmtest.Fixed(r), llmtest.Options{Latency: 30 * time.Millisecond})
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpendKillChild$", "-test.v")
	cmd.Env = append(os.Environ(), "LLM_SPEND_KILL_DIR="+dir, "LLM_SPEND_KILL_URL="+srv.OpenAIBaseURL())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, llm.SpendingFile)
	deadline := time.Now().Add(10 * time.Minute) // a guard against a hang, not a measure
	for {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte(`"op":"settle"`)) >= 40 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the child made too few calls in time:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || cmd.ProcessState.String() != "signal: killed" {
		t.Fatalf("child ended with %v, want killed:\n%s", err, out.String())
	}
	// The requests the child had sent end as their connections close.
	if !srv.WaitIdle(10 * time.Second) {
		t.Fatal("the server is still handling requests of the killed child")
	}
	billed := billedUSD(srv)

	b, _ := os.ReadFile(path)
	reserved := bytes.Count(b, []byte(`"op":"reserve"`))
	meter, err := llm.OpenMeter(dir, spendPrices, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer meter.Close()
	st := meter.Resumed()
	t.Logf("killed after %d requests: %d reservations, %d in flight ($%.6f); billed $%.6f, recorded $%.6f",
		srv.Calls(), reserved, st.Unreconciled, st.UnreconciledUSD, billed, st.SpentUSD)
	if reserved < srv.Calls() {
		t.Errorf("%d requests reached the server, %d were reserved", srv.Calls(), reserved)
	}
	if st.SpentUSD < billed-1e-12 {
		t.Errorf("recorded $%.6f, less than the $%.6f billed", st.SpentUSD, billed)
	}
	if st.Unreconciled == 0 {
		t.Error("no call was in flight at the kill: the test did not test it")
	}
	if st.Runs != 1 || st.Attempts+st.Unreconciled != reserved {
		t.Errorf("resumed %+v from %d reservations", st, reserved)
	}

	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100 }), llm.Options{Meter: meter})
	before := meter.Spent()
	resp, err := c.Complete(context.Background(), ask("after the kill"))
	if err != nil || !near(meter.Spent(), before+resp.CostUSD) {
		t.Errorf("resumed call: %v; spent $%.6f -> $%.6f for $%.6f", err, before, meter.Spent(), resp.CostUSD)
	}
}
