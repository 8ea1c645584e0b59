package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// maxReportBytes is the size report.html must stay under for 17 models x
// 190 tasks, each generated and judged by clinsql with a model judge (the
// largest report a paper's comparison makes): every attempt's SQL and
// reply, every judge call's prompt and reply. Measured by
// TestReportSizeShared.
const maxReportBytes = 48 << 20

// TestReportSizeShared builds the report of 17 models on the 190 released
// validation tasks as if clinsql had generated and judged each of them:
// the released models' SQL and results, each attempt with a reply of
// reasoning and SQL, and a model judge's transcript (the real grouped
// prompt of every tree, a JSON reply with the released judge's
// explanations as reasoning). It logs the sizes and checks report.html
// against maxReportBytes. It takes a few minutes: it runs only with
// CLINSQL_MEASURE_SIZE set; an absolute path there keeps report.html in
// that folder.
//
//	CLINSQL_MEASURE_SIZE=1 go test ./reports -run TestReportSizeShared -v
func TestReportSizeShared(t *testing.T) {
	if os.Getenv("CLINSQL_MEASURE_SIZE") == "" {
		t.Skip("set CLINSQL_MEASURE_SIZE=1 to measure the report of 17 models x 190 tasks")
	}
	data := shared.Path(t, "clinsql-data")
	all, err := datasets.LoadClinSQL(data)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []*datasets.Task
	for _, task := range all {
		if task.Split == "validation" {
			tasks = append(tasks, task)
		}
	}
	models, err := filepath.Glob(filepath.Join(data, "outputs", "inference", "*"))
	if err != nil || len(models) == 0 {
		t.Fatalf("no released runs: %v", err)
	}
	sort.Strings(models)
	root := t.TempDir()
	var runs []string
	for i := 0; i < 17; i++ {
		src := models[i%len(models)]
		name := filepath.Base(src)
		if i >= len(models) {
			name += fmt.Sprintf(" (run %d)", i/len(models)+1)
		}
		grading := filepath.Join(data, "outputs", "evaluation", filepath.Base(src), "validation", judgefmt.GradingFile)
		runs = append(runs, writeMeasuredRun(t, filepath.Join(root, fmt.Sprint(i)), name, src, grading, tasks))
	}
	r, err := Build(context.Background(), Options{Tasks: tasks, Runs: runs, Bootstrap: Bootstrap{Seed: 1, Resamples: 200}, IncludeIncomplete: true})
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	// The parts, as the page embeds them.
	p := r.htmlData()
	var tasksB, modelsB, callsB int
	b, _ := pack(p.Tasks)
	tasksB = len(b)
	for _, m := range p.Models {
		b, _ := pack(m.Tasks)
		modelsB += len(b)
		if m.Calls != nil {
			c, _ := pack(m.Calls)
			callsB += len(c)
		}
	}
	t.Logf("17 models x %d tasks: report.html %.1f MB (tasks %.1f MB, models' tasks and attempts %.1f MB, judge transcripts %.1f MB, base64 of gzip)",
		len(tasks), mb(html.Len()), mb(tasksB), mb(modelsB), mb(callsB))
	if dir := os.Getenv("CLINSQL_MEASURE_SIZE"); filepath.IsAbs(dir) {
		// Keep the report to open it (CLINSQL_MEASURE_SIZE=/tmp/big).
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, ReportHTML), html.Bytes(), 0o644))
	}
	if html.Len() > maxReportBytes {
		t.Errorf("report.html is %.1f MB, over the %.0f MB bound", mb(html.Len()), mb(maxReportBytes))
	}
}

func mb(n int) float64 { return float64(n) / (1 << 20) }

