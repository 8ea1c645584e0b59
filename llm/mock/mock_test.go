package mock_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/mock"
	"github.com/clinsql/clinsql/refine"
)

const goldSQL = "SELECT subject_id, MAX(valuenum) AS peak\nFROM labevents\nWHERE itemid = 50912 AND valuenum >= 1.2\nGROUP BY subject_id\nORDER BY peak DESC"

func questions(n int) map[string]string {
	out := map[string]string{}
	for i := range n {
		out[fmt.Sprintf("What is the peak creatinine of patients in cohort %d?", i)] = goldSQL
	}
	return out
}

func start(t *testing.T, opts mock.Options) (*mock.Server, *llm.Client) {
	t.Helper()
	srv, err := mock.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := llm.New(srv.Endpoint("mock"), llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return srv, c
}

// generate asks the way a generation prompt does: the question quoted on
// its own line.
func generate(t *testing.T, c *llm.Client, q, extra string, logprobs bool) llm.Response {
	t.Helper()
	resp, err := c.Complete(context.Background(), llm.Request{Logprobs: logprobs,
		Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: "Write one query that answers the question below.\n\nQuestion: " + strconv.Quote(q) + "\n\n" + extra}}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestMix: the kinds come in the stated mix, each reply as the kind says:
// gold, a wrong query that differs, a query that does not parse, or null;
// with log-probabilities, gold answers are the surest. The same seed gives
// the same replies.
func TestMix(t *testing.T) {
	mix := mock.Mix{Gold: 0.5, Wrong: 0.2, Broken: 0.2, Abstain: 0.1}
	qs := questions(600)
	srv, c := start(t, mock.Options{Seed: 3, Mix: mix, Gold: qs})
	count := map[mock.Kind]int{}
	lp := map[mock.Kind]float64{}
	for q := range qs {
		k := srv.KindOf(q)
		count[k]++
		resp := generate(t, c, q, "", true)
		x, err := refine.Extract(resp.Text)
		if err != nil {
			t.Fatalf("%s: reply %q has no query: %v", k, resp.Text, err)
		}
		switch k {
		case mock.KindGold:
			if x.SQL != goldSQL {
				t.Errorf("gold answer %q", x.SQL)
			}
		case mock.KindWrong:
			if x.SQL == goldSQL || !strings.Contains(x.SQL, "FROM labevents") || strings.Contains(x.SQL, "SELEC ") {
				t.Errorf("wrong answer %q", x.SQL)
			}
		case mock.KindBroken:
			if !strings.HasPrefix(x.SQL, "SELEC ") {
				t.Errorf("broken answer %q", x.SQL)
			}
		case mock.KindAbstain:
			if x.SQL != "null" {
				t.Errorf("abstention %q", x.SQL)
			}
		}
		if resp.Logprobs.Tokens == 0 || resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
			t.Fatalf("no log-probabilities or usage: %+v", resp)
		}
		lp[k] += resp.Logprobs.Mean()
	}
	want := map[mock.Kind]float64{mock.KindGold: 0.5, mock.KindWrong: 0.2, mock.KindBroken: 0.2, mock.KindAbstain: 0.1}
	for k, share := range want {
		if got := float64(count[k]) / float64(len(qs)); math.Abs(got-share) > 0.05 {
			t.Errorf("%s: %.3f of the questions, want about %.2f", k, got, share)
		}
	}
	mean := func(k mock.Kind) float64 { return lp[k] / float64(count[k]) }
	if !(mean(mock.KindGold) > mean(mock.KindWrong) && mean(mock.KindWrong) > mean(mock.KindBroken)) {
		t.Errorf("mean log-probabilities gold %.3f, wrong %.3f, broken %.3f: want gold surest, broken least sure", mean(mock.KindGold), mean(mock.KindWrong), mean(mock.KindBroken))
	}
	// Determinism: another server, same seed.
	srv2, c2 := start(t, mock.Options{Seed: 3, Mix: mix, Gold: qs})
	for q := range qs {
		if srv2.KindOf(q) != srv.KindOf(q) || generate(t, c2, q, "", false).Text != generate(t, c, q, "", false).Text {
			t.Fatalf("%q: another server with the same seed answers otherwise", q)
		}
		break
	}
	if srv.Calls() == 0 {
		t.Error("no call counted")
	}
}

// TestFixRescues: asked to fix its broken query, the mock answers gold or
// wrong; an abstention stays one.
func TestFixRescues(t *testing.T) {
	qs := questions(200)
	srv, c := start(t, mock.Options{Seed: 1, Gold: qs})
	fixed := map[bool]int{}
	for q := range qs {
		first := generate(t, c, q, "", false)
		x, _ := refine.Extract(first.Text)
		again := generate(t, c, q, "The query below failed:\n```sql\n"+x.SQL+"\n```\nsyntax error", false)
		y, _ := refine.Extract(again.Text)
		switch srv.KindOf(q) {
		case mock.KindBroken:
			fixed[y.SQL == goldSQL]++
			if strings.HasPrefix(y.SQL, "SELEC ") {
				t.Errorf("a fix is broken again: %q", y.SQL)
			}
		case mock.KindAbstain:
			if y.SQL != "null" {
				t.Errorf("an abstention became %q", y.SQL)
			}
		}
	}
	if fixed[true] == 0 || fixed[false] == 0 {
		t.Errorf("fixes: %d gold, %d wrong; want both", fixed[true], fixed[false])
	}
}

func TestParseMix(t *testing.T) {
	m, err := mock.ParseMix("gold=6, wrong=2,broken=1,abstain=1")
	if err != nil || m != (mock.Mix{Gold: 6, Wrong: 2, Broken: 1, Abstain: 1}) || m.String() != "gold=0.6,wrong=0.2,broken=0.1,abstain=0.1" {
		t.Errorf("ParseMix: %+v %v (%s)", m, err, m)
	}
	for _, bad := range []string{"gold", "gold=-1", "gold=x", "right=1", "gold=0,wrong=0", "gold=NaN"} {
		if _, err := mock.ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) accepted", bad)
		}
	}
	if _, err := mock.Start(mock.Options{Mix: mock.Mix{Gold: -1, Wrong: 2}}); err == nil {
		t.Error("a negative share was accepted")
	}
}

// TestUnknownQuestion: a prompt without a known question gets a query
// that runs but answers nothing asked.
func TestUnknownQuestion(t *testing.T) {
	_, c := start(t, mock.Options{Gold: questions(3)})
	x, err := refine.Extract(generate(t, c, "How tall is the hospital?", "", false).Text)
	if err != nil || x.SQL != "SELECT 1 AS mock_unknown_question" {
		t.Errorf("%+v %v", x, err)
	}
}
