package judgefmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/clinsql/clinsql/internal/textclip"
	"github.com/clinsql/clinsql/runfolder"
)

// TranscriptFile is the judge's transcript beside the ledger: one
// [Exchange] per backend call (a leaf, or a group of leaves judged
// together), the prompt sent and every reply received. Reports show it
// next to the verdicts; scores never read it.
const TranscriptFile = "transcript.jsonl"

// MaxReplyRunes bounds a reply an exchange keeps: the verdicts are in the
// ledger, the transcript is for reading.
const MaxReplyRunes = 32 << 10

// Exchange is one backend call as the judge made it: the leaves it
// decided, the messages sent, and each sample's reply or error.
type Exchange struct {
	Task string `json:"task"`
	Tree Tree   `json:"tree"`
	// Group is the grouped call's id (Record.Group), "" for a leaf judged
	// alone; Leaves are the leaf ids the call decided, in request order.
	Group  string   `json:"group,omitempty"`
	Leaves []string `json:"leaves"`
	// Messages are the prompt; every sample draws the same one.
	Messages []Message `json:"messages"`
	// Replies holds one entry per chat completion made, in order.
	Replies []Reply   `json:"replies"`
	Time    time.Time `json:"time"`
}

// Message is one chat message of a prompt (the judge's llm.Message, as
// the transcript keeps it: judgefmt links no LLM client).
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Reply is one chat completion's reply text, or the error that stood for
// it (a reply that stayed unreadable after retries, an endpoint failure).
type Reply struct {
	Text  string `json:"text,omitempty"`
	Error string `json:"error,omitempty"`
	// FromCache: the reply came from the reply cache, not the endpoint.
	FromCache bool `json:"from_cache,omitempty"`
}

// Key names the call: its task, tree and group, or its leaf when it
// decided one leaf alone. A call made again (an invalid leaf retried)
// has the key of the first, and the later exchange wins.
func (x *Exchange) Key() ExchangeKey {
	k := ExchangeKey{Task: x.Task, Tree: x.Tree, Group: x.Group}
	if x.Group == "" && len(x.Leaves) > 0 {
		k.Leaf = x.Leaves[0]
	}
	return k
}

// ExchangeKey identifies a call within a run (see Exchange.Key).
type ExchangeKey struct {
	Task  string
	Tree  Tree
	Group string
	Leaf  string
}

// AppendExchange writes x to the transcript beside the ledger (one line,
// one write), opening the file on first use. Replies are cut at
// MaxReplyRunes characters.
func (l *Ledger) AppendExchange(x Exchange) error {
	if x.Time.IsZero() {
		x.Time = time.Now().UTC()
	}
	for i := range x.Replies {
		x.Replies[i].Text = textclip.Runes(x.Replies[i].Text, MaxReplyRunes)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tf == nil {
		path := filepath.Join(filepath.Dir(l.path), TranscriptFile)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		l.tf = f
	}
	if _, err := l.tf.Write(b); err != nil {
		return fmt.Errorf("%s: %w", l.tf.Name(), err)
	}
	return nil
}

// ReadTranscript reads a judge's transcript.jsonl and returns the last
// exchange of every call. A missing file is no exchanges (judged by code
// or replay only, or by a clinsql that kept no transcript); a line that is
// not an exchange (a process killed while writing it) is skipped and
// counted in bad.
func ReadTranscript(path string) (out map[ExchangeKey]*Exchange, bad int, err error) {
	b, err := runfolder.ReadFile(path, runfolder.MaxJudgeFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	out = map[ExchangeKey]*Exchange{}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var x Exchange
		if err := json.Unmarshal(line, &x); err != nil || x.Task == "" || len(x.Leaves) == 0 {
			bad++
			continue
		}
		out[x.Key()] = &x
	}
	return out, bad, nil
}
