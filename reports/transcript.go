package reports

import (
	"fmt"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// Bounds on the transcript a task page embeds. A generation reply and a
// judge reply are read in full by no one past these lengths, and a judge
// prompt repeats the task page's own question, SQL and result preview.
const (
	maxReplyRunes  = 16000
	maxPromptRunes = 24000
)

// hAttempt is one attempt of the model's self-refinement loop. The first
// four fields are the reference format's (every run has them); the rest
// come from clinsql's own record of the attempt (execution_summary.json
// "clinsql"), absent in the released runs.
type hAttempt struct {
	N    int    `json:"n"`
	OK   bool   `json:"ok"`
	Rows int    `json:"rows"`
	Err  string `json:"err,omitempty"`
	// Req is what was asked: generate, fix_error, fix_empty, fix_no_sql.
	Req    string `json:"req,omitempty"`
	SQL    string `json:"sql,omitempty"`
	Status string `json:"st,omitempty"`
	// Class is the engine's error class (syntax_error, runtime_error, ...).
	Class string `json:"cls,omitempty"`
	Reply string `json:"reply,omitempty"`
	// Tokens in and out, dollars, the model call's and the engine's wall
	// time, a reply served from the cache, why the reply ended.
	In     int      `json:"tin,omitempty"`
	Out    int      `json:"tout,omitempty"`
	Cost   float64  `json:"usd,omitempty"`
	LLMms  float64  `json:"llmms,omitempty"`
	Execms float64  `json:"execms,omitempty"`
	Cache  bool     `json:"cache,omitempty"`
	Finish string   `json:"fin,omitempty"`
	Warn   []string `json:"warn,omitempty"`
}

// attempts lists a task's attempts: clinsql's record of each when the run
// has it, else the reference format's refinement_attempts.
func attempts(o *runfolder.Output) (out []hAttempt, detailed bool) {
	if len(o.Detail) > 0 {
		if d, err := refinefmt.ParseDetail(o.Detail); err == nil && len(d.Attempts) > 0 {
			for _, a := range d.Attempts {
				ha := hAttempt{N: a.Attempt, OK: a.Status == refinefmt.AttemptOK || a.Status == refinefmt.AttemptEmpty, Rows: int(a.RowCount),
					Req: a.Request, SQL: clipSQL(a.SQL), Status: a.Status, Class: string(a.ErrorClass), Err: truncRunes(a.Error, maxErrorRunes),
					Reply: truncRunes(a.LLM.Reply, maxReplyRunes), In: a.LLM.PromptTokens, Out: a.LLM.CompletionTokens, Cost: a.LLM.CostUSD,
					LLMms: a.LLM.LatencyMS, Execms: a.ExecMS, Cache: a.LLM.FromCache, Finish: a.LLM.FinishReason}
				for _, w := range a.Warnings {
					ha.Warn = append(ha.Warn, truncRunes(w, maxErrorRunes))
				}
				out = append(out, ha)
			}
			return out, true
		}
	}
	for i, a := range o.Summary.RefinementAttempts {
		ha := hAttempt{N: a.Attempt, OK: a.Success, Rows: int(a.RowCount)}
		if ha.N == 0 {
			ha.N = i + 1
		}
		if a.Error != nil {
			ha.Err = truncRunes(*a.Error, maxErrorRunes)
		}
		for _, w := range a.Warnings {
			ha.Warn = append(ha.Warn, truncRunes(w, maxErrorRunes))
		}
		out = append(out, ha)
	}
	return out, false
}

func clipSQL(s string) string {
	if len(s) > maxSQLBytes {
		return truncRunes(s, maxSQLBytes) + "\n-- (cut for the report)"
	}
	return s
}

// hCalls is a model's judge transcript for the drill-down: the distinct
// system prompts once, and per task (in the order of hModel.Tasks) its
// calls.
type hCalls struct {
	Systems []string  `json:"sys"`
	Tasks   [][]hCall `json:"tasks"`
}

// hCall is one judge call: the leaves it decided, the prompt, each
// sample's reply and what the call cost.
type hCall struct {
	Tree    int      `json:"tr"` // 0: SQL rubric, 1: results rubric
	Group   string   `json:"g,omitempty"`
	Leaves  []string `json:"leaves"`
	Sys     int      `json:"sys"` // index into hCalls.Systems, -1 without one
	User    string   `json:"user"`
	Replies []hReply `json:"rep"`
	Use     string   `json:"u,omitempty"`
}

type hReply struct {
	Text  string `json:"t,omitempty"`
	Err   string `json:"e,omitempty"`
	Cache bool   `json:"c,omitempty"`
}

// calls builds the judge transcript of one task; systems collects the
// distinct system prompts.
func (m *Model) calls(k datasets.Key, systems map[string]int, order *[]string) []hCall {
	var out []hCall
	for _, x := range m.Exchanges[k] {
		c := hCall{Group: x.Group, Leaves: x.Leaves, Sys: -1}
		if x.Tree == judgefmt.TreeResults {
			c.Tree = 1
		}
		for _, msg := range x.Messages {
			switch msg.Role {
			case llmfmt.RoleSystem, llmfmt.RoleDeveloper:
				i, ok := systems[msg.Content]
				if !ok {
					i = len(*order)
					systems[msg.Content] = i
					*order = append(*order, msg.Content)
				}
				c.Sys = i
			default:
				c.User = truncRunes(msg.Content, maxPromptRunes)
			}
		}
		for _, r := range x.Replies {
			c.Replies = append(c.Replies, hReply{Text: truncRunes(r.Text, maxReplyRunes), Err: truncRunes(r.Error, maxErrorRunes), Cache: r.FromCache})
		}
		// The call's cost is spread over its leaves' records (a group's
		// calls on its first): their sum is the call's.
		var calls, in, outTok int
		var usd float64
		var ms int64
		for _, id := range x.Leaves {
			if d := m.Decisions[k][LeafKey{Tree(x.Tree), id}]; d != nil && d.Group == x.Group {
				calls += d.Calls
				in += d.PromptTokens
				outTok += d.CompletionTokens
				usd += d.CostUSD
				ms = max(ms, d.LatencyMS)
			}
		}
		c.Use = fmt.Sprintf("%d %s, %d + %d tokens, $%.4f, %.1f s", calls, plural(calls, "call", "calls"), in, outTok, usd, float64(ms)/1000)
		out = append(out, c)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
