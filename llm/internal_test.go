package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm/llmfmt"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header http.Header
		want   time.Duration
	}{
		{nil, 0},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"0"}}, 0},
		{http.Header{"Retry-After": {"-4"}}, 0},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		// retry-after-ms is the more precise of the two.
		{http.Header{"Retry-After-Ms": {"1200"}, "Retry-After": {"2"}}, 1200 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"x"}, "Retry-After": {"2"}}, 2 * time.Second},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header, now); got != tt.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	for attempt := 1; attempt <= 70; attempt++ {
		ceil := min(time.Second<<min(attempt-1, 20), 30*time.Second)
		for range 50 {
			d := backoff(attempt, time.Second, 30*time.Second, 0)
			if d < 0 || d > ceil {
				t.Fatalf("attempt %d: %v outside [0, %v]", attempt, d, ceil)
			}
			if d := backoff(attempt, time.Second, 30*time.Second, 45*time.Second); d != 45*time.Second {
				t.Fatalf("Retry-After 45s above the jitter ceiling gave %v", d)
			}
			if d := backoff(attempt, time.Second, 30*time.Second, time.Millisecond); d < time.Millisecond {
				t.Fatalf("wait %v shorter than Retry-After", d)
			}
		}
	}
}

func TestClassifyStatus(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   ErrorKind
	}{
		{429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, KindRateLimited},
		{429, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`, KindQuota},
		{500, `{"error":{"message":"oops","type":"server_error"}}`, KindServer},
		{502, `<html>Bad Gateway</html>`, KindServer},
		{503, ``, KindServer},
		{409, `{}`, KindServer},
		{408, `timeout`, KindTimeout},
		{401, `{"error":{"message":"Incorrect API key","code":"invalid_api_key"}}`, KindAuth},
		{403, `{"error":{"message":"denied","code":403}}`, KindAuth},
		{400, `{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}`, KindContextLength},
		{400, `{"error":{"message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens","type":"BadRequestError","code":400}}`, KindContextLength}, // vLLM
		{413, `Payload Too Large`, KindContextLength},
		{400, `{"error":{"message":"Invalid value for 'temperature'","code":"invalid_value"}}`, KindBadRequest},
		{404, `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`, KindBadRequest},
		{422, `unprocessable`, KindBadRequest},
	}
	for _, tt := range tests {
		if got, msg := classifyStatus(tt.status, []byte(tt.body), nil); got != tt.want {
			t.Errorf("classifyStatus(%d, %s) = %s (%s), want %s", tt.status, tt.body, got, msg, tt.want)
		}
	}
}

func TestBucket(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	var slept time.Duration
	sleep := func(_ context.Context, d time.Duration) error { slept += d; now = now.Add(d); return nil }
	b := newBucket(600, clock) // 10/s, capacity 100
	ctx := context.Background()
	for range 100 {
		if err := b.wait(ctx, 1, sleep); err != nil {
			t.Fatal(err)
		}
	}
	if slept != 0 {
		t.Fatalf("the burst of 100 waited %v", slept)
	}
	_ = b.wait(ctx, 1, sleep)
	if slept < 99*time.Millisecond || slept > 101*time.Millisecond {
		t.Errorf("101st request waited %v, want 100ms", slept)
	}
	// Estimates are settled afterwards: an overrun is debt...
	slept = 0
	b.adjust(50)
	_ = b.wait(ctx, 1, sleep)
	if slept < 5*time.Second || slept > 5200*time.Millisecond {
		t.Errorf("after a debt of 50 the next request waited %v, want ~5.1s", slept)
	}
	// ...and an overestimate is given back, up to the capacity.
	b.adjust(-1000)
	slept = 0
	for range 100 {
		_ = b.wait(ctx, 1, sleep)
	}
	if slept != 0 {
		t.Errorf("refunded bucket waited %v", slept)
	}
	// A request larger than the capacity waits for a full bucket and is
	// admitted into debt.
	slept = 0
	b2 := newBucket(60, clock) // 1/s, capacity 10
	if err := b2.wait(ctx, 25, sleep); err != nil || slept != 0 {
		t.Fatalf("oversized request on a full bucket: slept %v, err %v", slept, err)
	}
	_ = b2.wait(ctx, 1, sleep)
	if slept < 15*time.Second || slept > 17*time.Second {
		t.Errorf("after 25 tokens from a bucket of 10, waited %v, want ~16s", slept)
	}
}

func TestCacheKey(t *testing.T) {
	base := keyInput{Kind: KindOpenAI, Host: hostOf("https://api.example.com/v1/"), Model: "m",
		Sampling: llmfmt.Sampling{Temperature: new(0.0)}, Messages: []Message{{Role: "user", Content: "q"}}}
	k0, _ := cacheKey(base)
	same := base
	same.Host = hostOf("https://user:secret@API.example.com/v1")
	if k, _ := cacheKey(same); k != k0 {
		t.Errorf("credentials or host case changed the key")
	}
	if strings.Contains(same.Host, "secret") {
		t.Errorf("host %q keeps credentials", same.Host)
	}
	// Schema key order does not matter.
	var a, b any
	_ = json.Unmarshal([]byte(`{"type":"object","required":["v"]}`), &a)
	_ = json.Unmarshal([]byte(`{"required":["v"],"type":"object"}`), &b)
	sa, sb := base, base
	sa.Format = keyFormat{Type: "json_schema", Name: "v", Schema: a}
	sb.Format = keyFormat{Type: "json_schema", Name: "v", Schema: b}
	ka, _ := cacheKey(sa)
	kb, _ := cacheKey(sb)
	if ka != kb || ka == k0 {
		t.Errorf("schema keys: %s %s (base %s)", ka, kb, k0)
	}
	for name, mod := range map[string]func(*keyInput){
		"model":       func(k *keyInput) { k.Model = "m2" },
		"kind":        func(k *keyInput) { k.Kind = KindAzure },
		"host":        func(k *keyInput) { k.Host = "other.example.com/v1" },
		"deployment":  func(k *keyInput) { k.Deployment = "d" },
		"temperature": func(k *keyInput) { k.Sampling.Temperature = new(0.5) },
		"no temp":     func(k *keyInput) { k.Sampling.Temperature = nil },
		"top_p":       func(k *keyInput) { k.Sampling.TopP = new(1.0) },
		"max tokens":  func(k *keyInput) { k.Sampling.MaxTokens = 10 },
		"seed":        func(k *keyInput) { k.Sampling.Seed = new(1) },
		"stop":        func(k *keyInput) { k.Sampling.Stop = []string{";"} },
		"message":     func(k *keyInput) { k.Messages = []Message{{Role: "user", Content: "q2"}} },
		"role":        func(k *keyInput) { k.Messages = []Message{{Role: "system", Content: "q"}} },
		"format":      func(k *keyInput) { k.Format = keyFormat{Type: "json_object"} },
		"sample":      func(k *keyInput) { k.Sample = 1 },
	} {
		in := base
		mod(&in)
		if k, _ := cacheKey(in); k == k0 {
			t.Errorf("%s does not change the key", name)
		}
	}
}

// TestCacheSurvivesKill really kills a process that is writing cache
// entries as fast as it can, then checks that every entry it left is whole.
func TestCacheSurvivesKill(t *testing.T) {
	if dir := os.Getenv("LLM_CACHE_WRITER_DIR"); dir != "" {
		cacheWriter(dir) // the child: never returns
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCacheSurvivesKill$")
	cmd.Env = append(os.Environ(), "LLM_CACHE_WRITER_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it write a few dozen entries (each is fsynced), then kill it mid-stream.
	c := &Cache{dir: dir}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if n, _ := c.Len(); n >= 30 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	n, err := c.Len()
	if err != nil || n < 30 {
		t.Fatalf("child wrote %d entries (err %v)", n, err)
	}
	bad := 0
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	for _, f := range files {
		key := strings.TrimSuffix(filepath.Base(f), ".json")
		r, ok := c.get(key)
		if !ok || r.Text != "reply for "+key+"\n"+killPad {
			bad++
		}
	}
	if bad != 0 || len(files) != n {
		t.Errorf("%d of %d entries damaged after SIGKILL", bad, len(files))
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "*", ".tmp-*"))
	t.Logf("%d entries whole; %d temporary files left by the kill (ignored)", len(files), len(tmps))
}

func cacheWriter(dir string) {
	c, err := OpenCache(dir)
	if err != nil {
		os.Exit(3)
	}
	for i := 0; ; i++ {
		key, _ := cacheKey(keyInput{Model: fmt.Sprint(i)})
		_ = c.put(key, cachedReply{Text: "reply for " + key + "\n" + killPad, FinishReason: "stop"})
	}
}

// Large entries make a kill in the middle of a write likely.
var killPad = strings.Repeat("x", 64<<10)

func TestRedactor(t *testing.T) {
	cases := []struct {
		secrets  []string
		in, want string
	}{
		{[]string{"sk-abcdef0123456789"}, "bad key sk-abcdef0123456789 given", "bad key [REDACTED] given"},
		{[]string{"sk-abcdef0123456789"}, "nothing secret here", "nothing secret here"},
		// A placeholder key for a local server is not a secret, and
		// replacing it would garble the message.
		{[]string{"x"}, "context canceled", "context canceled"},
		{[]string{"EMPTY"}, "EMPTY reply", "EMPTY reply"},
		{[]string{""}, "context canceled", "context canceled"},
	}
	for _, c := range cases {
		if got := redactor(c.secrets).apply(c.in); got != c.want {
			t.Errorf("redactor(%q).apply(%q) = %q, want %q", c.secrets, c.in, got, c.want)
		}
	}
}

func TestErrorKindClasses(t *testing.T) {
	for _, c := range []struct {
		k               ErrorKind
		down, retryable bool
	}{
		{KindRateLimited, true, true}, {KindServer, true, true}, {KindTimeout, true, true}, {KindNetwork, true, true},
		{KindMalformed, false, true},
		{KindQuota, false, false}, {KindAuth, false, false}, {KindBudget, false, false}, {KindCanceled, false, false},
		{KindContextLength, false, false}, {KindBadRequest, false, false},
	} {
		if c.k.EndpointDown() != c.down || c.k.Retryable() != c.retryable {
			t.Errorf("%s: EndpointDown %v Retryable %v, want %v %v", c.k, c.k.EndpointDown(), c.k.Retryable(), c.down, c.retryable)
		}
	}
}

// A key echoed in an error body is redacted before the message is cut, so
// no part of it survives wherever the cut falls: before, inside or after it.
func TestRedactBeforeTruncate(t *testing.T) {
	const key = "sk-test-0123456789abcdefXYZ"
	r := redactor{key}
	for pos := 0; pos <= maxErrorMessage+1; pos++ {
		pad := strings.Repeat(".", max(0, maxErrorMessage-pos))
		for _, body := range []string{
			`{"error":{"message":"` + pad + key + ` is not a valid key","code":"invalid_api_key"}}`,
			pad + key + " is not a valid key",
			`{"error":{"message":"` + pad + `","code":"` + key + `"}}`,
		} {
			_, msg := classifyStatus(401, []byte(body), r)
			for n := 4; n <= len(key); n++ {
				for i := 0; i+n <= len(key); i++ {
					if frag := key[i : i+n]; strings.Contains(msg, frag) {
						t.Fatalf("key at %d: message %q holds %q of the key", pos, msg, frag)
					}
				}
			}
		}
	}
}

// Temporary files a killed process left in the cache are removed when the
// cache is opened again; a fresh one (another process writing now) stays.
func TestCacheReclaimsTemps(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "ab")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	old, fresh, entry := filepath.Join(sub, ".tmp-abcdef12-1"), filepath.Join(sub, ".tmp-abcdef12-2"), filepath.Join(sub, "abcdef.json")
	for _, p := range []string{old, fresh, entry} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-time.Hour)
	for _, p := range []string{old, entry} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := OpenCache(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	for _, p := range []string{fresh, entry} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestSpendingCompactedOnClose: a run that appended past the bound leaves
// the file compacted when its meter closes, every figure kept.
func TestSpendingCompactedOnClose(t *testing.T) {
	defer func(v int64) { compactAbove = v }(compactAbove)
	compactAbove = 4 << 10
	dir := t.TempDir()
	prices := Prices{"m": {Prompt: 1, Completion: 10}}
	m, err := OpenMeter(dir, prices, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 40 {
		r, err := m.reserve(context.Background(), "e", "m", Usage{PromptTokens: 10, CompletionTokens: 100})
		if err != nil {
			t.Fatal(err)
		}
		m.settle(r, Usage{PromptTokens: 10, CompletionTokens: 50}, usageReported)
	}
	open, err := m.reserve(context.Background(), "e", "m", Usage{PromptTokens: 10, CompletionTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	spent := m.Spent() + open.usd
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, SpendingFile))
	if fi.Size() > 1<<10 {
		t.Errorf("%d bytes after Close: not compacted", fi.Size())
	}
	m, err = OpenMeter(dir, prices, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := m.Resumed()
	if !near(m.Spent(), spent) || st.Attempts != 40 || st.Runs != 1 || st.Unreconciled != 1 || m.trusted["m"] != 40 {
		t.Errorf("after compaction on close: spent $%.6f (want $%.6f), %+v", m.Spent(), spent, st)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
