package reliability_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/reliability"
)

// ehrsqlSplit opens the real EHRSQL 2024 database and split (skipped without
// /work/shared, failed when CLINSQL_REQUIRE_SHARED is set).
func ehrsqlSplit(tb testing.TB, split string) (*sqlite.DB, *ehrsql.Split) {
	tb.Helper()
	root := shared.Path(tb, "ehrsql-2024")
	s, err := ehrsql.LoadSplit(filepath.Join(root, split))
	if err != nil {
		tb.Fatal(err)
	}
	db, err := sqlite.Open(filepath.Join(root, "mimic_iv", "mimic_iv.sqlite"), sqlite.Options{Limits: executor.Limits{MaxRows: 1_000_000}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, s
}

// items pairs the split's labels with predictions made by pred.
func items(s *ehrsql.Split, pred func(id, label string) string) []reliability.Item {
	var out []reliability.Item
	for _, id := range s.Data.IDs() {
		label := s.Labels.Values[id]
		out = append(out, reliability.Item{ID: id, Gold: label, Pred: pred(id, label), GoldAnswer: s.Answers.Values[id]})
	}
	return out
}

func gold(_, label string) string { return label }

// TestGoldIsPerfect: the gold labels as predictions score RS = 100 for
// every c, both with the official scorer (labels executed for gold and
// prediction) and against answer.json (every gold answer is reproduced from
// mimic_iv.sqlite, after the official normalisation).
func TestGoldIsPerfect(t *testing.T) {
	for _, split := range []string{"valid", "train"} {
		for _, fromAnswers := range []bool{false, true} {
			if split == "train" && !fromAnswers && testing.Short() {
				continue
			}
			db, s := ehrsqlSplit(t, split)
			rep, err := reliability.Score(context.Background(), db, items(s, gold), reliability.Options{GoldFromAnswers: fromAnswers})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range rep.Items {
				if it.Score != 1 {
					t.Errorf("%s %s: %s: gold %.200s, pred %.200s", split, it.ID, it.Outcome, it.Gold.Python(), it.Pred.Python())
				}
			}
			if rep.RS0 != 100 || rep.RS5 != 100 || rep.RS10 != 100 || rep.RSN != 100 {
				t.Errorf("%s (answers %v): %+v", split, fromAnswers, rep.Scores)
			}
			t.Logf("%s, gold from answers %v: %d items, %d correct, %d abstained unanswerable, RS %v",
				split, fromAnswers, rep.N, rep.Correct, rep.AbstainedUnanswerable, rep.RS10)
		}
	}
}

// TestAbstainAllValid: abstaining everywhere scores the unanswerable
// fraction, 232/1163 = 19.95 %, for every c.
func TestAbstainAllValid(t *testing.T) {
	db, s := ehrsqlSplit(t, "valid")
	rep, err := reliability.Score(context.Background(), db, items(s, func(string, string) string { return "null" }), reliability.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := 19.948409286328463 // CPython: 232/1163*100
	if rep.RS0 != want || rep.RS5 != want || rep.RS10 != want || rep.RSN != want {
		t.Errorf("abstain-all: %+v", rep.Scores)
	}
	if rep.AbstainedUnanswerable != 232 || rep.AbstainedAnswerable != 931 {
		t.Errorf("counts: %+v", rep.Counts)
	}
}

// BenchmarkScoreValidGold scores the 1,163 valid items with the gold labels
// as predictions, the official way: 1,862 queries on mimic_iv.sqlite plus
// normalisation. Target: under 10 s per op on the project machine.
func BenchmarkScoreValidGold(b *testing.B) {
	db, s := ehrsqlSplit(b, "valid")
	its := items(s, gold)
	b.ResetTimer()
	for b.Loop() {
		rep, err := reliability.Score(context.Background(), db, its, reliability.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.RS10 != 100 {
			b.Fatalf("RS(10) = %v", rep.RS10)
		}
	}
}
