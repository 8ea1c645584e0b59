package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// The budget tests' provider reports 3x the max_tokens each request sends,
// so every call costs more than the client reserved for it.
const (
	budgetCap     = 0.05
	budgetInflate = 3
)

// budgetPrices is written to prices.yaml: dear enough that the runs below
// would spend several times the cap if nothing held them.
var budgetPrices = llm.Prices{"judge-test": {Prompt: 2, Completion: 10}, "fake-alpha": {Prompt: 0.5, Completion: 3}}

func writeBudgetPrices(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "prices.yaml")
	b := "prices:\n"
	for m, p := range budgetPrices {
		b += "  " + m + ": {prompt: " + ftoa(p.Prompt) + ", completion: " + ftoa(p.Completion) + "}\n"
	}
	if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// billed is what the fake provider billed, and the largest cost of one of
// its replies: the provider's view of the spending.
func billed(t *testing.T, srv *llmtest.Server, model string) (total, worstCall float64) {
	t.Helper()
	p, c := srv.Billed()
	total, _ = budgetPrices.Cost(model, llm.Usage{PromptTokens: p, CompletionTokens: c})
	for _, call := range srv.Requests() {
		// The fake's usage: 1 token per 4 bytes of prompt plus one, and the
		// inflated completion.
		u := llm.Usage{PromptTokens: 1 + len(call.Prompt())/4, CompletionTokens: budgetInflate * *call.Request.MaxTokens}
		usd, _ := budgetPrices.Cost(model, u)
		worstCall = max(worstCall, usd)
	}
	return total, worstCall
}

// resumeUntilDone runs args again and again, as the README says to after
// exit code 3, until a run makes no call; it returns the number of runs.
// The first run meets the provider's overrun: it must stop (exit code 3)
// and say why.
func resumeUntilDone(t *testing.T, srv *llmtest.Server, runCmd func() (int, string, string)) int {
	t.Helper()
	for runs := 1; runs <= 12; runs++ {
		before := srv.Calls()
		code, stdout, stderr := runCmd()
		if code != 0 && code != exitIncomplete {
			t.Fatalf("run %d: exit %d\n%s\n%s", runs, code, stdout, stderr)
		}
		if runs == 1 && (code != exitIncomplete || !strings.Contains(stdout+stderr, "more than the token cap sent")) {
			t.Errorf("the first run met usage above its reservations: exit %d\n%s\n%s", code, stdout, stderr)
		}
		if !strings.Contains(stderr, "spent so far in this folder: $") {
			t.Errorf("run %d does not say what the folder has spent:\n%s", runs, stderr)
		}
		if code == 0 || srv.Calls() == before {
			return runs
		}
	}
	t.Fatal("still calling after 12 runs")
	return 0
}

// checkFolderSpending: the folder's record never says less than the
// provider billed, and neither exceeds the cap by more than one call.
func checkFolderSpending(t *testing.T, srv *llmtest.Server, model, out string, runs int) {
	t.Helper()
	total, worst := billed(t, srv, model)
	m, err := llm.OpenMeter(out, budgetPrices, budgetCap)
	if err != nil {
		t.Fatal(err)
	}
	recorded := m.Spent()
	m.Close()
	t.Logf("%d runs, %d calls: billed $%.4f, recorded $%.4f; cap $%.2f, one call up to $%.4f", runs, srv.Calls(), total, recorded, budgetCap, worst)
	if recorded < total-1e-9 {
		t.Errorf("the folder records $%.4f, less than the $%.4f billed", recorded, total)
	}
	if total > budgetCap+worst || recorded > budgetCap+worst {
		t.Errorf("billed $%.4f, recorded $%.4f: more than the cap $%.2f plus one call ($%.4f)", total, recorded, budgetCap, worst)
	}
}

// TestJudgeBudgetFolder: judge --budget caps the output folder across
// resumed runs, with a provider reporting 3x max_tokens.
func TestJudgeBudgetFolder(t *testing.T) {
	dir, _ := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	srv := llmtest.Start(t, llmtest.Inflate(fakeJudge(func(string) string { return "pass" }), budgetInflate), llmtest.Options{APIKey: "secret"})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	writeBudgetPrices(t, dir) // over the config's prices.yaml
	out := filepath.Join(dir, "out")
	runs := resumeUntilDone(t, srv, func() (int, string, string) {
		return runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg,
			"--budget", ftoa(budgetCap), "--group", "leaf", "--code-checks=false")
	})
	checkFolderSpending(t, srv, "judge-test", out, runs)
}

// TestGenerateBudgetFolder: generate --budget caps the output folder
// across resumed runs, with a provider reporting 3x max_tokens.
func TestGenerateBudgetFolder(t *testing.T) {
	db := buildMini(t)
	dir := t.TempDir()
	tasksDir := filepath.Join(dir, "data")
	if _, err := fixtures.WriteClinSQL(tasksDir); err != nil {
		t.Fatal(err)
	}
	// A query that fails: every task uses its refinement rounds.
	bad := llmtest.Text("```sql\nSELECT gendr FROM `physionet-data.mimiciv_3_1_hosp.patients`\n```")
	srv := llmtest.Start(t, llmtest.Inflate(llmtest.Fixed(bad), budgetInflate), llmtest.Options{APIKey: genKey})
	models := writeModels(t, dir, map[string]string{"alpha": srv.OpenAIBaseURL()})
	prices := writeBudgetPrices(t, dir)
	out := filepath.Join(dir, "out")
	runs := resumeUntilDone(t, srv, func() (int, string, string) {
		return runGen(t, "generate", "--models", models, "--tasks", tasksDir, "--db", db, "--out", out, "--quiet",
			"--prices", prices, "--budget", ftoa(budgetCap))
	})
	checkFolderSpending(t, srv, "fake-alpha", out, runs)
}
