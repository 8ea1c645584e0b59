package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

var spendPrices = llm.Prices{"gpt-test": {Prompt: 1, Completion: 10}}

// billedUSD prices what the fake server billed: the provider's view.
func billedUSD(srv *llmtest.Server) float64 {
	p, c := srv.Billed()
	usd, _ := spendPrices.Cost("gpt-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
	return usd
}

// spendRun is one process's worth of calls on a folder: a meter opened on
// dir, workers calling concurrently until the meter refuses. It returns
// the calls answered and the largest cost of one call.
func spendRun(t *testing.T, srv *llmtest.Server, dir string, budget float64, run, workers int) (answered int, worst float64) {
	t.Helper()
	meter, err := llm.OpenMeter(dir, spendPrices, budget)
	if err != nil {
		t.Fatal(err)
	}
	defer meter.Close()
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100; e.Limits.Concurrency = workers }), llm.Options{Meter: meter})
	defer c.Close()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; ; i++ {
				resp, err := c.Complete(context.Background(), ask(fmt.Sprintf("run %d worker %d question %d", run, w, i)))
				if err != nil {
					if llm.KindOf(err) != llm.KindBudget {
						t.Error(err)
					}
					return
				}
				mu.Lock()
				answered++
				worst = max(worst, resp.CostUSD)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return answered, worst
}

// TestFolderBudget: the cap is on the folder. Runs resumed on one folder
// stop at the cap however many there are; the spending file never records
// less than the provider billed, and with a provider reporting 3x
// max_tokens (more than was reserved) never more than the cap plus one
// call's cost.
func TestFolderBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inflate int
	}{{"honest", 1}, {"3x max_tokens", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			const budget = 0.05
			srv := llmtest.Start(t, llmtest.Inflate(llmtest.Fixed(llmtest.Text("ok")), tc.inflate), llmtest.Options{})
			dir := t.TempDir()
			worst := 0.0
			runs := 0
			for run := range 10 {
				n, w := spendRun(t, srv, dir, budget, run, 4)
				worst = max(worst, w)
				runs++
				if n == 0 {
					break
				}
			}
			billed := billedUSD(srv)
			meter, err := llm.OpenMeter(dir, spendPrices, budget)
			if err != nil {
				t.Fatal(err)
			}
			recorded := meter.Spent()
			st := meter.Resumed()
			meter.Close()
			t.Logf("%d runs, %d calls: billed $%.5f, recorded $%.5f, one call up to $%.5f, overrun %.2fx", runs, srv.Calls(), billed, recorded, worst, st.Overrun)
			if recorded < billed-1e-12 {
				t.Errorf("recorded $%.6f, less than the $%.6f billed", recorded, billed)
			}
			if billed > budget+worst || recorded > budget+worst {
				t.Errorf("billed $%.6f, recorded $%.6f: more than the cap $%.2f plus one call ($%.6f)", billed, recorded, budget, worst)
			}
			if billed < budget/2 {
				t.Errorf("billed $%.6f: the runs stopped far below the cap", billed)
			}
			if st.Runs != runs || st.Unreconciled != 0 || st.Attempts != srv.Calls() {
				t.Errorf("file says %+v; %d runs, %d calls", st, runs, srv.Calls())
			}
			if tc.inflate > 1 && st.Overrun < 2 {
				t.Errorf("overrun %.2f not recorded", st.Overrun)
			}
		})
	}
}

