package ehrsqlbench_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// questionLine finds the question of a prompt: the last `Question: "..."`
// line (few-shot examples are "Example question:").
var questionLine = regexp.MustCompile(`(?m)^Question: (".*")$`)

// questionOf returns the question a request asks.
func questionOf(c *llmtest.Call) string {
	ms := questionLine.FindAllStringSubmatch(c.LastUser(), -1)
	if len(ms) == 0 {
		return ""
	}
	q, err := strconv.Unquote(ms[len(ms)-1][1])
	if err != nil {
		return ""
	}
	return q
}

// sampleOf is the sample index of a request: the endpoints of these tests
// have seed 0, and sample i is sent with seed i.
func sampleOf(c *llmtest.Call) int {
	if c.Request.Seed == nil {
		return 0
	}
	return *c.Request.Seed
}

// script answers (model, question, sample) with a reply; an unknown
// question gets an error reply, which makes it visible.
type script func(model, question string, sample int) (llmtest.Reply, bool)

func (s script) handler() llmtest.Handler {
	return func(c *llmtest.Call) llmtest.Reply {
		r, ok := s(c.Request.Model, questionOf(c), sampleOf(c))
		if !ok {
			return llmtest.HTTPError(400, "unknown_question", fmt.Sprintf("no script for %q", questionOf(c)))
		}
		return r
	}
}

// sqlReply is a reply holding sql in a fence, or null.
func sqlReply(sql string, lp float64) llmtest.Reply {
	if sql == ehrsql.Null {
		return llmtest.Reply{Content: "null", Logprob: lp}
	}
	return llmtest.Reply{Content: "```sql\n" + sql + "\n```", Logprob: lp}
}

// writeSplit writes data.json and label.json of a split folder.
func writeSplit(t testing.TB, root, name string, ids, questions, labels []string) *ehrsql.Split {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	type q struct {
		ID       string `json:"id"`
		Question string `json:"question"`
	}
	data := struct {
		Version string `json:"version"`
		Data    []q    `json:"data"`
	}{Version: name + "_test"}
	lab := map[string]string{}
	for i, id := range ids {
		data.Data = append(data.Data, q{id, questions[i]})
		lab[id] = labels[i]
	}
	for file, v := range map[string]any{"data.json": data, "label.json": lab} {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := ehrsql.LoadSplit(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
