package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// batchEndpoint is endpoint in mode batch with test-sized intervals.
func batchEndpoint(srv *llmtest.Server, mod func(*llm.Endpoint)) llm.Endpoint {
	return endpoint(srv, func(ep *llm.Endpoint) {
		ep.Mode = llm.ModeBatch
		ep.Sampling.Temperature = new(0.0)
		ep.Sampling.MaxTokens = 50
		// A batch goes out when every caller of askAll waits (it
		// announces them with Client.Expect), never after a quiet time a
		// loaded machine may spend starting them.
		ep.Batch = llm.BatchLimits{Poll: time.Millisecond, Collect: time.Hour}
		if mod != nil {
			mod(ep)
		}
	})
}

// prompts are n distinct prompts.
func prompts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("question %03d", i)
	}
	return out
}

type result struct {
	resp llm.Response
	err  error
}

// askAll sends every prompt at once, as a judge run does with the
// requests that are ready, and returns the results in prompt order.
func askAll(c *llm.Client, ps []string, mod func(*llm.Request)) []result {
	out := make([]result, len(ps))
	// Each caller is a unit of work (Client.Expect) until it has its
	// result.
	c.Expect(len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() {
			defer c.Expect(-1)
			r := ask(p)
			if mod != nil {
				mod(&r)
			}
			out[i].resp, out[i].err = c.Complete(context.Background(), r)
		})
	}
	wg.Wait()
	return out
}

// answer replies with the prompt reversed, so each reply depends on its
// request.
func answer(c *llmtest.Call) llmtest.Reply {
	p := []rune(c.LastUser())
	slices.Reverse(p)
	return llmtest.Reply{Content: "answer to " + string(p), PromptTokens: 100, CompletionTokens: 20}
}

var testPrices = llm.Prices{"gpt-test": {Prompt: 2, Completion: 8}}

