package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
)

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCardsRefuseTheRepository(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("cards", "-out", filepath.Join(repo, "sub", "cards"))
	if code == 0 || !strings.Contains(stderr, "inside the git repository "+repo) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "sub")); err == nil {
		t.Error("the folder was created")
	}
	if code, _, stderr := runCmd("cards"); code == 0 || !strings.Contains(stderr, "-out is required") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestDrawRefusesToReplace(t *testing.T) {
	f := filepath.Join(t.TempDir(), "draw.jsonl")
	if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("draw", "-out", f)
	if code == 0 || !strings.Contains(stderr, "exists: the cards and labels refer to it") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestMerge merges filled templates over the project's fixture tasks.
func TestMerge(t *testing.T) {
	data := t.TempDir()
	if _, err := fixtures.WriteClinSQL(filepath.Join(data, "clinsql-data")); err != nil {
		t.Fatal(err)
	}
	key := datasets.Key{Split: "validation", Domain: "Diagnostic_Procedures", Difficulty: "easy", ID: "001"}
	draw := func(leaf, tree, card string) labelset.Label {
		return labelset.Label{Key: key, Model: "m", Tree: tree, Leaf: leaf, Card: card,
			Chosen: labelset.LLMOnly, Seed: 27, Stratum: "llm-only/sql/m", Population: 10, Drawn: 2}
	}
	sample := []labelset.Label{draw("gender-selection", labelset.TreeSQL, "c0001"), draw("age-range-selection", labelset.TreeSQL, "c0002")}
	dir := t.TempDir()
	write := func(name string, ls []labelset.Label, template bool) string {
		var b bytes.Buffer
		if err := labelset.Write(&b, ls, template); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	samplePath := write("sample.jsonl", sample, true)
	blind := func(l labelset.Label, label, why string) labelset.Label {
		return labelset.Label{Key: l.Key, Model: l.Model, Tree: l.Tree, Leaf: l.Leaf, Card: l.Card, Label: label, Rationale: why}
	}
	filled := write("labels.jsonl", []labelset.Label{
		blind(sample[0], labelset.Pass, "WHERE gender = 'F' keeps the women asked for"),
		blind(sample[1], "", ""),
	}, true)
	out := filepath.Join(dir, "set.jsonl")
	args := []string{"merge", "-shared", data, "-sample", samplePath, "-out", out}

	code, _, stderr := runCmd(append(args, filled)...)
	if code == 0 || !strings.Contains(stderr, "1 of 2 drawn leaves are not labelled yet (first: card c0002)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCmd("merge", "-partial", "-shared", data, "-sample", samplePath, "-out", out, filled)
	if code != 0 || !strings.Contains(stdout, "1 labels written") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got labelset.Label
	if err := json.Unmarshal(bytes.TrimSpace(b), &got); err != nil {
		t.Fatal(err)
	}
	if got.Label != labelset.Pass || got.Stratum != "llm-only/sql/m" || got.Card != "c0001" {
		t.Errorf("merged %+v", got)
	}

	// A rationale that repeats the rubric is refused, naming the line.
	copied := write("copied.jsonl", []labelset.Label{
		blind(sample[0], labelset.Fail, "it never filters to female patients with p.gender = 'F' at all"),
	}, true)
	code, _, stderr = runCmd(append(args, copied)...)
	if code == 0 || !strings.Contains(stderr, `copied.jsonl:1: field "rationale": repeats`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
