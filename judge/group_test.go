package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

func TestParseGroupVerdicts(t *testing.T) {
	ids := []string{"a", "b"}
	ok := `{"a":{"reasoning":"r","verdict":"pass"},"b":{"reasoning":"s","verdict":"fail"}}`
	for _, tc := range []struct {
		name, text, err string // err: a substring of the error; "" = accepted
	}{
		{"ok", ok, ""},
		{"other order, spaces", " {\"b\": {\"verdict\": \"fail\", \"reasoning\": \"s\"},\n \"a\": {\"reasoning\": \"r\", \"verdict\": \"pass\"}} ", ""},
		{"missing leaf", `{"a":{"reasoning":"r","verdict":"pass"}}`, `lacks 1 of 2 ids: "b"`},
		{"empty object", `{}`, `lacks 2 of 2 ids`},
		{"unknown id", `{"a":{"reasoning":"r","verdict":"pass"},"b":{"reasoning":"s","verdict":"fail"},"c":{"reasoning":"t","verdict":"pass"}}`, `unknown id "c"`},
		{"duplicated id", `{"a":{"reasoning":"r","verdict":"pass"},"a":{"reasoning":"r","verdict":"fail"},"b":{"reasoning":"s","verdict":"fail"}}`, `id "a" twice`},
		{"verdict outside pass/fail", `{"a":{"reasoning":"r","verdict":"1"},"b":{"reasoning":"s","verdict":"fail"}}`, `"a": "verdict" is "1"`},
		{"verdict a number", `{"a":{"reasoning":"r","verdict":1},"b":{"reasoning":"s","verdict":"fail"}}`, `"a"`},
		{"extra field", `{"a":{"reasoning":"r","verdict":"pass","score":1},"b":{"reasoning":"s","verdict":"fail"}}`, `"a"`},
		{"no reasoning", `{"a":{"verdict":"pass"},"b":{"reasoning":"s","verdict":"fail"}}`, `no "reasoning"`},
		{"prose", "Score: 1\nBoth requirements are met.", "not a JSON object"},
		{"fenced", "```json\n" + ok + "\n```", "not a JSON object"},
		{"truncated", ok[:40], "not the verdicts object"},
		{"truncated after a member", `{"a":{"reasoning":"r","verdict":"pass"},`, "not the verdicts object"},
		{"trailing data", ok + ` {"a":1}`, "data after"},
		{"single-leaf shape", `{"reasoning":"r","verdict":"pass"}`, `unknown id "reasoning"`},
		{"array", `[{"id":"a"}]`, "not a JSON object"},
	} {
		got, err := ParseGroupVerdicts(tc.text, ids)
		if tc.err == "" {
			if err != nil || got["a"].Verdict != "pass" || got["b"].Verdict != "fail" || got["a"].Reasoning != "r" {
				t.Errorf("%s: %v, %v", tc.name, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
		}
		if got != nil {
			t.Errorf("%s: a rejected reply gave verdicts %v", tc.name, got)
		}
	}
}

// groupOf returns a group request for the given leaves of the
// Diagnostic_Procedures task's SQL tree.
func groupOf(t *testing.T, items []Item, ids ...string) *GroupRequest {
	t.Helper()
	it := itemIn(t, items, "Diagnostic_Procedures")
	req := &GroupRequest{ID: "g", Task: it.Task, Answer: it.Answer, Tree: judgefmt.TreeSQL}
	for _, id := range ids {
		l := it.Task.SQLRubric.Root.Find(id)
		if l == nil {
			t.Fatalf("no leaf %s", id)
		}
		req.Leaves = append(req.Leaves, l)
	}
	return req
}

// groupJSON is a group reply.
func groupJSON(v map[string][2]string) llmtest.Reply {
	out := map[string]map[string]string{}
	for id, rv := range v {
		out[id] = map[string]string{"reasoning": rv[0], "verdict": rv[1]}
	}
	return llmtest.JSON(out)
}

// TestGroupFaults: a grouped reply that lacks a leaf, names an unknown or
// duplicated id, gives a verdict outside pass/fail, is prose or truncated
// is retried; still wrong after the retries, every leaf of the group is
// invalid, none pass or fail. Infrastructure errors likewise.
func TestGroupFaults(t *testing.T) {
	_, _, items := fixtureRun(t)
	req := groupOf(t, items, "per-admission-count", "percentile-calculation", "join-logic")
	good := groupJSON(map[string][2]string{"per-admission-count": {"counts per hadm_id", "pass"},
		"percentile-calculation": {"uses OFFSET(75)", "pass"}, "join-logic": {"no join on subject_id", "fail"}})
	partial := groupJSON(map[string][2]string{"per-admission-count": {"ok", "pass"}, "percentile-calculation": {"ok", "pass"}})
	extra := groupJSON(map[string][2]string{"per-admission-count": {"ok", "pass"}, "percentile-calculation": {"ok", "pass"},
		"join-logic": {"ok", "pass"}, "gender-selection": {"ok", "pass"}})
	dup := llmtest.Text(`{"per-admission-count":{"reasoning":"ok","verdict":"pass"},"per-admission-count":{"reasoning":"ok","verdict":"fail"},` +
		`"percentile-calculation":{"reasoning":"ok","verdict":"pass"},"join-logic":{"reasoning":"ok","verdict":"pass"}}`)
	outside := groupJSON(map[string][2]string{"per-admission-count": {"ok", "pass"}, "percentile-calculation": {"ok", "1"}, "join-logic": {"ok", "pass"}})
	prose := llmtest.Text("Score: 1\nAll three requirements are met.")
	truncated := llmtest.Length(`{"per-admission-count":{"reasoning":"counts per hadm_id","verdict":"pass"},"percentile-calc`)
	wantGood := []rubric.Status{rubric.Pass, rubric.Pass, rubric.Fail}
	for _, tc := range []struct {
		name     string
		replies  []llmtest.Reply // in order, then forever the last
		ok       bool            // the good verdicts, else every leaf invalid
		kind     llm.ErrorKind
		attempts int
	}{
		{name: "ok", replies: []llmtest.Reply{good}, ok: true, attempts: 1},
		{name: "missing leaf", replies: []llmtest.Reply{partial}, kind: llm.KindMalformed, attempts: 3},
		{name: "missing leaf then ok", replies: []llmtest.Reply{partial, good}, ok: true, attempts: 2},
		{name: "extra id", replies: []llmtest.Reply{extra}, kind: llm.KindMalformed, attempts: 3},
		{name: "duplicated id", replies: []llmtest.Reply{dup}, kind: llm.KindMalformed, attempts: 3},
		{name: "duplicated id then ok", replies: []llmtest.Reply{dup, good}, ok: true, attempts: 2},
		{name: "verdict outside pass/fail", replies: []llmtest.Reply{outside}, kind: llm.KindMalformed, attempts: 3},
		{name: "prose", replies: []llmtest.Reply{prose}, kind: llm.KindMalformed, attempts: 3},
		{name: "prose then ok", replies: []llmtest.Reply{prose, good}, ok: true, attempts: 2},
		{name: "truncated JSON (max_tokens)", replies: []llmtest.Reply{truncated}, kind: llm.KindMalformed, attempts: 3},
		{name: "truncated body", replies: []llmtest.Reply{llmtest.Broken(llmtest.Truncated)}, kind: llm.KindMalformed, attempts: 3},
		{name: "500 forever", replies: []llmtest.Reply{llmtest.ServerError(500)}, kind: llm.KindServer, attempts: 3},
		{name: "429 then ok", replies: []llmtest.Reply{llmtest.RateLimited("1"), good}, ok: true, attempts: 2},
		{name: "context length", replies: []llmtest.Reply{llmtest.ContextLengthExceeded()}, kind: llm.KindContextLength, attempts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := tc.replies[len(tc.replies)-1]
			srv := llmtest.Start(t, llmtest.Then(llmtest.Fixed(last), tc.replies[:len(tc.replies)-1]...), llmtest.Options{})
			sl := &llmtest.Sleeper{}
			j := newTestJudge(t, srv, nil, llm.Options{Sleep: sl.Sleep}, 1)
			gd, err := j.DecideGroup(context.Background(), req)
			if err != nil {
				t.Fatalf("DecideGroup: %v", err)
			}
			if len(gd.Leaves) != 3 || gd.Attempts != tc.attempts || gd.Calls != 1 || srv.Calls() != tc.attempts {
				t.Fatalf("%d decisions, %d attempts, %d calls, %d requests; want 3, %d, 1, %d", len(gd.Leaves), gd.Attempts, gd.Calls, srv.Calls(), tc.attempts, tc.attempts)
			}
			for i, d := range gd.Leaves {
				switch {
				case tc.ok && d.Verdict.Status != wantGood[i]:
					t.Errorf("%s: %s (%s), want %s", req.Leaves[i].ID, d.Verdict.Status, d.Explanation, wantGood[i])
				case !tc.ok && (d.Verdict.Status != rubric.Invalid || d.Verdict.Score != 0 || d.ErrorKind != string(tc.kind) || !strings.HasPrefix(d.Explanation, "Error: ")):
					t.Errorf("%s: %s score %v kind %q (%s), want invalid %s", req.Leaves[i].ID, d.Verdict.Status, d.Verdict.Score, d.ErrorKind, d.Explanation, tc.kind)
				}
			}
			if tc.ok && (gd.Usage.PromptTokens == 0 || gd.Usage.CompletionTokens == 0) {
				t.Errorf("usage %+v", gd.Usage)
			}
		})
	}
}

// TestGroupRequest checks what a group call sends: the shared context
// once, every enclosing requirement once, each leaf with its id, a JSON
// schema naming exactly the group's ids, max_tokens per leaf times the
// group's size.
func TestGroupRequest(t *testing.T) {
	_, _, items := fixtureRun(t)
	srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
	j := newTestJudge(t, srv, nil, llm.Options{}, 1) // max_tokens 300 per leaf
	req := groupOf(t, items, "gender-selection", "age-range-selection", "percentile-calculation")
	gd, err := j.DecideGroup(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range gd.Leaves {
		want := hashVerdict(strings.TrimSpace(req.Leaves[i].Requirements))
		if d.Verdict.Status.String() != want {
			t.Errorf("%s: %s, want %s", req.Leaves[i].ID, d.Verdict.Status, want)
		}
	}
	r := srv.Requests()[0]
	if r.Request.MaxTokens == nil && r.Request.MaxCompletionTokens == nil {
		t.Fatal("no max_tokens sent")
	}
	if mt := r.Request.MaxTokens; mt == nil || *mt != 900 {
		t.Errorf("max_tokens %v, want 3 x 300", mt)
	}
	rf := r.Request.ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "rubric_verdicts" {
		t.Fatalf("response_format %+v", rf)
	}
	var schema struct {
		Required             []string                   `json:"required"`
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties bool                       `json:"additionalProperties"`
	}
	if err := json.Unmarshal(rf.JSONSchema.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(schema.Required) != "[gender-selection age-range-selection percentile-calculation]" || len(schema.Properties) != 3 || schema.AdditionalProperties {
		t.Errorf("schema %s", rf.JSONSchema.Schema)
	}
	user := r.LastUser()
	for s, n := range map[string]int{
		"## Question\n":      1,
		"## Candidate SQL\n": 1,
		"succeeded, returned 1 row(s) x 1 column(s)":    1,
		"- SQL Query Evaluation\n":                      1,
		"  - Patient Cohort Construction\n":             1,
		"    - [gender-selection] Filters to female":    1,
		"    - [age-range-selection] Restricts ages":    1,
		"  - Clinical Analytics\n":                      1,
		"    - [percentile-calculation] Takes the 75th": 1,
		"Database Integration":                          0, // no leaf of it in the group
		"Counts distinct procedures":                    0,
		`exactly these 3 member(s): "gender-selection", "age-range-selection", "percentile-calculation".`: 1,
	} {
		if got := strings.Count(user, s); got != n {
			t.Errorf("prompt has %q %d times, want %d:\n%s", s, got, n, user)
		}
	}
	if !strings.HasPrefix(user, "## Question\n") || strings.Index(user, "## Requirements to grade") < strings.Index(user, "## Candidate SQL") {
		t.Errorf("the shared context does not come first:\n%s", user)
	}
}

// TestGroupVote: with k samples, each leaf of a group keeps its own vote
// across the group's samples and stops counting once settled; sampling
// stops when every leaf is settled.
func TestGroupVote(t *testing.T) {
	_, _, items := fixtureRun(t)
	req := groupOf(t, items, "gender-selection", "age-range-selection")
	// gender always passes; age fails in sample 1 only.
	h := func(c *llmtest.Call) llmtest.Reply {
		sample := 0
		if c.Request.Seed != nil {
			sample = *c.Request.Seed
		}
		age := "pass"
		if sample == 1 {
			age = "fail"
		}
		return groupJSON(map[string][2]string{"gender-selection": {"yes", "pass"}, "age-range-selection": {"s", age}})
	}
	srv := llmtest.Start(t, h, llmtest.Options{})
	j := newTestJudge(t, srv, func(ep *llm.Endpoint) { ep.Sampling.Seed = new(0) }, llm.Options{}, 3)
	gd, err := j.DecideGroup(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if gd.Calls != 3 || srv.Calls() != 3 {
		t.Errorf("%d calls, %d requests; want 3 (the age leaf needs the third sample)", gd.Calls, srv.Calls())
	}
	g, a := gd.Leaves[0], gd.Leaves[1]
	if g.Verdict.Status != rubric.Pass || g.Samples != 2 || *g.Votes != (judgefmt.Votes{Pass: 2}) {
		t.Errorf("gender: %s after %d samples, votes %+v; want pass after 2 (its third vote not counted)", g.Verdict.Status, g.Samples, g.Votes)
	}
	if a.Verdict.Status != rubric.Pass || a.Samples != 3 || *a.Votes != (judgefmt.Votes{Pass: 2, Fail: 1}) || !strings.Contains(a.Explanation, "[vote: pass 2, fail 1") {
		t.Errorf("age: %s after %d samples, votes %+v (%s)", a.Verdict.Status, a.Samples, a.Votes, a.Explanation)
	}
	// Through the engine, grouped, the flip rate is reported.
	flip := llmtest.Start(t, func(c *llmtest.Call) llmtest.Reply {
		ids, reqs := groupRequirements(c.LastUser())
		out := map[string]map[string]string{}
		for i, id := range ids {
			v := "pass"
			if strings.HasPrefix(reqs[i], "Restricts ages") && *c.Request.Seed == 1 {
				v = "fail"
			}
			out[id] = map[string]string{"reasoning": "r", "verdict": v}
		}
		return llmtest.JSON(out)
	}, llmtest.Options{})
	jf := newTestJudge(t, flip, func(ep *llm.Endpoint) { ep.Sampling.Seed = new(0) }, llm.Options{}, 3)
	opts := Options{Mode: rubric.Strict, Backend: jf, CodeChecks: true, Group: GroupTree}
	o := mustRun(t, []Item{{Task: req.Task, Answer: req.Answer}}, openLedger(t, t.TempDir(), opts), opts)
	if s := Score(o, "m").Summary; s.FlipRate == nil || *s.FlipRate <= 0 || s.Samples != 3 || s.BackendCalls >= s.LeavesLLM {
		t.Errorf("grouped vote through the engine: flip rate %v, samples %d, %d calls for %d leaves", s.FlipRate, s.Samples, s.BackendCalls, s.LeavesLLM)
	}
	// Both settle after two agreeing samples: two calls.
	srv2 := llmtest.Start(t, verdictReply(func(string) string { return "fail" }), llmtest.Options{})
	j2 := newTestJudge(t, srv2, nil, llm.Options{}, 3)
	gd, err = j2.DecideGroup(context.Background(), req)
	if err != nil || gd.Calls != 2 || gd.Leaves[0].Verdict.Status != rubric.Fail || gd.Leaves[1].Verdict.Status != rubric.Fail {
		t.Errorf("unanimous: %v, %d calls, %+v", err, gd.Calls, gd.Leaves)
	}
	// A failed sample is an invalid vote for every leaf still voting.
	srv3 := llmtest.Start(t, llmtest.Fixed(llmtest.Text("Score: 1")), llmtest.Options{})
	j3 := newTestJudge(t, srv3, func(ep *llm.Endpoint) { ep.Retry.MaxAttempts = 1 }, llm.Options{}, 3)
	gd, err = j3.DecideGroup(context.Background(), req)
	if err != nil || gd.Calls != 2 {
		t.Fatalf("%v, %d calls", err, gd.Calls)
	}
	for _, d := range gd.Leaves {
		if d.Verdict.Status != rubric.Invalid || d.ErrorKind != "no_majority" || *d.Votes != (judgefmt.Votes{Invalid: 2}) {
			t.Errorf("prose samples: %s %q %+v", d.Verdict.Status, d.ErrorKind, d.Votes)
		}
	}
}

// TestGroupedRun judges the fixture run with the by-key fake backend
// under each grouping: every leaf is recorded once, the verdicts and
// scores equal judging leaf by leaf, a call decides several leaves, the
// records of a group add up to the call the backend answered, and the
// summary counts calls.
func TestGroupedRun(t *testing.T) {
	_, _, items := fixtureRun(t)
	var perLeaf map[string][2]float64
	for _, gr := range []groupOpt{{GroupLeaf, false}, {GroupCategory, false}, {GroupTree, false}, {GroupTree, true}} {
		t.Run(gr.String(), func(t *testing.T) {
			b := &keyBackend{}
			opts := Options{Mode: rubric.Strict, Backend: b, CodeChecks: true, Skipping: true, Group: gr.mode, GroupGated: gr.gated}
			dir := t.TempDir()
			l := openLedger(t, dir, opts)
			o := mustRun(t, items, l, opts)
			if !o.Complete() {
				t.Fatalf("incomplete: %v", o.Stopped)
			}
			l.Close()
			c, err := judgefmt.ReadLedger(filepath.Join(dir, judgefmt.LedgerFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Records) != leafCount(items) || len(c.Last()) != leafCount(items) {
				t.Fatalf("%d records for %d leaves, want %d", len(c.Records), len(c.Last()), leafCount(items))
			}
			if c.Header.Group != string(gr.mode) || c.Header.GroupGated != gr.gated {
				t.Errorf("header grouping %s %v", c.Header.Group, c.Header.GroupGated)
			}
			// Rebuild the calls from the records.
			type call struct{ leaves, size, calls, prompt, completion int }
			calls := map[string]*call{}
			llmLeaves, single := 0, 0
			for _, r := range c.Records {
				if r.Source != judgefmt.SourceLLM {
					continue
				}
				llmLeaves++
				if r.Group == "" {
					single++
					continue
				}
				k := r.Task + " " + r.Group
				if calls[k] == nil {
					calls[k] = &call{size: r.GroupSize}
				}
				g := calls[k]
				g.leaves++
				g.calls += r.Calls
				g.prompt += r.PromptTokens
				g.completion += r.CompletionTokens
			}
			if got := len(calls) + single; got != b.Calls() {
				t.Errorf("%d calls rebuilt from the ledger, the backend answered %d", got, b.Calls())
			}
			if gr.mode == GroupLeaf && len(calls) > 0 || gr.mode != GroupLeaf && single > 0 {
				t.Errorf("%s: %d groups, %d single leaves", gr, len(calls), single)
			}
			// Each group's tokens add up to its call's usage.
			biggest := 0
			for k, g := range calls {
				if u := fakeUsage(g.size); g.leaves != g.size || g.calls != 1 || g.prompt != u.PromptTokens || g.completion != u.CompletionTokens {
					t.Errorf("group %s: %d of %d leaves, %d calls, %d/%d tokens, want the call's %d/%d", k, g.leaves, g.size, g.calls, g.prompt, g.completion, u.PromptTokens, u.CompletionTokens)
				}
				biggest = max(biggest, g.size)
			}
			s := Score(o, "m").Summary
			if s.LLMCalls != b.Calls() || s.BackendCalls != b.Calls() || s.Group != string(gr.mode.orLeaf()) {
				t.Errorf("summary: llm_calls %d backend_calls %d group %s; the backend answered %d", s.LLMCalls, s.BackendCalls, s.Group, b.Calls())
			}
			t.Logf("%s: %d LLM leaves in %d calls (largest group %d)", gr, llmLeaves, b.Calls(), biggest)
			// (Every category of the fixture's trees gates its leaves one
			// after the other: grouping by category finds no two ready at
			// once there, unlike TestGroupedConcurrencyLimit's.)
			if gr.mode == GroupTree && biggest < 2 {
				t.Errorf("no call decided more than one leaf")
			}
			scores := map[string][2]float64{}
			for k, v := range s.Scores {
				scores[k.String()] = v
			}
			if perLeaf == nil {
				perLeaf = scores
			} else if fmt.Sprint(scores) != fmt.Sprint(perLeaf) {
				t.Errorf("scores differ from judging leaf by leaf:\n%v\n%v", scores, perLeaf)
			}
		})
	}
}

// TestGroupedConcurrencyLimit: grouped calls respect the endpoint's limit.
func TestGroupedConcurrencyLimit(t *testing.T) {
	_, _, items := fixtureRun(t)
	var many []Item
	for i := range 4 {
		for _, it := range items {
			tk := *it.Task
			tk.Key.ID = fmt.Sprintf("%s-%d", tk.Key.ID, i)
			a := *it.Answer
			a.Key = tk.Key
			many = append(many, Item{Task: &tk, Answer: &a})
		}
	}
	// Two requests in flight together however slowly a loaded machine
	// starts them (llmtest.Together); the latency lets a fourth break the
	// limit if it could.
	srv := llmtest.Start(t, llmtest.Together(2, verdictReply(hashVerdict)), llmtest.Options{Latency: 40 * time.Millisecond})
	j := newTestJudge(t, srv, func(ep *llm.Endpoint) { ep.Limits.Concurrency = 3 }, llm.Options{}, 1)
	opts := Options{Mode: rubric.Strict, Backend: j, Tasks: 16, Leaves: 16, Group: GroupCategory}
	o := mustRun(t, many, openLedger(t, t.TempDir(), opts), opts)
	if !o.Complete() {
		t.Fatalf("incomplete: %v", o.Stopped)
	}
	if got := srv.MaxInFlight(); got > 3 || got < 2 {
		t.Errorf("max in flight %d, want 2..3 (limit 3)", got)
	}
	s := Score(o, "m").Summary
	if s.BackendCalls >= s.LeavesLLM || s.BackendCalls != srv.Calls() {
		t.Errorf("%d calls for %d leaves, server saw %d: nothing grouped", s.BackendCalls, s.LeavesLLM, srv.Calls())
	}
}

// TestGroupOptions: a backend without DecideGroup, gated grouping without
// groups, and a ledger of another grouping are refused.
func TestGroupOptions(t *testing.T) {
	_, _, items := fixtureRun(t)
	b := leafOnly{&keyBackend{}}
	if _, err := Run(context.Background(), items, openLedger(t, t.TempDir(), Options{}), Options{Backend: b, Group: GroupTree}); err == nil || !strings.Contains(err.Error(), "cannot judge leaves in groups") {
		t.Errorf("per-leaf backend with grouping: %v", err)
	}
	if _, err := Run(context.Background(), items, openLedger(t, t.TempDir(), Options{}), Options{Backend: b, GroupGated: true}); err == nil {
		t.Error("gated grouping without groups accepted")
	}
	if _, err := Run(context.Background(), items, openLedger(t, t.TempDir(), Options{}), Options{Backend: b, Group: "task"}); err == nil {
		t.Error("unknown grouping accepted")
	}
}

// TestGroupShares: a group's tokens and dollars are shared so that the
// records add up to the call; calls go to the first record.
func TestGroupShares(t *testing.T) {
	recs := make([]judgefmt.Record, 3)
	groupRecords(recs, "g1", GroupDecision{CallStats: CallStats{Calls: 2, CacheHits: 1, Attempts: 3, Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: 200},
		CostUSD: 0.01, Latency: 1500 * time.Millisecond, PerCall: []judgefmt.Usage{{PromptTokens: 500}, {PromptTokens: 500}}}})
	var p, c, calls int
	var usd float64
	for i, r := range recs {
		p += r.PromptTokens
		c += r.CompletionTokens
		calls += r.Calls
		usd += r.CostUSD
		if r.Group != "g1" || r.GroupSize != 3 || r.LatencyMS != 1500 || (i > 0 && (r.Calls != 0 || r.PerCall != nil)) {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	if p != 1000 || c != 200 || calls != 2 || recs[0].CacheHits != 1 || recs[0].Attempts != 3 || fmt.Sprintf("%.10f", usd) != "0.0100000000" {
		t.Errorf("shares add up to %d prompt, %d completion, %d calls, $%v", p, c, calls, usd)
	}
	if recs[0].PromptTokens != 334 || recs[1].PromptTokens != 333 {
		t.Errorf("prompt shares %d %d %d", recs[0].PromptTokens, recs[1].PromptTokens, recs[2].PromptTokens)
	}
}

// TestEstimateGrouped: without skipping, the estimate's calls and prompt
// tokens are exactly what the run sends, for every grouping.
func TestEstimateGrouped(t *testing.T) {
	_, _, items := fixtureRun(t)
	for _, gr := range []groupOpt{{GroupLeaf, false}, {GroupCategory, false}, {GroupTree, false}, {GroupCategory, true}, {GroupTree, true}} {
		srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
		j := newTestJudge(t, srv, nil, llm.Options{}, 1)
		opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Group: gr.mode, GroupGated: gr.gated}
		l := openLedger(t, t.TempDir(), opts)
		e := EstimateRun(items, l, opts, j, 1, 300)
		o := mustRun(t, items, l, opts)
		s := Score(o, "m").Summary
		sent := 0
		for _, r := range srv.Requests() {
			var msgs []llm.Message
			for _, m := range r.Request.Messages {
				msgs = append(msgs, llm.Message{Role: m.Role, Content: m.Content})
			}
			sent += llm.EstimateTokens(msgs)
		}
		if e.Calls != srv.Calls() || e.BackendLeaves != s.LeavesLLM || e.CodeLeaves != s.LeavesCode || e.PromptTokens != sent || e.CompletionTokens != 300*s.LeavesLLM {
			t.Errorf("%s: estimate %+v; the run: %d calls, %d LLM and %d code leaves, %d prompt tokens", gr, e, srv.Calls(), s.LeavesLLM, s.LeavesCode, sent)
		}
		// Resumed, nothing is left to estimate.
		if e := EstimateRun(items, l, opts, j, 1, 300); e.Leaves != 0 || e.Calls != 0 {
			t.Errorf("%s: estimate of a finished run %+v", gr, e)
		}
	}
}
