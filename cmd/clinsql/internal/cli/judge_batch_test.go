package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestJudgeBatchWait: clinsql judge with an endpoint in mode batch whose
// batch outlasts --batch-wait exits 3 with the batch recorded in --out;
// run again after the provider finished, it collects the batch, sends
// nothing twice and finishes with every leaf decided once. The estimate
// shows the online and the batch price.
//
// The wait runs out on an event, not a time: the command's clock jumps
// past --batch-wait when the provider creates the batch. The client checks
// the wait between its steps, so the batch is recorded first, however
// slowly a loaded machine gets there (a wait of 300 ms could run out
// before the batch was created). The collect window only delays a batch
// (a loaded machine may split the first into several, which changes
// nothing here).
func TestJudgeBatchWait(t *testing.T) {
	dir, _ := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	var slow, late atomic.Bool // the provider is slow during the first run
	slow.Store(true)
	now := func() time.Time {
		if late.Load() {
			return time.Now().Add(2 * time.Hour)
		}
		return time.Now()
	}
	srv := llmtest.Start(t, fakeJudge(func(string) string { return "pass" }), llmtest.Options{APIKey: "secret",
		Batches: func(i, n int) llmtest.BatchScript {
			if slow.Load() {
				late.Store(true)
				return llmtest.BatchScript{Steps: []string{"validating", "in_progress"}}
			}
			return llmtest.BatchScript{}
		}})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	b, _ := os.ReadFile(cfg)
	batched := strings.Replace(string(b), "  retry:", "  mode: batch\n  batch: {poll: 1ms, collect: 50ms}\n  retry:", 1)
	if err := os.WriteFile(cfg, []byte(batched), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := runWithClock(t, dir, now, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg, "--batch-wait", "1h")
	if code != exitIncomplete || !strings.Contains(stderr, "batch wait") || !strings.Contains(stderr, "in batch mode") || !strings.Contains(stderr, "1 submitted, 1 in progress") {
		t.Fatalf("exit %d, want %d:\n%s", code, exitIncomplete, stderr)
	}
	journal, err := os.ReadFile(filepath.Join(out, llm.BatchJournalName(llm.Endpoint{Name: "fake"})))
	if err != nil || !strings.Contains(string(journal), `"op":"created"`) {
		t.Fatalf("journal: %v\n%s", err, journal)
	}
	slow.Store(false)
	srv.CompleteBatches()
	code, stdout, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg)
	if code != 0 {
		t.Fatalf("resume: exit %d:\n%s\n%s", code, stdout, stderr)
	}
	checkBatchOnce(t, srv, out)
	if srv.BatchesCreated() < 2 {
		t.Errorf("%d batches: the gated leaves should have gone in a later batch", srv.BatchesCreated())
	}
}

// TestJudgeBatchDown: the provider goes down (503 on every call) right
// after the first batch is created, with no --batch-wait: clinsql judge
// stops within retry.down_after with exit code 3 and the reason, the
// batch recorded as created and not done; run again once the provider is
// back, it polls that batch by its id, submits nothing twice and decides
// every leaf once.
func TestJudgeBatchDown(t *testing.T) {
	dir, _ := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	var srv *llmtest.Server
	var downed atomic.Bool
	srv = llmtest.Start(t, fakeJudge(func(string) string { return "pass" }), llmtest.Options{APIKey: "secret",
		Batches: func(i, n int) llmtest.BatchScript {
			if downed.CompareAndSwap(false, true) {
				srv.Down(llmtest.ServerError(503)) // this create's reply still goes out
			}
			return llmtest.BatchScript{}
		}})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	b, _ := os.ReadFile(cfg)
	batched := strings.Replace(string(b), "  retry: {max_attempts: 2, base_delay: 1ms}",
		"  mode: batch\n  batch: {poll: 5ms, collect: 50ms}\n  retry: {max_attempts: 100, base_delay: 1ms, max_delay: 20ms, down_after: 300ms}", 1)
	if err := os.WriteFile(cfg, []byte(batched), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg)
	if code != exitIncomplete || !strings.Contains(stderr, "declared down") || !strings.Contains(stderr, "run again") {
		t.Fatalf("exit %d, want %d with the endpoint declared down:\n%s", code, exitIncomplete, stderr)
	}
	journal, err := os.ReadFile(filepath.Join(out, llm.BatchJournalName(llm.Endpoint{Name: "fake"})))
	if err != nil || !strings.Contains(string(journal), `"op":"created"`) || strings.Contains(string(journal), `"op":"done"`) {
		t.Fatalf("journal: %v\n%s", err, journal)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg)
	if code != 0 {
		t.Fatalf("resume: exit %d:\n%s\n%s", code, stdout, stderr)
	}
	checkBatchOnce(t, srv, out)
}

// checkBatchOnce checks that no request was submitted in two batches or
// answered twice by the provider, and that out's ledger records each leaf
// once.
func checkBatchOnce(t *testing.T, srv *llmtest.Server, out string) {
	t.Helper()
	for id, n := range srv.Submitted() {
		if n != 1 {
			t.Errorf("request %s submitted %d times", id[:12], n)
		}
	}
	per := map[string]int{}
	for _, c := range srv.Requests() {
		per[c.CustomID]++
	}
	for id, n := range per {
		if n != 1 {
			t.Errorf("request %s answered %d times", id[:12], n)
		}
	}
	c, err := judgefmt.ReadLedger(filepath.Join(out, judgefmt.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[judgefmt.LeafKey]int{}
	for _, r := range c.Records {
		if seen[r.Key()]++; seen[r.Key()] > 1 {
			t.Errorf("leaf %v recorded twice", r.Key())
		}
	}
}
