package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/clinsql/clinsql/internal/atomicfile"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/runfolder"
)

// maxDatabaseBytes bounds the EHRSQL database file hashed for the record
// (the released one is 35 MB).
const maxDatabaseBytes = 16 << 30

// ehrsqlScoreOutput is what --out writes: the run's settings, the scores
// (rs0, rs5, rs10, rsN × 100 and the outcome counts) and every item.
type ehrsqlScoreOutput struct {
	Split       string  `json:"split"`
	Predictions string  `json:"predictions"` // file, or "baseline:gold" / "baseline:abstain-all"
	GoldSource  string  `json:"gold_source"` // "labels" (official) or "answers"
	Abstention  string  `json:"abstention_marker"`
	Lenient     bool    `json:"lenient_abstention"`
	TimeoutSec  float64 `json:"timeout_seconds"`
	MaxRows     int     `json:"max_rows"`
	SQLite      string  `json:"sqlite_version"`
	// What the scores are traced to: the split's files, the predictions'
	// bytes, the database file, and the build that scored them.
	SplitSHA256       string          `json:"split_sha256"`
	PredictionsSHA256 string          `json:"predictions_sha256,omitempty"`
	DatabaseSHA256    string          `json:"database_sha256"`
	Producer          buildinfo.Stamp `json:"producer"`
	*reliability.Report
}

func runEHRSQLScore(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "ehrsql score")
	dataDir := fs.String("data-dir", "", "EHRSQL 2024 folder: `DIR`/NAME/data.json, DIR/NAME/label.json, DIR/mimic_iv/mimic_iv.sqlite")
	split := fs.String("split", "", "split `NAME` (train, valid)")
	pred := fs.String("pred", "", "prediction `FILE`: one JSON object {id: SQL or \"null\"}")
	baseline := fs.String("baseline", "", "score a baseline instead of a file: abstain-all or gold")
	jsonOut := fs.String("out", "", "write the scores and per-item outcomes to `FILE` (JSON)")
	timeout := fs.Duration("timeout", sqlite.DefaultTimeout, "per-query timeout (the official scorer has none)")
	workers := fs.Int("concurrency", runtime.GOMAXPROCS(0), "items scored at once")
	maxRows := fs.Int("max-rows", 1_000_000, "row cap per query; a larger result is an error (the official scorer has none)")
	marker := fs.String("abstain-marker", "null", "abstention `MARKER`: a prediction equal to it (after post-processing) is not executed")
	lenient := fs.Bool("lenient", false, "deviation from the official scorer: also accept the marker in any case, with quotes or a trailing ';', an empty prediction, and JSON null in the prediction file as abstentions")
	goldSource := fs.String("gold-source", "labels", "gold results from `labels` (execute label.json, as scoring.py) or answers (answer.json, as scoring_v2.py)")
	alias(fs, "json", "out")
	alias(fs, "workers", "concurrency")
	alias(fs, "abstain", "abstain-marker")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *dataDir == "":
		return usagef("--data-dir is required")
	case *split == "":
		return usagef("--split is required")
	case (*pred == "") == (*baseline == ""):
		return usagef("give exactly one of --pred FILE and --baseline abstain-all|gold")
	case *baseline != "" && *baseline != "abstain-all" && *baseline != "gold":
		return usagef("--baseline must be abstain-all or gold, not %q", *baseline)
	case *goldSource != "labels" && *goldSource != "answers":
		return usagef("--gold-source must be labels or answers, not %q", *goldSource)
	case *marker == "":
		return usagef("--abstain-marker must not be empty")
	case *workers < 1:
		return usagef("--concurrency must be at least 1")
	case *timeout <= 0:
		return usagef("--timeout must be positive")
	case *maxRows < reliability.MaxAnswerRows:
		return usagef("--max-rows must be at least %d", reliability.MaxAnswerRows)
	}

	s, err := ehrsql.LoadSplit(filepath.Join(*dataDir, *split))
	if err != nil {
		return err
	}
	if *goldSource == "answers" && s.Answers == nil {
		return fmt.Errorf("%s: no answer.json for --gold-source answers", s.Dir)
	}
	ids := s.Data.IDs()
	preds := map[string]string{}
	source, predSHA := "baseline:"+*baseline, ""
	switch *baseline {
	case "gold":
		preds = s.Labels.Values
	case "abstain-all":
		for _, id := range ids {
			preds[id] = *marker
		}
	default:
		source = *pred
		opt := ehrsql.PredictionOptions{}
		if *lenient {
			opt.JSONNullAs = *marker
		}
		m, err := ehrsql.LoadPredictions(*pred, opt)
		if err != nil {
			return err
		}
		if err := ehrsql.CheckIDs(s.Labels.Path, s.Labels.IDs, m.Path, m.IDs); err != nil {
			return err
		}
		preds, predSHA = m.Values, m.SHA256
	}
	items := make([]reliability.Item, len(ids))
	for i, id := range ids {
		items[i] = reliability.Item{ID: id, Gold: s.Labels.Values[id], Pred: preds[id]}
		if s.Answers != nil {
			items[i].GoldAnswer = s.Answers.Values[id]
		}
	}

	dbPath := filepath.Join(*dataDir, "mimic_iv", "mimic_iv.sqlite")
	dbSHA, err := runfolder.FileSHA256(dbPath, maxDatabaseBytes)
	if err != nil {
		return err
	}
	db, err := sqlite.Open(dbPath, sqlite.Options{Limits: executor.Limits{Timeout: *timeout, MaxRows: *maxRows}, MaxIdle: *workers})
	if err != nil {
		return err
	}
	defer db.Close()

	start := time.Now()
	bar := newBar(env, "ehrsql score", len(items), false)
	rep, err := reliability.Score(ctx, db, items, reliability.Options{
		Progress:        func(r reliability.ItemResult) { bar.Step(string(r.Outcome), 0, 0, false) },
		Workers:         *workers,
		Abstention:      reliability.Abstention{Marker: *marker, Lenient: *lenient},
		GoldFromAnswers: *goldSource == "answers",
	})
	bar.Finish()
	if err != nil {
		return fmt.Errorf("scoring %s: %w", s.Dir, err)
	}
	out := ehrsqlScoreOutput{
		Split: *split, Predictions: source, GoldSource: *goldSource, Abstention: *marker, Lenient: *lenient,
		TimeoutSec: timeout.Seconds(), MaxRows: *maxRows, SQLite: sqlite.LibraryVersion(), Report: rep,
		SplitSHA256: s.SHA256(), PredictionsSHA256: predSHA, DatabaseSHA256: dbSHA, Producer: buildinfo.Current(),
	}
	if *jsonOut != "" {
		if err := ehrsqlWriteJSON(*jsonOut, out); err != nil {
			return err
		}
	}
	printEHRSQLScores(env.Stdout, out)
	fmt.Fprintf(env.Stderr, "scored %d items in %s (SQLite %s)\n", rep.N, time.Since(start).Round(time.Millisecond), out.SQLite)
	return nil
}