// TestBatchMatchesOnline: the same requests online and in batch mode get
// the same replies and send the same bodies; the batch costs half; a reply
// cached in one mode answers the other.
func TestBatchMatchesOnline(t *testing.T) {
	ps := prompts(30)
	// One server: the cache key holds the server's host.
	srv := llmtest.Start(t, answer, llmtest.Options{})
	run := func(mode llm.Mode, cache *llm.Cache) ([]result, []llmtest.Call, *llm.Meter) {
		before := len(srv.Requests())
		m := llm.NewMeter(testPrices, 0)
		// The batch goes out when all 30 callers wait (askAll announces
		// them), never after a quiet time: a loaded machine may start them
		// slowly.
		ep := batchEndpoint(srv, func(ep *llm.Endpoint) { ep.Mode = mode })
		c := newClient(t, ep, llm.Options{Cache: cache, Meter: m, Batch: &llm.BatchOptions{Dir: t.TempDir()}})
		res := askAll(c, ps, nil)
		return res, srv.Requests()[before:], m
	}
	onCache, _ := llm.OpenCache(t.TempDir())
	baCache, _ := llm.OpenCache(t.TempDir())
	on, onCalls, onMeter := run(llm.ModeOnline, onCache)
	ba, baCalls, baMeter := run(llm.ModeBatch, baCache)
	for i := range ps {
		if on[i].err != nil || ba[i].err != nil {
			t.Fatalf("%s: online %v, batch %v", ps[i], on[i].err, ba[i].err)
		}
		if on[i].resp.Text != ba[i].resp.Text || on[i].resp.CacheKey != ba[i].resp.CacheKey || on[i].resp.Usage != ba[i].resp.Usage {
			t.Errorf("%s: online %+v, batch %+v", ps[i], on[i].resp, ba[i].resp)
		}
		if ba[i].resp.Attempts != 1 {
			t.Errorf("%s: %d attempts in batch mode, want 1", ps[i], ba[i].resp.Attempts)
		}
	}
	// The bodies sent are the same JSON, temperature 0 included.
	bodies := func(calls []llmtest.Call) map[string]string {
		out := map[string]string{}
		for _, c := range calls {
			out[c.LastUser()] = string(c.Raw)
			if c.Request.Temperature == nil || *c.Request.Temperature != 0 {
				t.Errorf("%s: temperature %v sent, want 0", c.LastUser(), c.Request.Temperature)
			}
		}
		return out
	}
	onB, baB := bodies(onCalls), bodies(baCalls)
	if len(baB) != len(ps) {
		t.Fatalf("%d batch requests, want %d", len(baB), len(ps))
	}
	for p, b := range onB {
		if !jsonEqual(b, baB[p]) {
			t.Errorf("%s: online body %s, batch line body %s", p, b, baB[p])
		}
	}
	for _, c := range baCalls {
		if c.Batch == "" {
			t.Errorf("batch mode made an online call")
		}
	}
	if n := srv.BatchesCreated(); n != 1 {
		t.Errorf("%d batches for 30 requests sent at once, want 1", n)
	}
	onCost, baCost := onMeter.Total().CostUSD, baMeter.Total().CostUSD
	t.Logf("30 requests: online $%.6f, batch $%.6f", onCost, baCost)
	if onCost == 0 || !near(baCost, onCost/2) {
		t.Errorf("batch cost $%v, want half of online $%v", baCost, onCost)
	}
	// Each cache answers the other mode without a call.
	for _, x := range []struct {
		mode  llm.Mode
		cache *llm.Cache
	}{{llm.ModeOnline, baCache}, {llm.ModeBatch, onCache}} {
		before := srv.Calls()
		c := newClient(t, batchEndpoint(srv, func(ep *llm.Endpoint) { ep.Mode = x.mode }), llm.Options{Cache: x.cache, Batch: &llm.BatchOptions{Dir: t.TempDir()}})
		for i, r := range askAll(c, ps, nil) {
			if r.err != nil || !r.resp.FromCache || r.resp.Text != on[i].resp.Text {
				t.Errorf("mode %s from the other mode's cache: %+v %v", x.mode, r.resp, r.err)
			}
		}
		if srv.Calls() != before {
			t.Errorf("mode %s from the other mode's cache: %d HTTP calls, want 0", x.mode, srv.Calls()-before)
		}
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestBatchStates: each terminal state of a batch and each per-request
// error, with the online retry rules: rate limits, server errors,
// expired, cancelled and token-limited batches go back to the queue;
// refused requests and refused batches fail; a reply that fails
// validation is retried, then malformed, never a reply.
func TestBatchStates(t *testing.T) {
	const n = 5
	tests := []struct {
		name    string
		script  func(i, n int) llmtest.BatchScript
		handler llmtest.Handler
		kind    llm.ErrorKind // for every request ("" = success)
		batches []int         // sizes of the batches created
	}{
		{name: "completed", batches: []int{n}},
		{name: "slow", script: func(i, n int) llmtest.BatchScript {
			return llmtest.BatchScript{Steps: []string{"validating", "in_progress", "in_progress", "in_progress", "finalizing", "completed"}}
		}, batches: []int{n}},
		{name: "expired after 2", script: firstBatch(llmtest.BatchScript{Steps: []string{"in_progress", "expired"}, Answered: 2}), batches: []int{n, n - 2}},
		{name: "cancelled after 1", script: firstBatch(llmtest.BatchScript{Steps: []string{"in_progress", "cancelling", "cancelled"}, Answered: 1}), batches: []int{n, n - 1}},
		{name: "failed: token limit", script: firstBatch(llmtest.BatchScript{Steps: []string{"failed"}, FailCode: "token_limit_exceeded"}), batches: []int{n, n}},
		{name: "failed: invalid", script: firstBatch(llmtest.BatchScript{Steps: []string{"failed"}}), kind: llm.KindBadRequest, batches: []int{n}},
		{name: "429 then ok", handler: firstCallPerPrompt(llmtest.RateLimited("1")), batches: []int{n, n}},
		{name: "500 then ok", handler: firstCallPerPrompt(llmtest.ServerError(500)), batches: []int{n, n}},
		{name: "broken body then ok", handler: firstCallPerPrompt(llmtest.Broken(llmtest.Truncated)), batches: []int{n, n}},
		{name: "500 forever", handler: llmtest.Fixed(llmtest.ServerError(500)), kind: llm.KindServer, batches: []int{n, n, n, n}},
		{name: "invalid reply forever", handler: llmtest.Fixed(llmtest.Text("no")), kind: llm.KindMalformed, batches: []int{n, n, n, n}},
		{name: "invalid reply then ok", handler: firstCallPerPrompt(llmtest.Text("no")), batches: []int{n, n}},
		{name: "context length", handler: llmtest.Fixed(llmtest.ContextLengthExceeded()), kind: llm.KindContextLength, batches: []int{n}},
		{name: "quota", handler: llmtest.Fixed(llmtest.QuotaExceeded()), kind: llm.KindQuota, batches: []int{n}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.handler
			if h == nil {
				h = answer
			}
			srv := llmtest.Start(t, h, llmtest.Options{Batches: tc.script})
			c := newClient(t, batchEndpoint(srv, nil), llm.Options{Batch: &llm.BatchOptions{Dir: t.TempDir()}})
			res := askAll(c, prompts(n), func(r *llm.Request) {
				r.Validate = func(s string) error {
					if !strings.HasPrefix(s, "answer to ") {
						return errors.New("not an answer")
					}
					return nil
				}
			})
			attempts := 0
			for _, r := range res {
				attempts += r.resp.Attempts
				if got := llm.KindOf(r.err); got != tc.kind {
					t.Errorf("kind %q (%v), want %q", got, r.err, tc.kind)
				}
				if r.err == nil && !strings.HasPrefix(r.resp.Text, "answer to ") {
					t.Errorf("reply %q", r.resp.Text)
				}
			}
			// Each request's reply says how many batches it took.
			if sent := sum(tc.batches); tc.kind == "" && attempts != sent {
				t.Errorf("replies count %d attempts, %d requests were sent", attempts, sent)
			}
			if got := srv.BatchSizes(); !slices.Equal(got, tc.batches) {
				t.Errorf("batch sizes %v, want %v", got, tc.batches)
			}
		})
	}
}

// firstBatch scripts the first batch only; the later ones complete.
func firstBatch(s llmtest.BatchScript) func(i, n int) llmtest.BatchScript {
	return func(i, n int) llmtest.BatchScript {
		if i == 0 {
			return s
		}
		return llmtest.BatchScript{}
	}
}

// firstCallPerPrompt answers each prompt's first request with r, later
// ones with answer.
func firstCallPerPrompt(r llmtest.Reply) llmtest.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(c *llmtest.Call) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if !seen[c.LastUser()] {
			seen[c.LastUser()] = true
			return r
		}
		return answer(c)
	}
}

