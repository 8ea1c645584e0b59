package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// echo answers with a reply derived from the prompt and the seed, so a
// wrong cache hit would show as a wrong text.
func echo(c *llmtest.Call) llmtest.Reply {
	seed := -1
	if c.Request.Seed != nil {
		seed = *c.Request.Seed
	}
	return llmtest.Text(fmt.Sprintf("re:%s seed=%d", c.LastUser(), seed))
}

func TestCacheRerunMakesNoCalls(t *testing.T) {
	srv := llmtest.Start(t, echo, llmtest.Options{})
	dir := t.TempDir()
	ep := endpoint(srv, func(e *llm.Endpoint) { e.Sampling.Seed = new(1) })
	reqs := []llm.Request{ask("a"), ask("b"), ask("c")}
	second := ask("a")
	second.Sample = 1
	reqs = append(reqs, second)

	run := func(ep llm.Endpoint) []llm.Response {
		cache, err := llm.OpenCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, ep, llm.Options{Cache: cache})
		var out []llm.Response
		for _, r := range reqs {
			resp, err := c.Complete(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, resp)
		}
		return out
	}
	first := run(ep)
	if srv.Calls() != 4 {
		t.Fatalf("first run made %d calls, want 4", srv.Calls())
	}
	if first[0].Text == first[3].Text {
		t.Errorf("sample 0 and 1 got the same reply %q", first[0].Text)
	}
	// A re-run, with operational knobs and the name changed, is free.
	ep.Name = "renamed"
	ep.Retry.MaxAttempts = 2
	again := run(ep)
	if srv.Calls() != 4 {
		t.Fatalf("re-run made %d calls, want 0", srv.Calls()-4)
	}
	for i := range first {
		if !again[i].FromCache || again[i].Text != first[i].Text || again[i].CacheKey != first[i].CacheKey || again[i].Attempts != 0 {
			t.Errorf("call %d: first %+v, again %+v", i, first[i], again[i])
		}
		if first[i].FromCache {
			t.Errorf("call %d of the first run came from the cache", i)
		}
	}
	// A different sampling parameter is a different call.
	ep.Sampling.Temperature = new(0.0)
	run(ep)
	if srv.Calls() != 8 {
		t.Errorf("changed temperature made %d calls, want 4", srv.Calls()-4)
	}
}

