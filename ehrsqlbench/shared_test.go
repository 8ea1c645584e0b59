package ehrsqlbench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/reports"
)

// ehrsqlData opens the real EHRSQL 2024 database and splits (skipped
// without the shared data, failed when CLINSQL_REQUIRE_SHARED is set).
func ehrsqlData(tb testing.TB, splits ...string) (*sqlite.DB, []*ehrsql.Split) {
	tb.Helper()
	root := shared.Path(tb, "ehrsql-2024")
	var out []*ehrsql.Split
	for _, name := range splits {
		s, err := ehrsql.LoadSplit(filepath.Join(root, name))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	db, err := sqlite.Open(filepath.Join(root, "mimic_iv", "mimic_iv.sqlite"), sqlite.Options{Limits: executor.Limits{MaxRows: 1_000_000}, MaxIdle: 8})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, out
}

// goldModel answers each question with its gold label ("null" for an
// unanswerable one), as a model's reply.
func goldModel(splits ...*ehrsql.Split) llmtest.Handler {
	gold := map[string]string{}
	for _, s := range splits {
		for _, q := range s.Data.Questions {
			gold[q.Question] = s.Labels.Values[q.ID]
		}
	}
	return func(c *llmtest.Call) llmtest.Reply {
		sql, ok := gold[questionOf(c)]
		if !ok {
			return llmtest.HTTPError(400, "unknown_question", "no gold for the question")
		}
		return sqlReply(sql, -0.01)
	}
}

const goldModelsYAML = `models:
  - name: gold
    kind: openai
    base_url: %s
    model: gold-model
    api_key_env: LLMTEST_KEY
    limits: {concurrency: 32}
    shots: %d
    strategies: [%s]
%s`

// TestGoldModelScores100OnValid: a fake endpoint answering the gold SQL for
// answerable questions and null otherwise gives RS(10) = 100 on valid
// through the whole pipeline (prompt with the database's schema and train
// examples, generation, post-processing, execution, prediction.json,
// official scoring).
func TestGoldModelScores100OnValid(t *testing.T) {
	testrace.SecondPassOnly(t)
	db, splits := ehrsqlData(t, "valid", "train")
	valid, train := splits[0], splits[1]
	srv := llmtest.Start(t, goldModel(valid), llmtest.Options{})
	models, err := ehrsqlbench.ParseModels("models.yaml", []byte(fmt.Sprintf(goldModelsYAML, srv.OpenAIBaseURL(), 2, "model, model+executable", "")))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := ehrsqlbench.SchemaText(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := ehrsqlbench.Run(context.Background(), ehrsqlbench.RunOptions{
		Options: ehrsqlbench.Options{
			Layout: ehrsqlbench.Layout{Root: out}, Models: models, DB: db, Schema: schema,
			Retriever:   ehrsqlbench.NewRetriever(train),
			LLM:         llm.Options{Getenv: func(string) string { return "sk-test" }},
			Concurrency: 32,
		},
		Eval: valid, Bootstrap: reports.Bootstrap{Seed: 1, Resamples: 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The model strategy scores 100. The executable step also abstains on
	// the one valid question whose gold answer is empty ([]): 1162/1163.
	want := map[string]reliability.Scores{
		"model": {N: 1163, RS0: 100, RS5: 100, RS10: 100, RSN: 100,
			Counts: reliability.Counts{Correct: 931, AbstainedUnanswerable: 232}},
		"model+executable": {N: 1163, RS0: 1162.0 / 1163 * 100, RS5: 1162.0 / 1163 * 100, RS10: 1162.0 / 1163 * 100, RSN: 1162.0 / 1163 * 100,
			Counts: reliability.Counts{Correct: 930, AbstainedAnswerable: 1, AbstainedUnanswerable: 232}},
	}
	for _, r := range res.Results {
		if r.Scores != want[r.Strategy] {
			t.Errorf("%s: %+v, want %+v", r.Strategy, r.Scores, want[r.Strategy])
		}
	}
	if srv.Calls() != 1163 {
		t.Errorf("%d calls, want 1163", srv.Calls())
	}
	// The train examples are in the prompt, the schema too.
	p := srv.Requests()[0].Request.Messages[0].Content
	for _, want := range []string{"Example question:", "CREATE TABLE", "reply with exactly: null"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

// TestCheckDatabaseShared: the shared mimic_iv.sqlite reproduces every
// published valid answer; a database missing a table does not.
func TestCheckDatabaseShared(t *testing.T) {
	dir := shared.Path(t, "ehrsql-2024")
	valid, err := ehrsql.LoadSplit(filepath.Join(dir, "valid"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(filepath.Join(dir, "mimic_iv", "mimic_iv.sqlite"), sqlite.Options{Limits: executor.Limits{Timeout: time.Minute, MaxRows: 1_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := ehrsqlbench.CheckDatabase(context.Background(), db, valid); err != nil {
		t.Fatal(err)
	}
	// A handmade database without the published data: refused by name.
	h := newHandmade(t, 0, nil)
	err = ehrsqlbench.CheckDatabase(context.Background(), h.db, valid)
	if err == nil || !strings.Contains(err.Error(), "does not reproduce the published answers") {
		t.Errorf("a database without the data: %v", err)
	}
}