// TestBatchSplit: the requests over a batch's limits go into further
// batches; a request larger than a whole batch file is refused.
func TestBatchSplit(t *testing.T) {
	tests := []struct {
		name   string
		limits llm.BatchLimits
		n      int
		sizes  []int
		kind   llm.ErrorKind
	}{
		{name: "requests", limits: llm.BatchLimits{MaxRequests: 3}, n: 10, sizes: []int{3, 3, 3, 1}},
		{name: "bytes", limits: llm.BatchLimits{MaxBytes: 1000}, n: 10},
		{name: "one request too large", limits: llm.BatchLimits{MaxBytes: 100}, n: 2, kind: llm.KindBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t, answer, llmtest.Options{})
			ep := batchEndpoint(srv, func(ep *llm.Endpoint) {
				ep.Batch.MaxRequests, ep.Batch.MaxBytes = tc.limits.MaxRequests, tc.limits.MaxBytes
			})
			c := newClient(t, ep, llm.Options{Batch: &llm.BatchOptions{Dir: t.TempDir()}})
			for _, r := range askAll(c, prompts(tc.n), nil) {
				if llm.KindOf(r.err) != tc.kind {
					t.Fatalf("kind %q (%v), want %q", llm.KindOf(r.err), r.err, tc.kind)
				}
			}
			sizes := srv.BatchSizes()
			if tc.sizes != nil && !slices.Equal(sizes, tc.sizes) {
				t.Errorf("batch sizes %v, want %v", sizes, tc.sizes)
			}
			if tc.name == "bytes" {
				// Each line is about 300 bytes: 3 fit in 1000.
				if len(sizes) < 4 || slices.Max(sizes) > 3 {
					t.Errorf("batch sizes %v under a 1000-byte limit", sizes)
				}
			}
			total := 0
			for _, k := range srv.Submitted() {
				total += k
			}
			if tc.kind == "" && total != tc.n {
				t.Errorf("%d requests submitted, want %d", total, tc.n)
			}
		})
	}
}

var errKilled = errors.New("killed")

