package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

// TestTranscript: a model judge's every call is kept beside the ledger:
// the prompt the endpoint received and the reply it sent, under the
// call's group (or leaf), one exchange per call, leaf by leaf and in
// groups alike; code and skipped leaves have none.
func TestTranscript(t *testing.T) {
	_, _, items := fixtureRun(t)
	for _, g := range []GroupMode{GroupLeaf, GroupTree} {
		t.Run(string(g.orLeaf()), func(t *testing.T) {
			srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
			j := newTestJudge(t, srv, nil, llm.Options{}, 1)
			opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Skipping: true, Group: g}
			dir := t.TempDir()
			l := openLedger(t, dir, opts)
			if o := mustRun(t, items, l, opts); !o.Complete() {
				t.Fatalf("incomplete: %v", o.Stopped)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			xs, bad, err := judgefmt.ReadTranscript(filepath.Join(dir, judgefmt.TranscriptFile))
			if err != nil || bad != 0 {
				t.Fatalf("transcript: %v (%d bad lines)", err, bad)
			}
			if len(xs) != srv.Calls() || len(xs) == 0 {
				t.Fatalf("%d exchanges for %d calls", len(xs), srv.Calls())
			}
			// Every prompt the endpoint saw is in the transcript with
			// the reply it got.
			sent := map[string]bool{}
			for _, r := range srv.Requests() {
				sent[r.LastUser()] = true
			}
			c, err := judgefmt.ReadLedger(filepath.Join(dir, judgefmt.LedgerFile))
			if err != nil {
				t.Fatal(err)
			}
			last := c.Last()
			for k, x := range xs {
				if len(x.Messages) != 2 || x.Messages[0].Role != llmfmt.RoleSystem || !sent[x.Messages[1].Content] {
					t.Errorf("%v: prompt not one the endpoint received", k)
				}
				if len(x.Replies) != 1 || x.Replies[0].Error != "" || !strings.Contains(x.Replies[0].Text, `"verdict"`) {
					t.Errorf("%v: replies %+v", k, x.Replies)
				}
				if (g == GroupLeaf) != (x.Group == "") {
					t.Errorf("%v: group %q in %s mode", k, x.Group, g.orLeaf())
				}
				for _, id := range x.Leaves {
					r := last[judgefmt.LeafKey{Task: x.Task, Tree: x.Tree, Leaf: id}]
					if r == nil || r.Source != judgefmt.SourceLLM || r.Group != x.Group {
						t.Errorf("%v: leaf %s has record %+v", k, id, r)
					}
					if !strings.Contains(x.Replies[0].Text, r.Explanation) {
						t.Errorf("%v: leaf %s's explanation %q is not in the reply %q", k, id, r.Explanation, x.Replies[0].Text)
					}
				}
			}
		})
	}
}

// TestReadTranscriptTorn: a line cut by a killed process is skipped and
// counted; a later exchange of the same call wins.
func TestReadTranscriptTorn(t *testing.T) {
	dir := t.TempDir()
	l, err := judgefmt.OpenLedger(filepath.Join(dir, judgefmt.LedgerFile), judgefmt.LedgerHeader{Mode: rubric.Strict}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := judgefmt.Exchange{Task: "validation/D/easy_level_queries/001", Tree: judgefmt.TreeSQL, Leaves: []string{"a"},
		Messages: []judgefmt.Message{{Role: llmfmt.RoleUser, Content: "first"}}, Replies: []judgefmt.Reply{{Text: "one"}}}
	if err := l.AppendExchange(x); err != nil {
		t.Fatal(err)
	}
	x.Replies = []judgefmt.Reply{{Text: strings.Repeat("é", judgefmt.MaxReplyRunes+10)}}
	if err := l.AppendExchange(x); err != nil {
		t.Fatal(err)
	}
	l.Close()
	appendFile(t, filepath.Join(dir, judgefmt.TranscriptFile), `{"task":"validation/D/easy_level_queries/002","tree":"sql","leav`)
	xs, bad, err := judgefmt.ReadTranscript(filepath.Join(dir, judgefmt.TranscriptFile))
	if err != nil || bad != 1 || len(xs) != 1 {
		t.Fatalf("%d exchanges, %d bad, %v", len(xs), bad, err)
	}
	got := xs[x.Key()].Replies[0].Text
	if n := len([]rune(got)); n != judgefmt.MaxReplyRunes+1 || !strings.HasSuffix(got, "…") {
		t.Errorf("the later exchange, cut: %d characters", n)
	}
	if xs, bad, err := judgefmt.ReadTranscript(filepath.Join(t.TempDir(), judgefmt.TranscriptFile)); xs != nil || bad != 0 || err != nil {
		t.Errorf("no transcript: %v %d %v", xs, bad, err)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