func printEHRSQLScores(w io.Writer, out ehrsqlScoreOutput) {
	fmt.Fprintf(w, "EHRSQL 2024 reliability: split %s, %d items, predictions %s\n", out.Split, out.N, out.Predictions)
	if out.GoldSource != "labels" {
		fmt.Fprintln(w, "gold results from answer.json (the scoring_v2 variant), not from executing label.json")
	}
	if out.Lenient {
		fmt.Fprintln(w, "lenient abstention: a deviation from the official scorer")
	}
	fmt.Fprintln(w)
	for _, r := range []struct {
		name string
		v    float64
	}{{"RS(0)", out.RS0}, {"RS(5)", out.RS5}, {"RS(10)", out.RS10}, {fmt.Sprintf("RS(N=%d)", out.N), out.RSN}} {
		fmt.Fprintf(w, "%-12s %10.2f\n", r.name, r.v)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-24s %6s  %s\n", "outcome", "items", "score")
	for _, r := range []struct {
		name  string
		n     int
		score string
	}{
		{"correct", out.Correct, "+1"},
		{"wrong", out.Wrong, "-c"},
		{"error", out.Error, "-c"},
		{"abstained answerable", out.AbstainedAnswerable, "0"},
		{"answered unanswerable", out.AnsweredUnanswerable, "-c"},
		{"abstained unanswerable", out.AbstainedUnanswerable, "+1"},
	} {
		fmt.Fprintf(w, "%-24s %6d  %s\n", r.name, r.n, r.score)
	}
}

// ehrsqlWriteJSON writes v to path atomically, so an interrupted run never
// leaves a half-written file.
func ehrsqlWriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}