// TestBatchKill abandons a client at each point where a kill -9 leaves the
// folder in a different state, then resumes with a new client on the same
// folder, cache and spending file: every request is answered exactly once
// by the provider, none is submitted twice, and the second run gets every
// reply.
func TestBatchKill(t *testing.T) {
	const n = 12
	for _, step := range []string{"prepare", "upload", "uploaded", "create", "created", "poll", "download", "downloaded", "resolved"} {
		t.Run(step, func(t *testing.T) {
			srv := llmtest.Start(t, answer, llmtest.Options{})
			dir := t.TempDir()
			cache, err := llm.OpenCache(filepath.Join(dir, "cache"))
			if err != nil {
				t.Fatal(err)
			}
			ep := batchEndpoint(srv, func(ep *llm.Endpoint) { ep.Batch.MaxRequests = 5 })
			open := func(hook func(string) error) (*llm.Client, *llm.Meter) {
				m, err := llm.OpenMeter(dir, testPrices, 10)
				if err != nil {
					t.Fatal(err)
				}
				c, err := llm.New(ep, llm.Options{Getenv: getenv, Cache: cache, Meter: m, Batch: &llm.BatchOptions{Dir: dir, Step: hook}})
				if err != nil {
					t.Fatal(err)
				}
				return c, m
			}
			killed := false
			c1, m1 := open(func(s string) error {
				if s == step && !killed {
					killed = true
					return errKilled
				}
				return nil
			})
			first := askAll(c1, prompts(n), nil)
			c1.Close()
			m1.Close()
			if !killed {
				t.Fatalf("step %q never reached", step)
			}
			answered := 0
			for _, r := range first {
				if r.err == nil {
					answered++
				}
			}
			if answered == n {
				t.Fatalf("the killed run answered every request")
			}
			c2, m2 := open(nil)
			defer m2.Close()
			defer c2.Close()
			for i, r := range askAll(c2, prompts(n), nil) {
				want := "answer to " + reverse(prompts(n)[i])
				if r.err != nil || r.resp.Text != want {
					t.Errorf("resumed: %q, %v; want %q", r.resp.Text, r.err, want)
				}
			}
			checkOnce(t, srv, n)
			// A file is uploaded again only if its upload was never
			// recorded (and then no batch was created from it).
			wantUploads := srv.BatchesCreated()
			if step == "uploaded" {
				wantUploads++
			}
			if got := srv.Uploads(); got != wantUploads {
				t.Errorf("%d files uploaded for %d batches", got, srv.BatchesCreated())
			}
			// The spending file is whole, and the folder's record is never
			// below what the provider billed (at the batch price): the
			// killed run's reservations count in full, and nothing resumed
			// is reserved again.
			st := m2.Resumed()
			if st.Runs != 1 {
				t.Errorf("spending file: %d earlier runs, want 1", st.Runs)
			}
			p, c := srv.Billed()
			billed, _ := testPrices.BatchCost("gpt-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
			if spent := m2.Spent(); spent < billed-1e-12 {
				t.Errorf("folder spent $%.6f, provider billed $%.6f", spent, billed)
			}
			if step != "prepare" && step != "upload" && step != "uploaded" && st.Unreconciled == 0 {
				t.Errorf("no reservation of the killed run's batch is left counted")
			}
			// Once the resumed run has read every result, the killed run's
			// reservations are settled at what the provider billed: none is
			// left counting at its worst case.
			c2.Close()
			m2.Close()
			m3, err := llm.OpenMeter(dir, testPrices, 10)
			if err != nil {
				t.Fatal(err)
			}
			defer m3.Close()
			if st := m3.Resumed(); st.Unreconciled != 0 || !near(st.SpentUSD, billed) {
				t.Errorf("after the resumed run: folder spent $%.6f with %d reservations open ($%.6f), provider billed $%.6f", st.SpentUSD, st.Unreconciled, st.UnreconciledUSD, billed)
			}
		})
	}
}

// checkOnce checks that n requests were submitted, each in one batch, and
// that the provider answered each once.
func checkOnce(t *testing.T, srv *llmtest.Server, n int) {
	t.Helper()
	sub := srv.Submitted()
	if len(sub) != n {
		t.Errorf("%d requests submitted, want %d", len(sub), n)
	}
	for id, k := range sub {
		if k != 1 {
			t.Errorf("request %s submitted in %d batches", id[:12], k)
		}
	}
	per := map[string]int{}
	for _, c := range srv.Requests() {
		per[c.CustomID]++
	}
	for id, k := range per {
		if k != 1 {
			t.Errorf("request %s answered %d times", id[:12], k)
		}
	}
}

func reverse(s string) string {
	p := []rune(s)
	slices.Reverse(p)
	return string(p)
}

// TestBatchWait: a batch that outlasts the wait leaves its requests
// pending (KindBatchPending) and recorded; a later client resumes it
// without submitting anything again.
//
// The first client's clock jumps past its wait when the provider creates
// the batch: the batcher checks the wait between its steps, so the batch
// is recorded first however loaded the machine (a wait of 200 ms could
// run out before it was created). The second client's wait may run out
// at any time: its requests are pending either way.
func TestBatchWait(t *testing.T) {
	var late atomic.Bool
	srv := llmtest.Start(t, answer, llmtest.Options{Batches: func(i, n int) llmtest.BatchScript {
		late.Store(true)
		return llmtest.BatchScript{Steps: []string{"in_progress"}}
	}})
	now := func() time.Time {
		if late.Load() {
			return time.Now().Add(2 * time.Hour)
		}
		return time.Now()
	}
	dir := t.TempDir()
	ep := batchEndpoint(srv, nil)
	c1 := newClient(t, ep, llm.Options{Now: now, Batch: &llm.BatchOptions{Dir: dir, Wait: time.Hour}})
	ps := prompts(4)
	for _, r := range askAll(c1, ps, nil) {
		if llm.KindOf(r.err) != llm.KindBatchPending {
			t.Fatalf("kind %q (%v), want batch_pending", llm.KindOf(r.err), r.err)
		}
	}
	// A request after the wait ran out is not sent.
	if _, err := c1.Complete(context.Background(), ask("late")); llm.KindOf(err) != llm.KindBatchPending {
		t.Errorf("late request: %v, want batch_pending", err)
	}
	c1.Close()
	journal, err := os.ReadFile(filepath.Join(dir, llm.BatchJournalName(ep)))
	if err != nil || !strings.Contains(string(journal), `"op":"created"`) {
		t.Fatalf("journal %s, %v: want the created batch recorded", journal, err)
	}
	// Still running: the next run waits again and submits nothing new.
	c2 := newClient(t, ep, llm.Options{Batch: &llm.BatchOptions{Dir: dir, Wait: 100 * time.Millisecond}})
	for _, r := range askAll(c2, ps, nil) {
		if llm.KindOf(r.err) != llm.KindBatchPending {
			t.Fatalf("second run: kind %q (%v), want batch_pending", llm.KindOf(r.err), r.err)
		}
	}
	c2.Close()
	// The provider finishes it; the third run reads the results.
	srv.CompleteBatches()
	var progress []llm.BatchProgress
	c3 := newClient(t, ep, llm.Options{Batch: &llm.BatchOptions{Dir: dir, Progress: func(p llm.BatchProgress) { progress = append(progress, p) }}})
	for _, r := range askAll(c3, ps, nil) {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	if got := srv.BatchSizes(); !slices.Equal(got, []int{4}) {
		t.Errorf("batches %v, want one of 4", got)
	}
	c3.Close() // progress is reported after the batch is marked done
	last := progress[len(progress)-1]
	if last.Submitted != 1 || last.Done != 1 || last.InProgress != 0 || last.Requests != 4 || last.Answered != 4 {
		t.Errorf("progress %+v", last)
	}
}

// TestBatchBudget: batch requests are booked at their worst case, at the
// batch price, when they are submitted; those that do not fit are refused
// before anything is sent.
func TestBatchBudget(t *testing.T) {
	srv := llmtest.Start(t, answer, llmtest.Options{})
	dir := t.TempDir()
	ep := batchEndpoint(srv, nil)
	// Worst case per request: prompt estimate (about 10 tokens) + 50
	// completion tokens, at half of $2/$8 per million.
	worst := (float64(llm.EstimateTokens([]llm.Message{{Role: "user", Content: "question 000"}}))*2 + 50*8) / 1e6 / 2
	m, err := llm.OpenMeter(dir, testPrices, worst*3.5)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := newClient(t, ep, llm.Options{Meter: m, Batch: &llm.BatchOptions{Dir: dir}})
	ok, refused := 0, 0
	for _, r := range askAll(c, prompts(6), nil) {
		switch llm.KindOf(r.err) {
		case "":
			ok++
		case llm.KindBudget:
			refused++
		default:
			t.Errorf("%v", r.err)
		}
	}
	if ok == 0 || refused == 0 || ok+refused != 6 {
		t.Errorf("%d answered, %d refused by the budget", ok, refused)
	}
	total := 0
	for _, k := range srv.Submitted() {
		total += k
	}
	if total != ok {
		t.Errorf("%d requests submitted, %d answered: a refused request was sent", total, ok)
	}
	spend, _ := os.ReadFile(filepath.Join(dir, llm.SpendingFile))
	if strings.Count(string(spend), `"batch":true`) != ok {
		t.Errorf("spending file holds %d batch reservations, want %d:\n%s", strings.Count(string(spend), `"batch":true`), ok, spend)
	}
}

// TestBatchAzure: on Azure the lines name the deployment in the body and
// use the url /chat/completions; files and batches go to /openai/...
// with the api-version.
func TestBatchAzure(t *testing.T) {
	srv := llmtest.Start(t, answer, llmtest.Options{})
	ep := batchEndpoint(srv, func(ep *llm.Endpoint) {
		ep.Kind, ep.BaseURL, ep.Deployment, ep.APIVersion = llm.KindAzure, srv.URL, "my-deployment", "2024-10-21"
	})
	c := newClient(t, ep, llm.Options{Batch: &llm.BatchOptions{Dir: t.TempDir()}})
	for _, r := range askAll(c, prompts(3), nil) {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	for _, call := range srv.Requests() {
		if call.Path != "/chat/completions" || call.Request.Model != "my-deployment" || !call.Azure {
			t.Errorf("batch line: url %s, model %q, azure %v", call.Path, call.Request.Model, call.Azure)
		}
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// TestBatchAPIFaults: the batch API's own calls fail now and then. An
// upload or a poll that fails is tried again; a create whose reply was
// lost is not repeated blindly: the batch it created is found by its
// metadata, so nothing is submitted twice.
func TestBatchAPIFaults(t *testing.T) {
	for _, op := range []string{"upload", "create", "retrieve", "content"} {
		t.Run(op, func(t *testing.T) {
			srv := llmtest.Start(t, answer, llmtest.Options{BatchFaults: map[string]int{op: 2}})
			c := newClient(t, batchEndpoint(srv, func(ep *llm.Endpoint) {
				ep.Retry.BaseDelay, ep.Retry.MaxDelay = time.Millisecond, time.Millisecond
			}), llm.Options{Batch: &llm.BatchOptions{Dir: t.TempDir()}})
			for _, r := range askAll(c, prompts(6), nil) {
				if r.err != nil {
					t.Fatal(r.err)
				}
			}
			if n := srv.BatchesCreated(); n != 1 {
				t.Errorf("%d batches created, want 1", n)
			}
			for id, n := range srv.Submitted() {
				if n != 1 {
					t.Errorf("request %s submitted %d times", id[:12], n)
				}
			}
		})
	}
}

// TestBatchExpect: with units of work announced (Client.Expect), a batch
// goes out as soon as every unit waits on a request, however long the
// collect window; not before.
func TestBatchExpect(t *testing.T) {
	srv := llmtest.Start(t, answer, llmtest.Options{})
	c := newClient(t, batchEndpoint(srv, func(ep *llm.Endpoint) { ep.Batch.Collect = time.Hour }), llm.Options{Batch: &llm.BatchOptions{Dir: t.TempDir()}})
	c.Expect(1) // a sixth unit of work beside askAll's five
	done := make(chan []result)
	go func() { done <- askAll(c, prompts(5), nil) }()
	select {
	case <-done:
		t.Fatal("sent while a sixth unit was still working")
	case <-time.After(200 * time.Millisecond):
	}
	if n := srv.BatchesCreated(); n != 0 {
		t.Fatalf("%d batches while a unit was still working", n)
	}
	c.Expect(-1) // the sixth unit ended without a request
	select {
	case res := <-done:
		for _, r := range res {
			if r.err != nil {
				t.Fatal(r.err)
			}
		}
	case <-time.After(5 * time.Minute): // a guard against a hang, not a measure
		t.Fatal("not sent once every unit waited")
	}
	if got := srv.BatchSizes(); !slices.Equal(got, []int{5}) {
		t.Errorf("batches %v, want one of 5", got)
	}
}
