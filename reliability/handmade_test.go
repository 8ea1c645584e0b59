package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"
	"time"

	goldenfile "github.com/clinsql/clinsql/internal/golden"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/executor/sqlite/sqlitetest"
	"github.com/clinsql/clinsql/reliability"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

const handmade = "testdata/handmade"

// handmadeItems loads the hand-made split: a database of our own
// (fixture.sql), 32 questions, gold labels and a prediction file that mixes
// every outcome class.
func handmadeItems(t testing.TB) (*sqlite.DB, []reliability.Item) {
	t.Helper()
	db, err := sqlite.Open(sqlitetest.BuildFile(t, filepath.Join(handmade, "fixture.sql")),
		sqlite.Options{Limits: executor.Limits{Timeout: 300 * time.Millisecond, MaxRows: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	data, err := ehrsql.LoadData(filepath.Join(handmade, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := ehrsql.LoadLabels(filepath.Join(handmade, "label.json"))
	if err != nil {
		t.Fatal(err)
	}
	preds, err := ehrsql.LoadPredictions(filepath.Join(handmade, "pred.json"), ehrsql.PredictionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var items []reliability.Item
	for _, id := range data.IDs() {
		items = append(items, reliability.Item{ID: id, Gold: labels.Values[id], Pred: preds.Values[id]})
	}
	return db, items
}

// TestHandmade scores the hand-made prediction file. The expected outcome of
// each item is derived by hand from the official semantics (post-process,
// execute, str(round(float(x), 3)) per cell, sort, first 100 rows, compare
// strings; "null" is not executed), and the comment on each line says why.
// The same file was also run through the official Python functions (CPython
// 3.11, sqlite 3.40) during development, with the same result.
func TestHandmade(t *testing.T) {
	db, items := handmadeItems(t)
	want := map[string]reliability.Outcome{
		"hm01": reliability.Correct,               // COUNT(*) = 3 vs SELECT 3.0: int and real both '3.0'
		"hm02": reliability.Correct,               // 2 vs text '2': float('2') = 2.0, '2.0'
		"hm03": reliability.Correct,               // real 123456789.0 vs int 123456789: both '123456789.0'
		"hm04": reliability.Correct,               // 1e-05 rounds to 0.0: '0.0' vs SELECT 0 '0.0'
		"hm05": reliability.Correct,               // NULL is str(None) = 'None', as is the text 'None'
		"hm06": reliability.Wrong,                 // [['f'], ['m']] vs [['f'], ['f'], ['m']]: duplicates count, extra row
		"hm07": reliability.Error,                 // no such table: lab
		"hm08": reliability.Error,                 // "NULL" is executed (only "null" abstains): syntax error
		"hm09": reliability.Wrong,                 // "" runs and returns [] vs [['140.0']]
		"hm10": reliability.AbstainedAnswerable,   // "null" on an answerable item: 0
		"hm11": reliability.AbstainedUnanswerable, // "null" on "null": +1
		"hm12": reliability.AnsweredUnanswerable,  // "" is an answer ([]), not an abstention
		"hm13": reliability.AnsweredUnanswerable,  // "NULL" is an answer (that errors)
		"hm14": reliability.Correct,               // heart_rate_lower/upper -> 60.0/100.0, current_time -> the fixed now: 2 rows
		"hm15": reliability.Correct,               // 120 vs 140 wards: equal in the first 100 after sorting
		"hm16": reliability.Wrong,                 // columns swapped: ['101.0', 'f'] vs ['f', '101.0']
		"hm17": reliability.Correct,               // ORDER BY ASC vs DESC: rows are sorted before comparing
		"hm18": reliability.Correct,               // DATE_SUB(NOW(), INTERVAL 1 YEAR) -> datetime('2100-12-31 23:59:00', '-1 year'): 4
		"hm19": reliability.Error,                 // a second statement: "You can only execute one statement at a time."
		"hm20": reliability.Correct,               // 2.675 vs 2.6754: round(x, 3) = 2.675 for both
		"hm21": reliability.Correct,               // 0.0005 rounds to 0.001 (the double is just above the tie) = text '0.001'
		"hm22": reliability.Wrong,                 // -0.0001 rounds to -0.0, and '-0.0' != '0.0'
		"hm23": reliability.Correct,               // 1.0 vs text ' 1 ': float() strips spaces
		"hm24": reliability.Wrong,                 // 'f' vs 'F': case-sensitive
		"hm25": reliability.Correct,               // 1 vs BLOB x'31': float(b'1') = 1.0
		"hm26": reliability.Wrong,                 // the gold errors (error_real), which equals no prediction
		"hm27": reliability.Error,                 // runaway recursive query, stopped by the timeout
		"hm28": reliability.AnsweredUnanswerable,  // SQL on an unanswerable item
		"hm29": reliability.Wrong,                 // LIMIT 1 drops a row
		"hm30": reliability.AbstainedAnswerable,   // "  null  " is "null" after post-processing
		"hm31": reliability.Error,                 // "None" is executed: syntax error
		"hm32": reliability.AbstainedUnanswerable, // "  null\n" is "null" after post-processing
	}
	rep, err := reliability.Score(context.Background(), db, items, reliability.Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Items) != len(want) {
		t.Fatalf("%d items, want %d", len(rep.Items), len(want))
	}
	for _, it := range rep.Items {
		if it.Outcome != want[it.ID] {
			t.Errorf("%s: %s (gold %s, pred %s), want %s", it.ID, it.Outcome, it.Gold.Python(), it.Pred.Python(), want[it.ID])
		}
	}
	// 13 correct + 2 abstained unanswerable = 15 items at +1; 7 wrong + 5
	// errors + 3 answered unanswerable = 15 items at −c; 2 at 0; N = 32.
	// RS(c) = (15 − 15c)/32 × 100: RS(0) = 46.875, RS(5) = −187.5,
	// RS(10) = −421.875, RS(32) = −1453.125 (all exact in binary).
	wantScores := reliability.Scores{N: 32, RS0: 46.875, RS5: -187.5, RS10: -421.875, RSN: -1453.125,
		Counts: reliability.Counts{Correct: 13, Wrong: 7, Error: 5, AbstainedAnswerable: 2, AnsweredUnanswerable: 3, AbstainedUnanswerable: 2}}
	if rep.Scores != wantScores {
		t.Errorf("scores %+v\nwant   %+v", rep.Scores, wantScores)
	}
	golden(t, filepath.Join(handmade, "report.golden.json"), rep)
}

// TestHandmadeLenient shows the documented lenient abstention: "NULL" and
// "" now abstain. hm08 and hm09 (answerable) become abstained answerable,
// hm12 and hm13 (unanswerable) abstained unanswerable. 17 items at +1, 11 at
// −c, 4 at 0: RS(0) = 17/32 = 53.125, RS(5) = −38/32 = −118.75, RS(10) =
// −93/32 = −290.625, RS(32) = −335/32 = −1046.875 (× 100).
func TestHandmadeLenient(t *testing.T) {
	db, items := handmadeItems(t)
	rep, err := reliability.Score(context.Background(), db, items, reliability.Options{Abstention: reliability.Abstention{Lenient: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := reliability.Scores{N: 32, RS0: 53.125, RS5: -118.75, RS10: -290.625, RSN: -1046.875,
		Counts: reliability.Counts{Correct: 13, Wrong: 6, Error: 4, AbstainedAnswerable: 4, AnsweredUnanswerable: 1, AbstainedUnanswerable: 4}}
	if rep.Scores != want {
		t.Errorf("scores %+v\nwant   %+v", rep.Scores, want)
	}
}

// TestScoreStopsOnInfraFailure: a failure that is not the SQL's fault
// (here, a closed database) aborts scoring with an error naming the item.
func TestScoreStopsOnInfraFailure(t *testing.T) {
	db, items := handmadeItems(t)
	db.Close()
	_, err := reliability.Score(context.Background(), db, items[:1], reliability.Options{})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`"hm01"`)) {
		t.Errorf("closed database: %v", err)
	}
}

func TestScoreCancelled(t *testing.T) {
	db, items := handmadeItems(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := reliability.Score(ctx, db, items, reliability.Options{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// golden compares v, as indented JSON, with the file at path (rewritten
// with -update).
func golden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, path, string(got)+"\n", *update)
}
