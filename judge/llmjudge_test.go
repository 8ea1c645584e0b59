package judge

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

func TestParseVerdict(t *testing.T) {
	for _, tc := range []struct {
		text, verdict string
	}{
		{`{"reasoning":"ok","verdict":"pass"}`, "pass"},
		{` {"verdict": "fail", "reasoning": "no age filter"} `, "fail"},
		{"Score: 1\nExplanation: looks right", ""},
		{`{"Score": 1}`, ""},
		{`{"reasoning":"ok","verdict":"PASS"}`, ""},
		{`{"reasoning":"ok","verdict":"1"}`, ""},
		{`{"reasoning":"ok","verdict":1}`, ""},
		{`{"reasoning":"ok"}`, ""},
		{`{"verdict":"pass"}`, ""},
		{`{"reasoning":"ok","verdict":"pass","score":1}`, ""},
		{`{"reasoning":"ok","verdict":"pass"} {"verdict":"fail"}`, ""},
		{"```json\n{\"reasoning\":\"ok\",\"verdict\":\"pass\"}\n```", ""},
		{`{"reasoning":"ok","verdict":"pa`, ""},
		{``, ""},
	} {
		r, err := ParseVerdict(tc.text)
		if tc.verdict == "" {
			if err == nil {
				t.Errorf("ParseVerdict(%q) = %+v, want an error", tc.text, r)
			}
			continue
		}
		if err != nil || r.Verdict != tc.verdict {
			t.Errorf("ParseVerdict(%q) = %+v, %v", tc.text, r, err)
		}
	}
}

