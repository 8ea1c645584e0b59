package llm_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMeterCountsTokensAndDollars(t *testing.T) {
	r := llmtest.Text("ok")
	r.PromptTokens, r.CompletionTokens = 1000, 200
	srv := llmtest.Start(t, llmtest.Then(llmtest.Fixed(r), llmtest.ServerError(500)), llmtest.Options{})
	meter := llm.NewMeter(llm.Prices{"gpt-test": {Prompt: 2, Completion: 10}}, 0)
	cache, _ := llm.OpenCache(t.TempDir())
	var sl llmtest.Sleeper
	c := newClient(t, endpoint(srv, nil), llm.Options{Meter: meter, Cache: cache, Sleep: sl.Sleep})
	resp, err := c.Complete(context.Background(), ask("a"))
	if err != nil {
		t.Fatal(err)
	}
	// $2/M * 1000 + $10/M * 200 = 0.002 + 0.002
	if resp.Usage != (llm.Usage{PromptTokens: 1000, CompletionTokens: 200}) || !near(resp.CostUSD, 0.004) {
		t.Errorf("resp usage %+v cost %v", resp.Usage, resp.CostUSD)
	}
	if _, err := c.Complete(context.Background(), ask("a")); err != nil { // cache hit: free
		t.Fatal(err)
	}
	got := meter.Total()
	want := llm.Tally{Calls: 2, CacheHits: 1, Attempts: 2, PromptTokens: 1000, CompletionTokens: 200, CostUSD: 0.004}
	if !near(got.CostUSD, want.CostUSD) {
		t.Errorf("cost %v, want %v", got.CostUSD, want.CostUSD)
	}
	got.CostUSD = want.CostUSD
	if got != want {
		t.Errorf("tally %+v, want %+v", got, want)
	}
	if by := meter.ByEndpoint(); len(by) != 1 || by["fake"].Calls != 2 {
		t.Errorf("by endpoint %+v", by)
	}
}

func TestBudgetCap(t *testing.T) {
	r := llmtest.Text("ok")
	r.CompletionTokens = 100
	srv := llmtest.Start(t, llmtest.Fixed(r), llmtest.Options{})
	// Each call costs $0.001 for its 100 completion tokens plus a few
	// prompt tokens (the fake counts 1 per 4 bytes + 1, below the client's
	// estimate), and reserves the estimate plus max_tokens 100: five fit
	// in $0.0055, a sixth reservation would not.
	prices := llm.Prices{"gpt-test": {Prompt: 1, Completion: 10}}
	meter := llm.NewMeter(prices, 0.0055)
	dir := t.TempDir()
	cache, _ := llm.OpenCache(dir)
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100 }), llm.Options{Meter: meter, Cache: cache})
	var done, refused int
	var firstRefusal int
	for i := range 10 {
		_, err := c.Complete(context.Background(), ask(fmt.Sprint("question ", i)))
		switch llm.KindOf(err) {
		case "":
			if refused > 0 {
				t.Fatalf("call %d succeeded after a refusal", i)
			}
			done++
		case llm.KindBudget:
			if refused == 0 {
				firstRefusal = i
			}
			refused++
		default:
			t.Fatal(err)
		}
	}
	if done != 5 || refused != 5 {
		t.Errorf("done %d, refused %d (first refusal at %d), want 5 and 5", done, refused, firstRefusal)
	}
	if srv.Calls() != done {
		t.Errorf("server saw %d calls, want %d: a refused call was sent", srv.Calls(), done)
	}
	if n, _ := cache.Len(); n != done {
		t.Errorf("%d cache entries for %d calls", n, done)
	}
	tot := meter.Total()
	if tot.CostUSD > meter.Budget() || !near(tot.CostUSD, 5*(0.001+float64(tot.PromptTokens)/5/1e6)) || tot.Failures != 5 || tot.PromptTokens == 0 {
		t.Errorf("total %+v", tot)
	}
	// What was done stays available: cache hits need no budget.
	if resp, err := c.Complete(context.Background(), ask("question 0")); err != nil || !resp.FromCache {
		t.Errorf("cached call after the cap: %+v %v", resp, err)
	}
}