// TestOverrunStops: a reply reporting more than it was reserved is
// recorded and stops a capped meter; the next process on the folder
// reserves the worst case scaled by the overrun.
func TestOverrunStops(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Inflate(llmtest.Fixed(llmtest.Text("ok")), 3), llmtest.Options{})
	dir := t.TempDir()
	meter, err := llm.OpenMeter(dir, spendPrices, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100 }), llm.Options{Meter: meter})
	resp, err := c.Complete(context.Background(), ask("first"))
	if err != nil || resp.Usage.CompletionTokens != 300 {
		t.Fatalf("first call: %+v %v", resp, err)
	}
	_, err = c.Complete(context.Background(), ask("second"))
	if llm.KindOf(err) != llm.KindBudget || !strings.Contains(err.Error(), "more than the token cap sent") || srv.Calls() != 1 {
		t.Fatalf("after an overrun: %v (%d calls)", err, srv.Calls())
	}
	if meter.Stopped() == nil {
		t.Error("the meter does not say it stopped")
	}
	meter.Close()
	c.Close()

	prices := llm.Prices{"gpt-test": spendPrices["gpt-test"], "gpt-fair": spendPrices["gpt-test"]}
	meter, err = llm.OpenMeter(dir, prices, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer meter.Close()
	st := meter.Resumed()
	// Worst case: ~8 prompt tokens at $1/M and 100 at $10/M; the reply
	// reported 300 completion tokens: nearly 3x.
	if st.Overrun < 2.9 || st.Overrun > 3 || st.Attempts != 1 || !near(st.SpentUSD, resp.CostUSD) {
		t.Errorf("resumed %+v after a call of $%.6f", st, resp.CostUSD)
	}
	c = newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100 }), llm.Options{Meter: meter})
	for i := range 3 {
		if _, err := c.Complete(context.Background(), ask(fmt.Sprint("again ", i))); err != nil {
			t.Fatalf("scaled reservations: %v", err)
		}
	}
	if meter.Stopped() != nil {
		t.Errorf("stopped although reservations cover the overrun: %v", meter.Stopped())
	}
	// Another model is not suspected for this one's overrun.
	fair := llmtest.Start(t, llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	c = newClient(t, endpoint(fair, func(e *llm.Endpoint) { e.Model = "gpt-fair"; e.Sampling.MaxTokens = 100 }), llm.Options{Meter: meter})
	if _, err := c.Complete(context.Background(), ask("fair")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, llm.SpendingFile))
	for _, line := range strings.Split(string(b), "\n") {
		var rec struct {
			Op, Model string
			WorstUSD  float64 `json:"worst_usd"`
			USD       float64 `json:"usd"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Op != "reserve" {
			continue
		}
		scale := rec.USD / rec.WorstUSD
		if rec.Model == "gpt-fair" && scale != 1 || rec.Model == "gpt-test" && scale != 1 && (scale < 2.9 || scale > 3) {
			t.Errorf("%s reserved %.2fx its worst case", rec.Model, scale)
		}
	}
}

// TestUnknownUsageCharged: an attempt sent without a usable reply is
// charged at its reservation (the provider may have billed it); one that
// got an error status, or never reached the server, costs nothing.
func TestUnknownUsageCharged(t *testing.T) {
	down := llmtest.New(llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	down.Close()
	for _, tc := range []struct {
		name    string
		srv     *llmtest.Server
		charged int // attempts charged at their reservation
	}{
		{"timeout", llmtest.Start(t, llmtest.Fixed(llmtest.Hang()), llmtest.Options{}), 2},
		{"cut off", llmtest.Start(t, llmtest.Fixed(llmtest.Broken(llmtest.CutOff)), llmtest.Options{}), 2},
		{"nonsense usage", llmtest.Start(t, noUsage, llmtest.Options{}), 1},
		{"server error", llmtest.Start(t, llmtest.Fixed(llmtest.ServerError(500)), llmtest.Options{}), 0},
		{"connection refused", down, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			meter, err := llm.OpenMeter(dir, spendPrices, 0)
			if err != nil {
				t.Fatal(err)
			}
			c := newClient(t, endpoint(tc.srv, func(e *llm.Endpoint) {
				e.Sampling.MaxTokens = 100
				e.Retry = llm.Retry{MaxAttempts: 2, Budget: time.Minute, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
			}), llm.Options{Meter: meter, WithTimeout: tc.srv.Timeouts()}) // an attempt times out when the server hangs on it
			_, _ = c.Complete(context.Background(), ask("question"))
			spent := meter.Spent()
			meter.Close()
			// Each attempt reserves ~8 prompt tokens and 100 completion
			// tokens: a little over $0.001.
			if n := float64(tc.charged); spent < n*0.001 || spent > n*0.00102 {
				t.Errorf("charged $%.6f, want %d reservations", spent, tc.charged)
			}
		})
	}
}

// noUsage reports negative token counts: no usable usage.
func noUsage(c *llmtest.Call) llmtest.Reply {
	r := llmtest.Text("ok")
	r.PromptTokens, r.CompletionTokens = -1, -1
	return r
}

// TestSpendingFile: damage is reported with the file and line; a torn last
// line (a write cut short) is dropped; a second process is refused.
func TestSpendingFile(t *testing.T) {
	const reserve = `{"op":"reserve","id":"a-1","time":"2026-01-01T00:00:00Z","worst_usd":0.5,"usd":0.5}` + "\n"
	const settle = `{"op":"settle","id":"a-1","time":"2026-01-01T00:00:01Z","usd":0.25,"usage":"reported"}` + "\n"
	for _, tc := range []struct {
		name, content, want string
		spent               float64
	}{
		{"settled", reserve + settle, "", 0.25},
		{"in flight at a kill", reserve, "", 0.5},
		{"torn settle", reserve + settle[:20], "", 0.5},
		{"damaged", reserve + "{oops\n" + settle, "line 2", 0},
		{"unknown reservation", settle, "line 1: settles \"a-1\", which has no open reservation", 0},
		{"negative", strings.Replace(reserve, "0.5}", "-1}", 1), "line 1: usd must be a non-negative number", 0},
		{"unknown op", `{"op":"refund","time":"2026-01-01T00:00:00Z","usd":1}` + "\n", `unknown op "refund"`, 0},
		{"too long", strings.Repeat(" ", 70<<10) + "\n", "longer than", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, llm.SpendingFile)
			os.WriteFile(path, []byte(tc.content), 0o644)
			m, err := llm.OpenMeter(dir, spendPrices, 1)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %s and %q", err, path, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if !near(m.Spent(), tc.spent) {
				t.Errorf("spent $%v, want $%v", m.Spent(), tc.spent)
			}
			b, _ := os.ReadFile(path)
			if !strings.HasSuffix(string(b), "\n") || strings.Contains(string(b), settle[:20]+`{"op"`) {
				t.Errorf("file after open:\n%s", b)
			}
		})
	}

	dir := t.TempDir()
	m, err := llm.OpenMeter(dir, spendPrices, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.OpenMeter(dir, spendPrices, 1); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("second meter on a folder: %v", err)
	}
	m.Close()
	m, err = llm.OpenMeter(dir, spendPrices, 1)
	if err != nil {
		t.Errorf("after Close: %v", err)
	}
	m.Close()
}

// TestReserveWaits: near the cap a reservation waits for the calls in
// flight instead of failing, and gives up when its context ends.
func TestReserveWaits(t *testing.T) {
	release := make(chan struct{})
	srv := llmtest.Start(t, func(c *llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt(), "slow") {
			<-release
		}
		return llmtest.Text("ok")
	}, llmtest.Options{})
	// One call reserves ~$0.001: with $0.003 left the headroom rule lets
	// only one run at a time.
	meter := llm.NewMeter(spendPrices, 0.003)
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100 }), llm.Options{Meter: meter})
	slow := make(chan error, 1)
	go func() {
		_, err := c.Complete(context.Background(), ask("slow"))
		slow <- err
	}()
	for srv.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Complete(ctx, ask("fast")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting reservation: %v", err)
	}
	if srv.Calls() != 1 {
		t.Errorf("%d calls in flight, want 1", srv.Calls())
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Complete(context.Background(), ask("fast"))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the waiting call: %v", err)
	}
}

// TestOverReportedUsage: a provider reporting 20 times the token cap it
// was sent, to 8 workers under a cap. The first call of the model goes
// alone (no call of it has yet settled within its reservation), so the
// overrun stops the meter before any other call is sent: the cap is
// passed by at most that call (it was passed by every call in flight).
// A provider that turns to over-reporting after honest replies still
// passes the cap by the calls in flight at the turn (a documented limit);
// either way the stop message, read once the run ended, states the
// folder's total.
func TestOverReportedUsage(t *testing.T) {
	honest := llmtest.Text("ok")
	honest.CompletionTokens = 100 // the whole cap: each call costs its reservation
	for _, tc := range []struct {
		name    string
		h       llmtest.Handler
		bounded bool // by the cap plus one call
	}{
		{"from the first call", llmtest.Inflate(llmtest.Fixed(llmtest.Text("ok")), 20), true},
		{"after 30 honest calls", func() llmtest.Handler {
			var n atomic.Int64
			inflated := llmtest.Inflate(llmtest.Fixed(llmtest.Text("ok")), 20)
			return func(c *llmtest.Call) llmtest.Reply {
				if n.Add(1) <= 30 {
					return honest
				}
				return inflated(c)
			}
		}(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const budget = 0.1
			srv := llmtest.Start(t, tc.h, llmtest.Options{Latency: 20 * time.Millisecond})
			meter, err := llm.OpenMeter(t.TempDir(), spendPrices, budget)
			if err != nil {
				t.Fatal(err)
			}
			defer meter.Close()
			c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100; e.Limits.Concurrency = 8 }), llm.Options{Meter: meter})
			var mu sync.Mutex
			var stopped error
			one := 0.0
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Go(func() {
					for i := 0; ; i++ {
						resp, err := c.Complete(context.Background(), ask(fmt.Sprintf("worker %d question %d", w, i)))
						mu.Lock()
						one = max(one, resp.CostUSD)
						if err != nil && stopped == nil {
							stopped = err
						}
						mu.Unlock()
						if err != nil {
							if llm.KindOf(err) != llm.KindBudget {
								t.Error(err)
							}
							return
						}
					}
				})
			}
			wg.Wait()
			billed := billedUSD(srv)
			t.Logf("%d calls, billed $%.4f on a cap of $%.2f (one call up to $%.4f); %v", srv.Calls(), billed, budget, one, stopped)
			if tc.bounded && billed > budget+one+1e-12 {
				t.Errorf("billed $%.4f: the cap $%.2f passed by more than one call ($%.4f)", billed, budget, one)
			}
			if spent := meter.Spent(); spent < billed-1e-12 || stopped == nil || !strings.Contains(stopped.Error(), fmt.Sprintf("spent $%.4f of $%.4f", spent, budget)) {
				t.Errorf("recorded $%.4f; stop message %q does not state it", spent, stopped)
			}
		})
	}
}

// TestSpendingCompacted: a spending file past its size bound is compacted
// when a meter opens it: one summary line stands for its settled lines,
// its open reservations stay (a later run settles them), and the totals,
// the runs, the overrun a model showed and what it earned are unchanged,
// so the next start reads a few lines instead of every run's.
func TestSpendingCompacted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, llm.SpendingFile)
	var b strings.Builder
	b.WriteString(`{"op":"open","time":"2026-01-01T00:00:00Z","pid":1,"usd":0}` + "\n")
	const n = 8000 // about 2 MB
	for i := range n {
		fmt.Fprintf(&b, `{"op":"reserve","id":"aa-%d","time":"2026-01-01T00:00:00Z","endpoint":"fake","model":"gpt-test","prompt_tokens":10,"completion_tokens":100,"worst_usd":0.001,"usd":0.001}`+"\n", i)
		usd, over := "0.0005", ""
		if i == 7 {
			usd, over = "0.003", `,"overrun":true`
		}
		fmt.Fprintf(&b, `{"op":"settle","id":"aa-%d","time":"2026-01-01T00:00:01Z","prompt_tokens":10,"completion_tokens":40,"usd":%s,"usage":"reported"%s}`+"\n", i, usd, over)
	}
	// A call in flight when that run was killed.
	b.WriteString(`{"op":"reserve","id":"aa-open","time":"2026-01-01T00:00:02Z","endpoint":"fake","model":"gpt-test","worst_usd":0.001,"usd":0.001}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want := 0.0005*(n-1) + 0.003 + 0.001
	open := func() llm.FolderSpending {
		t.Helper()
		m, err := llm.OpenMeter(dir, spendPrices, 0)
		if err != nil {
			t.Fatal(err)
		}
		st := m.Resumed()
		if !near(m.Spent(), want) {
			t.Errorf("spent $%.6f, want $%.6f", m.Spent(), want)
		}
		m.Close()
		return st
	}
	st := open()
	fi, _ := os.Stat(path)
	t.Logf("%d bytes: compacted %d lines to %d bytes; %+v", b.Len(), st.Compacted, fi.Size(), st)
	if st.Compacted != 2*n+2 || fi.Size() > 1000 {
		t.Errorf("compacted %d lines to %d bytes", st.Compacted, fi.Size())
	}
	if st.Runs != 1 || st.Attempts != n || st.Unreconciled != 1 || st.Overrun != 3 {
		t.Errorf("after compaction %+v", st)
	}
	again := open()
	if again.Compacted != 0 || again.Runs != 2 || again.Attempts != n || again.Unreconciled != 1 || again.Overrun != 3 {
		t.Errorf("reopened: %+v", again)
	}
	// A second process is refused while the meter holds the compacted file.
	m, err := llm.OpenMeter(dir, spendPrices, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := llm.OpenMeter(dir, spendPrices, 0); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("second meter on a compacted folder: %v", err)
	}
}