func TestCacheNeverStoresErrors(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Queue(llmtest.HTTPError(400, "invalid_value", "no"), llmtest.Text("fine")), llmtest.Options{})
	cache, _ := llm.OpenCache(t.TempDir())
	c := newClient(t, endpoint(srv, nil), llm.Options{Cache: cache})
	if _, err := c.Complete(context.Background(), ask("x")); err == nil {
		t.Fatal("want an error")
	}
	if n, _ := cache.Len(); n != 0 {
		t.Fatalf("error cached: %d entries", n)
	}
	resp, err := c.Complete(context.Background(), ask("x"))
	if err != nil || resp.FromCache || resp.Text != "fine" {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

func TestCacheRevalidates(t *testing.T) {
	srv := llmtest.Start(t, llmtest.Queue(llmtest.Text(`{"verdict":"maybe"}`), llmtest.Text(`{"verdict":"pass"}`)), llmtest.Options{})
	cache, _ := llm.OpenCache(t.TempDir())
	c := newClient(t, endpoint(srv, nil), llm.Options{Cache: cache})
	req := ask("json")
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// A stricter caller does not accept the cached reply and asks again.
	req.Validate = func(s string) error {
		if !strings.Contains(s, `"pass"`) && !strings.Contains(s, `"fail"`) {
			return fmt.Errorf("bad verdict in %s", s)
		}
		return nil
	}
	resp, err := c.Complete(context.Background(), req)
	if err != nil || resp.FromCache || resp.Text != `{"verdict":"pass"}` {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
}

func TestCacheIgnoresCorruptEntries(t *testing.T) {
	srv := llmtest.Start(t, echo, llmtest.Options{})
	dir := t.TempDir()
	cache, _ := llm.OpenCache(dir)
	c := newClient(t, endpoint(srv, nil), llm.Options{Cache: cache})
	resp, err := c.Complete(context.Background(), ask("q"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, resp.CacheKey[:2], resp.CacheKey+".json")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"truncated":    good[:len(good)/2],
		"empty":        {},
		"garbage":      []byte("\x00\x01garbage"),
		"altered text": bytes.Replace(good, []byte("re:q"), []byte("re:Q"), 1),
		"other key":    bytes.Replace(good, []byte(resp.CacheKey[:8]), []byte("00000000"), 1),
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		calls := srv.Calls()
		got, err := c.Complete(context.Background(), ask("q"))
		if err != nil || got.FromCache || got.Text != "re:q seed=-1" {
			t.Errorf("%s: resp %+v, err %v", name, got, err)
		}
		if srv.Calls() != calls+1 {
			t.Errorf("%s: corrupt entry served", name)
		}
		// The next call is served from the rewritten entry.
		if got, err := c.Complete(context.Background(), ask("q")); err != nil || !got.FromCache {
			t.Errorf("%s: entry not repaired: %+v %v", name, got, err)
		}
	}
}

// TestNoKeyLeaks drives successes and every kind of failure with a logger,
// a cache and a meter, then searches everything written for the key.
func TestNoKeyLeaks(t *testing.T) {
	// The server echoes the key in an error message, as some proxies do.
	leaky := llmtest.HTTPError(401, "invalid_api_key", "Incorrect API key provided: "+testKey+".")
	srv := llmtest.Start(t, llmtest.ByPrompt(echo,
		llmtest.Match("leak", llmtest.Fixed(leaky)),
		llmtest.Match("busy", llmtest.Fixed(llmtest.RateLimited("0"))),
		llmtest.Match("broken", llmtest.Fixed(llmtest.Broken(llmtest.Malformed))),
	), llmtest.Options{})
	dir := t.TempDir()
	cache, _ := llm.OpenCache(dir)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	meter := llm.NewMeter(llm.Prices{"gpt-test": {Prompt: 1, Completion: 2}}, 0)
	var sl llmtest.Sleeper
	ep := endpoint(srv, nil)
	c := newClient(t, ep, llm.Options{Cache: cache, Logger: logger, Meter: meter, Sleep: sl.Sleep})
	var texts []string
	for _, p := range []string{"hello", "leak", "busy", "broken", "hello"} {
		resp, err := c.Complete(context.Background(), ask(p))
		texts = append(texts, fmt.Sprintf("%+v %v %#v", resp, err, err))
	}
	if !strings.Contains(strings.Join(texts, "\n"), "[REDACTED]") {
		t.Errorf("the echoed key was not redacted:\n%s", strings.Join(texts, "\n"))
	}
	_, err := llm.New(endpoint(srv, func(e *llm.Endpoint) { e.APIKeyEnv = "UNSET_" }), llm.Options{Getenv: getenv})
	texts = append(texts, fmt.Sprint(err), fmt.Sprintf("%+v", ep), fmt.Sprintf("%+v", c.Endpoint()))
	tally, _ := json.Marshal(meter.ByEndpoint())
	texts = append(texts, string(tally))

	for _, s := range append(texts, logs.String()) {
		if strings.Contains(s, testKey) {
			t.Errorf("key leaked in %q", s)
		}
	}
	if !strings.Contains(logs.String(), "llm retry") {
		t.Error("no retry was logged; the log check saw nothing")
	}
	files := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(testKey)) {
			t.Errorf("key in cache file %s", p)
		}
		return nil
	})
	if files == 0 {
		t.Error("nothing was cached; the cache check saw nothing")
	}
	// The key is not part of the cache key: another key hits the same entry.
	other := newClient(t, ep, llm.Options{Cache: cache, Getenv: func(string) string { return "sk-another-key" }})
	resp, err := other.Complete(context.Background(), ask("hello"))
	if err != nil || !resp.FromCache {
		t.Errorf("another key missed the cache: %+v %v", resp, err)
	}
}

// A reply is in the cache before the endpoint's slot goes to another call:
// with concurrency 2, whenever a request arrives, every reply but the (at
// most 2) still being answered or written is on disk, so a crash loses at
// most the endpoint's concurrency in calls.
func TestCacheWrittenBeforeSlotReleased(t *testing.T) {
	cache, _ := llm.OpenCache(t.TempDir())
	var mu sync.Mutex
	var short []string
	srv := llmtest.Start(t, func(c *llmtest.Call) llmtest.Reply {
		if n, _ := cache.Len(); n < c.Seq-2 {
			mu.Lock()
			short = append(short, fmt.Sprintf("request %d found %d replies cached", c.Seq, n))
			mu.Unlock()
		}
		return llmtest.Text("ok " + c.LastUser())
	}, llmtest.Options{})
	c := newClient(t, endpoint(srv, func(ep *llm.Endpoint) { ep.Limits.Concurrency = 2 }), llm.Options{Cache: cache})
	g := new(errgroup.Group)
	for i := range 40 {
		g.Go(func() error {
			_, err := c.Complete(context.Background(), ask(fmt.Sprint("q", i)))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(short) > 0 {
		t.Errorf("replies not yet cached when the next call went out: %v", short)
	}
	if n, _ := cache.Len(); n != 40 || srv.Calls() != 40 {
		t.Errorf("%d cached, %d calls", n, srv.Calls())
	}
}
