package refinefmt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/runfolder"
)

func testKey() datasets.Key {
	return datasets.Key{Split: "validation", Domain: "Laboratory_Results_Analysis", Difficulty: "easy", ID: "7"}
}

func testSummary() *TaskSummary {
	errText := "syntax_error: unexpected FROM"
	return &TaskSummary{
		ExecutionSummary: runfolder.ExecutionSummary{Query: "How many?", FinalSQL: "SELECT 1", ExecutionSuccess: true, RowCount: 1,
			Model: "m", ModelID: "gpt-x", RefinementAttempts: []runfolder.Attempt{{Attempt: 1, Error: &errText}, {Attempt: 2, Success: true, RowCount: 1}}},
		Clinsql: &TaskDetail{
			Status: StatusOK, SuccessAttempt: 2, FinalAttempt: 2, ResultFile: "result_7.csv", RowsWritten: 1,
			Attempts: []Attempt{
				{Attempt: 1, Request: RequestGenerate, SQL: "SELECT FROM", Status: AttemptError, ErrorClass: executor.ClassSyntax, Error: "unexpected FROM",
					LLM: LLMCall{PromptTokens: 10, CompletionTokens: 3, HTTPAttempts: 1, Reply: "```sql\nSELECT FROM\n```"}},
				{Attempt: 2, Request: RequestFixError, SQL: "SELECT 1", Status: AttemptOK, RowCount: 1, Columns: []string{"f0_"},
					LLM: LLMCall{PromptTokens: 12, CompletionTokens: 3, FromCache: true, Logprobs: &llmfmt.Logprobs{Tokens: 3, Sum: -0.5, Min: -0.25}}},
			},
			Usage:      UsageJSON{Calls: 2, CacheHits: 1, PromptTokens: 22, CompletionTokens: 6},
			FinishedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), RunID: "run-1",
			Settings: Settings{Model: "m", ModelID: "gpt-x", Kind: "openai", Sampling: llmfmt.Sampling{Temperature: new(0.0)}, Prompt: ModeCoT, Rounds: 2, Engine: "duckdb"},
		},
	}
}

// TestSummaryRoundTrip: what WriteSummary writes, ReadSummary reads back
// whole, and runfolder's reader keeps the "clinsql" part for ParseDetail.
func TestSummaryRoundTrip(t *testing.T) {
	run, k, want := t.TempDir(), testKey(), testSummary()
	if err := os.MkdirAll(runfolder.TaskDir(run, k), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(run, k, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadSummary(run, k)
	if err != nil || !ok {
		t.Fatalf("ReadSummary: ok %v, %v", ok, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSummary:\n got %+v\nwant %+v", got.Clinsql, want.Clinsql)
	}
	raw, err := json.Marshal(want.Clinsql)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDetail(raw)
	if err != nil || !reflect.DeepEqual(d, want.Clinsql) {
		t.Errorf("ParseDetail: %+v, %v; want %+v", d, err, want.Clinsql)
	}
	if _, err := ParseDetail(json.RawMessage(`{"attempts": 3}`)); err == nil {
		t.Error("ParseDetail of attempts that are not a list: no error")
	}
}

// TestReadSummaryNotDone: a task without a summary, or with one over
// runfolder.MaxSummaryBytes, is not done (it is answered again); a summary
// that does not decode is an error naming the file.
func TestReadSummaryNotDone(t *testing.T) {
	k := testKey()
	for _, c := range []struct {
		name    string
		content []byte // nil: no file
		wantErr bool
	}{
		{name: "missing"},
		{name: "too large", content: []byte(`{"query": "` + strings.Repeat("x", runfolder.MaxSummaryBytes) + `"}`)},
		{name: "not JSON", content: []byte(`{"query": `), wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := t.TempDir()
			path := filepath.Join(runfolder.TaskDir(run, k), runfolder.ExecutionSummaryFile)
			if c.content != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, c.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sum, ok, err := ReadSummary(run, k)
			if ok || sum != nil {
				t.Errorf("ReadSummary: ok %v, %+v; want not done", ok, sum)
			}
			if c.wantErr != (err != nil) || err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("ReadSummary: %v; want an error naming %s: %v", err, path, c.wantErr)
			}
		})
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, ok, err := ReadSettings(dir); ok || err != nil {
		t.Fatalf("ReadSettings of a new folder: ok %v, %v; want none", ok, err)
	}
	want := testSummary().Clinsql.Settings
	if err := WriteSettings(dir, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadSettings(dir)
	if err != nil || !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSettings: %+v, %v, %v; want %+v", got, ok, err, want)
	}
	path := filepath.Join(dir, SettingsFile)
	if err := os.WriteFile(path, []byte(`{"rounds": "two"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadSettings(dir); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadSettings of a bad file: %v; want an error naming %s", err, path)
	}
	// A run folder comes from elsewhere: its settings are read as its
	// other files, never through a link.
	elsewhere := filepath.Join(t.TempDir(), "settings.json")
	if err := WriteSettings(filepath.Dir(elsewhere), want); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(elsewhere), SettingsFile), path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadSettings(dir); !errors.Is(err, runfolder.ErrNotRegular) {
		t.Errorf("ReadSettings through a link: %v; want runfolder.ErrNotRegular", err)
	}
}

func TestKeptAttempts(t *testing.T) {
	as := []Attempt{{Attempt: 1, SQL: strings.Repeat("s", 100), Error: strings.Repeat("e", 100)}, {Attempt: 2, SQL: "SELECT 1"}}
	kept := KeptAttempts(as, 40, 30)
	if len(kept) != 2 || len(kept[0].SQL) > 40 || len(kept[0].Error) > 30 || kept[1].SQL != "SELECT 1" {
		t.Errorf("KeptAttempts: %+v", kept)
	}
	if len(as[0].SQL) != 100 || len(as[0].Error) != 100 {
		t.Error("KeptAttempts changed its argument")
	}
}