// writeMeasuredRun writes a run folder of model name from a released run:
// its answers as clinsql's execution summaries with replies, and a judge/
// with the released decisions as a model judge's ledger and transcript.
func writeMeasuredRun(t *testing.T, dir, name, released, grading string, tasks []*datasets.Task) string {
	t.Helper()
	outs, err := runfolder.LoadOutputs(released)
	if err != nil && len(outs) == 0 {
		t.Fatal(err)
	}
	items, err := judge.Pair(tasks, outs, released)
	if err != nil {
		t.Logf("%s: %v", released, err)
	}
	g, err := scoring.ReadGrading(grading)
	if err != nil {
		t.Fatal(err)
	}
	evals := map[string]*scoring.Evaluation{}
	for i := range g.Evaluations {
		if k, err := datasets.ParseKey(g.Evaluations[i].SamplePath); err == nil {
			evals[k.String()] = &g.Evaluations[i]
		}
	}
	settings := refinefmt.Settings{Model: name, ModelID: name, Prompt: "cot", Rounds: 2, Engine: "bigquery"}
	jdir := filepath.Join(dir, runfolder.JudgeDir)
	must(t, os.MkdirAll(jdir, 0o755))
	l, err := judgefmt.OpenLedger(filepath.Join(jdir, judgefmt.LedgerFile), judgefmt.LedgerHeader{Mode: rubric.Strict, Judge: "llm:judge/gpt-4.1@v1+g1", Samples: 1, Group: "tree"}, nil)
	must(t, err)
	for _, it := range items {
		o := findOutput(outs, it.Task.Key)
		sql := o.Summary.FinalSQL
		n := max(1, len(o.Summary.RefinementAttempts))
		rec := &refine.Record{Key: it.Task.Key, Question: it.Task.Question, Status: refinefmt.StatusOK, Final: n - 1}
		for a := 1; a <= n; a++ {
			at := refinefmt.Attempt{Attempt: a, Request: refinefmt.RequestGenerate, SQL: sql, Status: refinefmt.AttemptOK, RowCount: o.Summary.RowCount,
				LLM: refinefmt.LLMCall{PromptTokens: 5200, CompletionTokens: 600, CostUSD: 0.01, LatencyMS: 4200, HTTPAttempts: 1, FinishReason: "stop",
					Reply: "Reasoning: " + reasoning(it.Task) + "\n\nSQL:\n```sql\n" + sql + "\n```"}}
			if a < n {
				at.Status, at.ErrorClass, at.Error = refinefmt.AttemptError, "syntax_error", "Syntax error: Unexpected keyword at [3:5]"
			}
			if a > 1 {
				at.Request = refinefmt.RequestFixError
			}
			rec.Attempts = append(rec.Attempts, at)
		}
		must(t, refine.WriteTask(dir, it.Task, rec, refine.Summary(rec, it.Task, settings, "measure")))
		if o.ResultCSV != "" {
			copyFile(t, o.ResultCSV, filepath.Join(runfolder.TaskDir(dir, it.Task.Key), runfolder.ResultFile(it.Task.ID)))
		}
		e := evals[it.Task.Key.String()]
		for _, tr := range []struct {
			tree judgefmt.Tree
			root *rubric.Node
			recs map[string]scoring.Record
		}{{judgefmt.TreeSQL, it.Task.SQLRubric.Root, nil}, {judgefmt.TreeResults, it.Task.ResultsRubric.Root, nil}} {
			if e != nil {
				tr.recs = e.SQLEvaluations
				if tr.tree == judgefmt.TreeResults {
					tr.recs = e.ResultsEvaluations
				}
			}
			leaves := tr.root.Leaves()
			req := &judge.GroupRequest{ID: fmt.Sprintf("%s-%s", tr.tree, it.Task.ID), Task: it.Task, Answer: it.Answer, Tree: tr.tree, Leaves: leaves}
			reply := map[string]judge.Reply{}
			var recs []judgefmt.Record
			for i, leaf := range leaves {
				r := tr.recs[leaf.ID]
				v := rubric.Fail
				if r.Score == 1 {
					v = rubric.Pass
				}
				reply[leaf.ID] = judge.Reply{Reasoning: r.Explanation, Verdict: v.String()}
				lr := judgefmt.Record{Task: it.Task.Key.String(), Tree: tr.tree, Leaf: leaf.ID, Verdict: v, Score: r.Score, Source: judgefmt.SourceLLM,
					Explanation: r.Explanation, Judge: "llm:judge/gpt-4.1@v1+g1", Group: req.ID, GroupSize: len(leaves), PromptTokens: 300, CompletionTokens: 40}
				if i == 0 {
					lr.Calls = 1
				}
				recs = append(recs, lr)
			}
			must(t, l.Append(recs...))
			text, err := json.Marshal(reply)
			must(t, err)
			must(t, l.AppendExchange(judgefmt.Exchange{Task: it.Task.Key.String(), Tree: tr.tree, Group: req.ID, Leaves: req.IDs(),
				Messages: messages(judge.BuildGroupPrompt(req, judge.PromptOptions{})), Replies: []judgefmt.Reply{{Text: string(text)}}}))
		}
	}
	must(t, l.Close())
	copyFile(t, grading, filepath.Join(jdir, judgefmt.GradingFile))
	return dir
}

// reasoning is a cot reply's reasoning of realistic length and wording:
// the task's own rubric requirements, as a model restates them.
func reasoning(t *datasets.Task) string {
	var b strings.Builder
	for _, l := range append(t.SQLRubric.Root.Leaves(), t.ResultsRubric.Root.Leaves()...) {
		if b.Len() > 1500 {
			break
		}
		b.WriteString("We need to make sure that ")
		b.WriteString(strings.ToLower(strings.TrimSpace(l.Requirements)))
		b.WriteString(" ")
	}
	return b.String()
}

func findOutput(outs []*runfolder.Output, k datasets.Key) *runfolder.Output {
	for _, o := range outs {
		if o.Key == k {
			return o
		}
	}
	return nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	must(t, err)
	defer in.Close()
	out, err := os.Create(to)
	must(t, err)
	_, err = io.Copy(out, in)
	must(t, err)
	must(t, out.Close())
}

// messages are an LLM prompt as the judge's transcript keeps it.
func messages(ms []llm.Message) []judgefmt.Message {
	out := make([]judgefmt.Message, len(ms))
	for i, m := range ms {
		out[i] = judgefmt.Message{Role: m.Role, Content: m.Content}
	}
	return out
}
