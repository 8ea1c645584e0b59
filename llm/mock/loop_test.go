package mock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/mock"
	"github.com/clinsql/clinsql/refine"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/reports"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// TestWholeLoopOffline: the mock, reached as any endpoint, answers the
// fixture tasks through refine's loop on the embedded engine, judges the
// run as a model judge, and the report shows every attempt's reply and
// every judge call: the loop clinsql runs, without a key or a network.
func TestWholeLoopOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a DuckDB database")
	}
	ctx := context.Background()
	dir := t.TempDir()
	splits, err := fixtures.WriteClinSQL(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := datasets.LoadClinSQL(splits)
	if err != nil {
		t.Fatal(err)
	}
	// The engine here is DuckDB without the BigQuery bridge (the command
	// line wires it): the mock's gold queries are DuckDB's, one per task.
	gold := map[string]string{}
	for i, task := range tasks {
		gold[task.Question] = fmt.Sprintf("SELECT gender, COUNT(*) AS n\nFROM mimiciv_3_1_hosp.patients\nWHERE anchor_age >= %d\nGROUP BY gender\nORDER BY gender", 20+i)
	}
	// Every task broken at first: the loop fixes each, a fix being gold or
	// wrong.
	srv, err := mock.Start(mock.Options{Seed: 2, Mix: mock.Mix{Broken: 1, Gold: 1, Wrong: 1}, Gold: gold})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	db := filepath.Join(dir, "mini.duckdb")
	if _, err := mimic.Build(ctx, mimic.BuildOptions{MimicDir: "../../executor/mimic/testdata/mini", Out: db}); err != nil {
		t.Fatal(err)
	}
	ex, err := duckdb.Open(db, duckdb.Options{Limits: executor.Limits{Timeout: time.Minute}, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	model := refine.Model{Endpoint: srv.Endpoint("mock")}
	out := filepath.Join(dir, "runs")
	if _, err := refine.Generate(ctx, refine.Options{Out: out, Tasks: tasks, Models: []refine.Model{model}, Executor: ex}); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(out, "mock")
	outs, err := runfolder.LoadOutputs(run)
	if err != nil || len(outs) != len(tasks) {
		t.Fatalf("%d outputs for %d tasks: %v", len(outs), len(tasks), err)
	}
	kinds := map[mock.Kind]int{}
	for _, task := range tasks {
		kinds[srv.KindOf(task.Question)]++
	}
	// The judge: the mock again, as a model judge, leaves grouped per tree.
	client, err := llm.New(srv.Endpoint("mock-judge"), llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	j, err := judge.NewLLMJudge(client, judge.LLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items, err := judge.Pair(tasks, outs, run)
	if err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(run, runfolder.JudgeDir)
	if err := os.MkdirAll(jdir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := judge.Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Skipping: true, Group: judge.GroupTree}
	led, err := judgefmt.OpenLedger(filepath.Join(jdir, judgefmt.LedgerFile), judgefmt.LedgerHeader{Mode: rubric.Strict, Judge: j.Name(), CodeChecks: true, Skipping: true, Samples: 1, Group: string(judge.GroupTree)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := judge.Run(ctx, items, led, opts)
	if err != nil {
		t.Fatal(err)
	}
	led.Close()
	if !o.Complete() {
		t.Fatalf("judge incomplete: %v", o.Stopped)
	}
	if err := judge.Score(o, "mock").WriteFiles(jdir, o); err != nil {
		t.Fatal(err)
	}
	r, err := reports.Build(ctx, reports.Options{Tasks: tasks, Runs: []string{run}, Bootstrap: reports.Bootstrap{Seed: 1, Resamples: 50}})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Models[0]
	replies, fixes := 0, 0
	for _, o := range m.Outputs {
		var d refinefmt.TaskDetail
		if err := jsonUnmarshal(o.Detail, &d); err != nil {
			t.Fatal(err)
		}
		for _, a := range d.Attempts {
			if strings.Contains(a.LLM.Reply, "```sql") {
				replies++
			}
			if a.Request == refinefmt.RequestFixError {
				fixes++
			}
		}
	}
	if replies == 0 || fixes != kinds[mock.KindBroken] || kinds[mock.KindBroken] == 0 {
		t.Errorf("%d replies recorded, %d fixes for %d broken first answers", replies, fixes, kinds[mock.KindBroken])
	}
	calls := 0
	for _, xs := range m.Exchanges {
		for _, x := range xs {
			calls++
			if len(x.Replies) != 1 || x.Replies[0].Error != "" || !strings.Contains(x.Replies[0].Text, `"verdict"`) {
				t.Errorf("judge call %v: replies %+v", x.Key(), x.Replies)
			}
		}
	}
	if calls == 0 {
		t.Error("no judge call in the report")
	}
	var html strings.Builder
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	t.Logf("mock: %d calls; first answers %v; %d judge calls; report %d bytes", srv.Calls(), kinds, calls, html.Len())
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