// TestLLMFaults: no infrastructure error and no unreadable reply is ever
// scored as a pass; retryable faults are retried, the rest are not.
func TestLLMFaults(t *testing.T) {
	_, _, items := fixtureRun(t)
	it := itemIn(t, items, "Diagnostic_Procedures")
	leaf := it.Task.SQLRubric.Root.Find("gender-selection")
	req := &LeafRequest{Task: it.Task, Answer: it.Answer, Tree: judgefmt.TreeSQL, Leaf: leaf}
	good := llmtest.JSON(map[string]string{"reasoning": "filters p.gender = 'F'", "verdict": "pass"})
	prose := llmtest.Text("Score: 1\nExplanation: the filter is right")
	for _, tc := range []struct {
		name     string
		replies  []llmtest.Reply // in order, then forever the last
		status   rubric.Status
		kind     string
		attempts int
		minWait  time.Duration
		stop     bool // Decide returns the error: the run stops
	}{
		{name: "ok", replies: []llmtest.Reply{good}, status: rubric.Pass, attempts: 1},
		{name: "429 with Retry-After then ok", replies: []llmtest.Reply{llmtest.RateLimited("2"), good}, status: rubric.Pass, attempts: 2, minWait: 2 * time.Second},
		{name: "500 then ok", replies: []llmtest.Reply{llmtest.ServerError(500), good}, status: rubric.Pass, attempts: 2},
		{name: "500 forever", replies: []llmtest.Reply{llmtest.ServerError(500)}, status: rubric.Invalid, kind: string(llm.KindServer), attempts: 3},
		{name: "429 forever", replies: []llmtest.Reply{llmtest.RateLimited("1")}, status: rubric.Invalid, kind: string(llm.KindRateLimited), attempts: 3},
		{name: "timeout", replies: []llmtest.Reply{llmtest.Hang()}, status: rubric.Invalid, kind: string(llm.KindTimeout), attempts: 3},
		{name: "truncated body", replies: []llmtest.Reply{llmtest.Broken(llmtest.Truncated)}, status: rubric.Invalid, kind: string(llm.KindMalformed), attempts: 3},
		{name: "cut off body", replies: []llmtest.Reply{llmtest.Broken(llmtest.CutOff)}, status: rubric.Invalid, kind: string(llm.KindMalformed), attempts: 3},
		{name: "malformed body", replies: []llmtest.Reply{llmtest.Broken(llmtest.Malformed)}, status: rubric.Invalid, kind: string(llm.KindMalformed), attempts: 3},
		{name: "disconnect", replies: []llmtest.Reply{llmtest.Broken(llmtest.Disconnect)}, status: rubric.Invalid, kind: string(llm.KindNetwork), attempts: 3},
		{name: "reply cut by max_tokens", replies: []llmtest.Reply{llmtest.Length(`{"reasoning":"the filter is`)}, status: rubric.Invalid, kind: string(llm.KindMalformed), attempts: 3},
		{name: "Score: 1 prose", replies: []llmtest.Reply{prose}, status: rubric.Invalid, kind: string(llm.KindMalformed), attempts: 3},
		{name: "Score: 1 prose then json", replies: []llmtest.Reply{prose, good}, status: rubric.Pass, attempts: 2},
		{name: "fenced json", replies: []llmtest.Reply{llmtest.Text("```json\n{\"reasoning\":\"ok\",\"verdict\":\"pass\"}\n```")}, status: rubric.Invalid, kind: string(llm.KindMalformed), attempts: 3},
		{name: "unknown verdict", replies: []llmtest.Reply{llmtest.JSON(map[string]string{"reasoning": "ok", "verdict": "1"})}, status: rubric.Invalid, kind: string(llm.KindMalformed), attempts: 3},
		{name: "context length", replies: []llmtest.Reply{llmtest.ContextLengthExceeded()}, status: rubric.Invalid, kind: string(llm.KindContextLength), attempts: 1},
		// A refused key or a spent quota stops the run, the leaf undecided:
		// every later call would fail the same way.
		{name: "401", replies: []llmtest.Reply{llmtest.HTTPError(http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided")}, kind: string(llm.KindAuth), attempts: 1, stop: true},
		{name: "quota", replies: []llmtest.Reply{llmtest.QuotaExceeded()}, kind: string(llm.KindQuota), attempts: 1, stop: true},
		{name: "400", replies: []llmtest.Reply{llmtest.HTTPError(http.StatusBadRequest, "invalid_request", "bad")}, kind: string(llm.KindBadRequest), attempts: 1, stop: true}, // before any answer: a configuration error (ConfigError)
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := tc.replies[len(tc.replies)-1]
			srv := llmtest.Start(t, llmtest.Then(llmtest.Fixed(last), tc.replies[:len(tc.replies)-1]...), llmtest.Options{})
			sl := &llmtest.Sleeper{}
			// An attempt times out when the server hangs on it, never
			// because a loaded machine was slow to deliver a reply.
			j := newTestJudge(t, srv, nil, llm.Options{Sleep: sl.Sleep, WithTimeout: srv.Timeouts()}, 1)
			d, err := j.Decide(context.Background(), req)
			if tc.stop {
				if llm.KindOf(err) != llm.ErrorKind(tc.kind) || srv.Calls() != tc.attempts {
					t.Fatalf("Decide: %v after %d requests, want a %s error after %d", err, srv.Calls(), tc.kind, tc.attempts)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if d.Verdict.Status != tc.status || d.ErrorKind != tc.kind || d.Attempts != tc.attempts {
				t.Fatalf("verdict %s kind %q attempts %d (%s), want %s %q %d", d.Verdict.Status, d.ErrorKind, d.Attempts, d.Explanation, tc.status, tc.kind, tc.attempts)
			}
			if d.Verdict.Status == rubric.Invalid && (d.Verdict.Score != 0 || !strings.HasPrefix(d.Explanation, "Error: ")) {
				t.Errorf("invalid verdict scored %v, explanation %q", d.Verdict.Score, d.Explanation)
			}
			if tc.minWait > 0 {
				w := sl.Waits()
				if len(w) == 0 || w[0] < tc.minWait {
					t.Errorf("waits %v, want the first at least %v (Retry-After)", w, tc.minWait)
				}
			}
			if srv.Calls() != tc.attempts {
				t.Errorf("%d requests reached the server, want %d", srv.Calls(), tc.attempts)
			}
		})
	}
}

// TestLLMRequest checks what is sent: the JSON schema, temperature 0, the
// leaf with its ancestors, the question, SQL, execution status and a
// bounded preview; gold only in reference-guided mode, labelled.
func TestLLMRequest(t *testing.T) {
	_, _, items := fixtureRun(t)
	srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
	j := newTestJudge(t, srv, nil, llm.Options{}, 1)
	it := itemIn(t, items, "Vital_Signs_Monitoring")
	leaf := it.Task.ResultsRubric.Root.Find("share-acceptable")
	for _, guided := range []bool{false, true} {
		if _, err := j.Decide(context.Background(), &LeafRequest{Task: it.Task, Answer: it.Answer, Tree: judgefmt.TreeResults, Leaf: leaf, ReferenceGuided: guided}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0].Request
	if r.ResponseFormat == nil || r.ResponseFormat.Type != "json_schema" || r.ResponseFormat.JSONSchema.Name != "rubric_verdict" {
		t.Errorf("response_format = %+v", r.ResponseFormat)
	}
	if r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("temperature = %v, want 0 sent", r.Temperature)
	}
	user := reqs[0].LastUser()
	for _, want := range []string{"## Requirement to grade\nAcceptable Range (20-60)", "Tachycardia share in `pct_tachycardic`",
		"Output Feature Validation", "what share of men aged 75–85", "```sql\nSELECT ROUND(100 * COUNTIF(hr > 100)",
		"succeeded, returned 1 row(s) x 2 column(s)", "| pct_tachycardic | icu_mortality_pct |", "| 41.5 | 12.25 |", "all 1 row(s) shown"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "gold") || strings.Contains(reqs[0].Prompt(), "REFERENCE-GUIDED") {
		t.Errorf("strict prompt mentions gold")
	}
	guided := reqs[1].Prompt()
	for _, want := range []string{"REFERENCE-GUIDED GRADING", "## Reference SQL (gold)", "## Reference result (gold)"} {
		if !strings.Contains(guided, want) {
			t.Errorf("guided prompt lacks %q", want)
		}
	}
}

func TestPreviewBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,long_text,x\n")
	for i := range 500 {
		b.WriteString(strings.Repeat("a", 0))
		b.WriteString("1," + strings.Repeat("z", 300) + ",0.1234567891\n")
		_ = i
	}
	tb, err := codecheck.ReadCSV(strings.NewReader(b.String()), codecheck.MaxTableRows)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	writePreview(&out, tb, 20, DefaultPromptOptions)
	s := out.String()
	if n := strings.Count(s, "\n"); n != 23 {
		t.Errorf("%d lines, want 2 header + 20 rows + 1 note", n)
	}
	if !strings.Contains(s, "first 20 of 500 rows shown") || !strings.Contains(s, "0.123457") || strings.Contains(s, strings.Repeat("z", 81)) {
		t.Errorf("preview:\n%s", s[:400])
	}
}

// TestVote: a k-sample majority with early stop and the flip rate.
func TestVote(t *testing.T) {
	_, _, items := fixtureRun(t)
	it := itemIn(t, items, "Diagnostic_Procedures")
	leafPass := it.Task.SQLRubric.Root.Find("gender-selection")
	leafFlip := it.Task.SQLRubric.Root.Find("age-range-selection")
	leafBad := it.Task.SQLRubric.Root.Find("join-logic")
	// The seed is sent as seed+sample: sample 1 of the flip leaf says fail.
	h := func(c *llmtest.Call) llmtest.Reply {
		req := requirementOf(c.LastUser())
		sample := 0
		if c.Request.Seed != nil {
			sample = *c.Request.Seed
		}
		switch {
		case strings.HasPrefix(req, "Restricts ages") && sample == 1:
			return llmtest.JSON(map[string]string{"reasoning": "no", "verdict": "fail"})
		case strings.HasPrefix(req, "Joins") && sample != 2:
			return llmtest.Text("Score: 1")
		}
		return llmtest.JSON(map[string]string{"reasoning": "yes", "verdict": "pass"})
	}
	srv := llmtest.Start(t, h, llmtest.Options{})
	j := newTestJudge(t, srv, func(ep *llm.Endpoint) { ep.Sampling.Seed = new(0); ep.Retry.MaxAttempts = 1 }, llm.Options{}, 3)
	if _, err := NewLLMJudge(j.c, LLMOptions{Samples: 2}); err == nil {
		t.Error("an even k was accepted")
	}
	for _, tc := range []struct {
		leaf    string
		status  rubric.Status
		samples int
		votes   judgefmt.Votes
	}{
		{leafPass.ID, rubric.Pass, 2, judgefmt.Votes{Pass: 2}},          // early stop
		{leafFlip.ID, rubric.Pass, 3, judgefmt.Votes{Pass: 2, Fail: 1}}, // a flip
		{leafBad.ID, rubric.Invalid, 2, judgefmt.Votes{Invalid: 2}},     // no majority possible after 2
	} {
		leaf := it.Task.SQLRubric.Root.Find(tc.leaf)
		d, err := j.Decide(context.Background(), &LeafRequest{Task: it.Task, Answer: it.Answer, Tree: judgefmt.TreeSQL, Leaf: leaf})
		if err != nil {
			t.Fatal(err)
		}
		if d.Verdict.Status != tc.status || d.Samples != tc.samples || d.Votes == nil || *d.Votes != tc.votes {
			t.Errorf("%s: %s after %d samples, votes %+v (%s)", tc.leaf, d.Verdict.Status, d.Samples, d.Votes, d.Explanation)
		}
	}
	// Through the engine, the flip rate is reported.
	dir := t.TempDir()
	opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true}
	l := openLedger(t, dir, opts)
	o := mustRun(t, []Item{it}, l, opts)
	s := Score(o, "m").Summary
	if s.FlipRate == nil || *s.FlipRate <= 0 || s.Samples != 3 {
		t.Errorf("flip rate %v, samples %d", s.FlipRate, s.Samples)
	}
}

// TestCacheAcrossLedgers: judging again into a new folder with the same
// cache makes no HTTP call, leaf by leaf or grouped (the group prompt is
// the cache key).
func TestCacheAcrossLedgers(t *testing.T) {
	_, _, items := fixtureRun(t)
	for _, g := range []GroupMode{GroupLeaf, GroupTree} {
		t.Run(string(g), func(t *testing.T) {
			srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
			cache, err := llm.OpenCache(filepath.Join(t.TempDir(), "cache"))
			if err != nil {
				t.Fatal(err)
			}
			j := newTestJudge(t, srv, nil, llm.Options{Cache: cache}, 1)
			opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Skipping: true, Group: g}
			first := mustRun(t, items, openLedger(t, t.TempDir(), opts), opts)
			calls := srv.Calls()
			if calls == 0 || first.This.LLMCalls != calls {
				t.Fatalf("first run: %d server calls, %+v", calls, first.This)
			}
			fresh := mustRun(t, items, openLedger(t, t.TempDir(), opts), opts)
			if srv.Calls() != calls || fresh.This.CacheHits == 0 || fresh.This.LLMCalls != 0 {
				t.Errorf("fresh ledger, same cache: %d new server calls, %+v", srv.Calls()-calls, fresh.This)
			}
			if a, b := Score(first, "m").Summary.Scores, Score(fresh, "m").Summary.Scores; fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("scores differ when served from the cache")
			}
		})
	}
}
