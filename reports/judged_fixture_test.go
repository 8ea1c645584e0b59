package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// judgedModel is the fixture model whose run clinsql wrote and judged
// with a model judge: its execution summaries carry every attempt's SQL,
// reply, tokens and timing, and its judge/ folder a ledger and the
// judge's transcript (one grouped call per rubric tree).
const judgedModel = "gamma-judged"

// judgedTask is where gamma-judged needed two fixes: a syntax error, then
// no rows, then the answer.
const judgedTask = "validation/Laboratory_Results_Analysis/medium_level_queries/001"

// hostileReply is model text that must stay text on the page.
const hostileReply = `</script><img src=x onerror="window.__pwned=3"><script>window.__pwned=4</script>`

// judgedReply is the cot reply of an attempt with its query.
func judgedReply(reasoning, sql string) string {
	return "Reasoning: " + reasoning + "\n\nSQL:\n```sql\n" + sql + "\n```"
}

// writeJudgedRun writes gamma-judged's run folder under dir and returns it.
func writeJudgedRun(t testing.TB, dir string, tasks []*datasets.Task) string {
	t.Helper()
	run := filepath.Join(dir, "runs", judgedModel)
	byKey := map[string]*datasets.Task{}
	for _, task := range tasks {
		byKey[task.Key.String()] = task
	}
	settings := refinefmt.Settings{Model: judgedModel, ModelID: "gamma-1", Kind: "openai", Host: "api.example/v1", Prompt: "cot", Rounds: 2, Engine: "duckdb"}
	for _, ft := range fixtures.Tasks() {
		key := filepath.ToSlash(ft.Path())
		task := byKey[key]
		call := func(reply string, in, out int) refinefmt.LLMCall {
			return refinefmt.LLMCall{PromptTokens: in, CompletionTokens: out, CostUSD: float64(in)*2e-6 + float64(out)*8e-6, LatencyMS: 1800, HTTPAttempts: 1, FinishReason: "stop", Reply: reply}
		}
		var atts []refinefmt.Attempt
		if key == judgedTask {
			bad := strings.Replace(ft.SQL, "SELECT", "SELEC", 1)
			empty := ft.SQL + "\n-- restricted to 2101\n"
			atts = []refinefmt.Attempt{
				{Attempt: 1, Request: refinefmt.RequestGenerate, SQL: bad, Status: refinefmt.AttemptError, ErrorClass: executor.ClassSyntax,
					Error: `Syntax error: Unexpected identifier "SELEC" at [1:1]`, LLM: call(judgedReply("Take each admission's lab values, then the median. "+hostileReply, bad), 5120, 410), ExecMS: 12},
				{Attempt: 2, Request: refinefmt.RequestFixError, SQL: empty, Status: refinefmt.AttemptEmpty, LLM: call(judgedReply("Fix the keyword.", empty), 5480, 380), ExecMS: 210},
				{Attempt: 3, Request: refinefmt.RequestFixEmpty, SQL: ft.SQL, Status: refinefmt.AttemptOK, RowCount: 1, Columns: []string{"result"},
					LLM: call(judgedReply("The year filter removed every row; drop it.", ft.SQL), 5650, 350), ExecMS: 190},
			}
		} else {
			atts = []refinefmt.Attempt{{Attempt: 1, Request: refinefmt.RequestGenerate, SQL: ft.SQL, Status: refinefmt.AttemptOK, RowCount: 1,
				LLM: call(judgedReply("Straightforward.", ft.SQL), 5000, 300), ExecMS: 150}}
		}
		rec := &refine.Record{Key: task.Key, Question: task.Question, Status: refinefmt.StatusOK, Attempts: atts, Final: len(atts) - 1}
		for i, a := range atts {
			if a.Status == refinefmt.AttemptOK || a.Status == refinefmt.AttemptEmpty {
				rec.SuccessAttempt = i + 1
				break
			}
		}
		rec.Result = csvResult(t, ft.Result)
		must(t, refine.WriteTask(run, task, rec, refine.Summary(rec, task, settings, "run-1")))
	}
	must(t, runfolder.WriteManifest(run, &runfolder.Manifest{Benchmark: "clinsql", Model: judgedModel, Command: "generate",
		Splits: []string{"test", "validation"}, Complete: true, Engine: runfolder.Engine{Name: "bigquery"}}))

	// The judge: every leaf by the model judge, one call per tree.
	jdir := filepath.Join(run, runfolder.JudgeDir)
	for _, split := range []string{"validation", "test"} {
		p := filepath.Join(jdir, split, judgefmt.GradingFile)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, fixtures.WriteGrading(p, judgedModel, split, func(task fixtures.Task, leaf string, sql bool) (fixtures.Decision, bool) {
			return judgedDecision(filepath.ToSlash(task.Path()), leaf), true
		}))
	}
	const judgeName = "llm:judge/gpt-judge@v1+g1"
	l, err := judgefmt.OpenLedger(filepath.Join(jdir, judgefmt.LedgerFile), judgefmt.LedgerHeader{Mode: rubric.Strict, Judge: judgeName, Samples: 1, Group: "tree"}, nil)
	must(t, err)
	for _, ft := range fixtures.Tasks() {
		key := filepath.ToSlash(ft.Path())
		task := byKey[key]
		for _, tr := range []struct {
			tree judgefmt.Tree
			root *rubric.Node
		}{{judgefmt.TreeSQL, task.SQLRubric.Root}, {judgefmt.TreeResults, task.ResultsRubric.Root}} {
			group := fmt.Sprintf("g-%s-%s", tr.tree, ft.ID)
			var recs []judgefmt.Record
			verdicts := map[string]map[string]string{}
			var ids []string
			for i, leaf := range tr.root.Leaves() {
				d := judgedDecision(key, leaf.ID)
				v := rubric.Fail
				if d.Score == 1 {
					v = rubric.Pass
				}
				r := judgefmt.Record{Task: key, Tree: tr.tree, Leaf: leaf.ID, Verdict: v, Score: d.Score, Source: judgefmt.SourceLLM,
					Explanation: d.Explanation, Judge: judgeName, Group: group, GroupSize: len(tr.root.Leaves()),
					PromptTokens: 600, CompletionTokens: 60, CostUSD: 0.0012, LatencyMS: 2400}
				if i == 0 {
					r.Calls, r.Attempts = 1, 1
				}
				recs = append(recs, r)
				verdicts[leaf.ID] = map[string]string{"reasoning": d.Explanation, "verdict": v.String()}
				ids = append(ids, leaf.ID)
			}
			must(t, l.Append(recs...))
			reply, err := json.Marshal(verdicts)
			must(t, err)
			must(t, l.AppendExchange(judgefmt.Exchange{Task: key, Tree: tr.tree, Group: group, Leaves: ids,
				Messages: []judgefmt.Message{{Role: llmfmt.RoleSystem, Content: "You grade several requirements of a rubric for a clinical text-to-SQL answer."},
					{Role: llmfmt.RoleUser, Content: "## Question\n" + task.Question + "\n\n## Candidate SQL\n```sql\n" + ft.SQL + "\n```\n\n## Requirements to grade\n- [" + strings.Join(ids, "]\n- [") + "]"}},
				Replies: []judgefmt.Reply{{Text: string(reply)}}}))
		}
	}
	must(t, l.Close())
	js := judgefmt.Summary{Model: judgedModel, Mode: rubric.Strict, Judge: judgeName, Complete: true, Completeness: "complete", Tasks: len(fixtures.Tasks())}
	b, err := json.Marshal(js)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(jdir, judgefmt.SummaryFile), b, 0o644))
	return run
}

// judgedDecision is gamma-judged's verdict on a leaf.
func judgedDecision(task, leaf string) fixtures.Decision {
	if passes(judgedModel, task, leaf, 70) {
		return fixtures.Decision{Score: 1, Explanation: fmt.Sprintf("%s is met: the query does what it asks.", leaf)}
	}
	return fixtures.Decision{Score: 0, Explanation: fmt.Sprintf("%s is not met by the query.", leaf)}
}

// csvResult reads a fixture result CSV into an engine result (text cells).
func csvResult(t testing.TB, text string) *executor.Result {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	must(t, err)
	res := &executor.Result{TotalRows: int64(len(recs) - 1)}
	for _, c := range recs[0] {
		res.Columns = append(res.Columns, executor.Column{Name: c})
	}
	for _, r := range recs[1:] {
		row := make([]any, len(r))
		for i, c := range r {
			row[i] = c
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}
