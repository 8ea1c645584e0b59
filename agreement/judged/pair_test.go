package judged

import (
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
)

func TestPair(t *testing.T) {
	code := string(judgefmt.SourceCode)
	csv := string(codecheck.KindCSV)
	a := Decisions{"m1": {
		{"t1", "results", "1"}: {Status: "pass", Source: code, Kind: csv},
		{"t1", "results", "2"}: {Status: "fail", Source: "llm"},
		{"t1", "sql", "1"}:     {Status: "pass", Source: "llm"},
		{"t2", "results", "2"}: {Status: "pass", Source: "llm"}, // t2: only A judged it
	}}
	b := Decisions{"m2": {
		{"t1", "results", "2"}: {Status: "pass", Source: "recorded"},
		{"t1", "sql", "1"}:     {Status: "pass", Source: "recorded"},
	}}
	kinds := map[string]map[string]string{"t1": {"2": "band"}}
	items, labels, err := Pair(a, b, kinds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 1 || labels[0] != "m1 (A) with m2 (B)" {
		t.Errorf("labels %q", labels)
	}
	got := map[Ref]agreement.Item{}
	for _, it := range items {
		got[Ref{it.Task, it.Tree, it.Leaf}] = it
	}
	if len(got) != 3 {
		t.Fatalf("%d items, want the 3 leaves of t1: %+v", len(got), items)
	}
	for _, tc := range []struct {
		ref        Ref
		kind, a, b string
	}{
		{Ref{"t1", "results", "1"}, csv, "pass", agreement.Missing}, // the ledger's kind; B lacks it
		{Ref{"t1", "results", "2"}, "band", "fail", "pass"},         // the rubric's kind
		{Ref{"t1", "sql", "1"}, string(codecheck.KindSQL), "pass", "pass"},
	} {
		it := got[tc.ref]
		if it.Kind != tc.kind || it.A.Status != tc.a || it.B.Status != tc.b || it.Model != "m1" {
			t.Errorf("%v: %+v, want kind %s, %s against %s", tc.ref, it, tc.kind, tc.a, tc.b)
		}
		// Whether the answer has a result comes from the code check of the CSV leaf.
		if !it.ResultKnown || !it.Result {
			t.Errorf("%v: result %v known %v, want a result from the code check", tc.ref, it.Result, it.ResultKnown)
		}
	}
}

func TestPairNoCommonModel(t *testing.T) {
	a := Decisions{"m1": {}, "m2": {}}
	b := Decisions{"m3": {}}
	_, _, err := Pair(a, b, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no model judged by both (A: m1, m2; B: m3)") {
		t.Errorf("error %v", err)
	}
}

func TestLoadNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "no "+judgefmt.LedgerFile) {
		t.Errorf("error %v", err)
	}
}