func TestBudgetCapConcurrent(t *testing.T) {
	// Usage within the reservation (the fake's prompt count is below the
	// client's estimate, completions use max_tokens): the cap must hold
	// exactly, however the calls interleave.
	r := llmtest.Text("ok")
	r.CompletionTokens = 100
	srv := llmtest.Start(t, llmtest.Fixed(r), llmtest.Options{})
	meter := llm.NewMeter(llm.Prices{"gpt-test": {Prompt: 1, Completion: 10}}, 0.02)
	c := newClient(t, endpoint(srv, func(e *llm.Endpoint) { e.Sampling.MaxTokens = 100; e.Limits.Concurrency = 8 }), llm.Options{Meter: meter})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			_, err := c.Complete(context.Background(), ask(fmt.Sprint(i)))
			if k := llm.KindOf(err); k != "" && k != llm.KindBudget {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if tot := meter.Total(); tot.CostUSD > 0.02+1e-12 || tot.Calls != srv.Calls() || tot.Calls+tot.Failures != 50 || tot.Calls < 15 {
		t.Errorf("total %+v, server calls %d", tot, srv.Calls())
	}
}

func TestBudgetNeedsPrices(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("ok")), llmtest.Options{})
	_, err := llm.New(endpoint(srv, nil), llm.Options{Getenv: getenv, Meter: llm.NewMeter(llm.Prices{}, 1)})
	if err == nil || !strings.Contains(err.Error(), "no price") {
		t.Fatalf("err = %v", err)
	}
}

func TestPricesFile(t *testing.T) {
	p, err := llm.LoadPrices(filepath.Join("testdata", "prices.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	usd, err := p.Estimate("gpt-4o-mini", 1000, 2000, 100)
	// 1000 * (2000*0.15 + 100*0.60) / 1e6 = 0.36
	if err != nil || !near(usd, 0.36) {
		t.Errorf("estimate %v, %v", usd, err)
	}
	if _, err := p.Estimate("no-such-model", 1, 1, 1); err == nil {
		t.Error("estimate for an unknown model")
	}
	// The batch API: the file's share (0.5), or 0.5 when it says none.
	for _, m := range []string{"gpt-4o-mini", "gpt-4o"} {
		on, _ := p.Estimate(m, 10, 2000, 100)
		ba, err := p.EstimateBatch(m, 10, 2000, 100)
		if err != nil || !near(ba, on/2) {
			t.Errorf("%s: batch estimate %v, online %v, %v", m, ba, on, err)
		}
	}
	third := llm.Prices{"m": {Prompt: 3, Completion: 3, Batch: new(1.0 / 3)}}
	if usd, _ := third.BatchCost("m", llm.Usage{PromptTokens: 1e6}); !near(usd, 1) {
		t.Errorf("batch share 1/3 of $3: $%v", usd)
	}

	dir := t.TempDir()
	for name, tc := range map[string]struct{ yaml, want string }{
		"negative": {"prices:\n  m: {prompt: -1, completion: 1}\n", "prices.m.prompt"},
		"unknown":  {"prices:\n  m: {prompt: 1, completoin: 1}\n", "completoin"},
		"empty":    {"prices: {}\n", "no prices"},
		"batch":    {"prices:\n  m: {prompt: 1, completion: 1, batch: 1.5}\n", "prices.m.batch"},
	} {
		path := filepath.Join(dir, name+".yaml")
		_ = os.WriteFile(path, []byte(tc.yaml), 0o644)
		_, err := llm.LoadPrices(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want file and %q", name, err, tc.want)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	msgs := []llm.Message{{Role: "user", Content: strings.Repeat("word ", 400)}}
	// 2000 bytes: about 500 tokens of English; the estimate may err high,
	// not low.
	if n := llm.EstimateTokens(msgs); n < 500 || n > 600 {
		t.Errorf("estimate %d", n)
	}
}
