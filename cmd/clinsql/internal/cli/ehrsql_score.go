package cli

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/internal/progress"
	"github.com/clinsql/clinsql/reliability"
)

const ehrsqlScoreUsage = `usage: clinsql ehrsql score --tasks DIR --split NAME (--run FILE|DIR | --baseline abstain-all|gold) [--out FILE] [flags]

Scores EHRSQL 2024 predictions as the shared task's scorer does: RS(0),
RS(5), RS(10) and RS(N). --tasks is the EHRSQL data folder (clinsql datasets
fetch ehrsql writes it: NAME/data.json, NAME/label.json,
mimic_iv/mimic_iv.sqlite); --split is validation (the folder valid), train
or test. --run is a prediction file {id: SQL or "null"}, or a strategy
folder of clinsql generate --benchmark ehrsql (OUT/<model>/<split>/<strategy>).
A prediction file that answers only some questions of the split (a run made
with --limit) is scored over those and says "subset" (stdout, --out's
"subset"); an id the split lacks is refused.
`

func runEHRSQLScore(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "ehrsql score")
	fs.Usage = func() { fmt.Fprint(env.Stderr, ehrsqlScoreUsage+"\n"); cliflag.PrintDefaults(fs) }
	o := ehrsqlbench.ScoreOptions{}
	fs.StringVar(&o.DataDir, "tasks", "", "EHRSQL 2024 data `folder`: NAME/data.json, NAME/label.json, mimic_iv/mimic_iv.sqlite")
	fs.StringVar(&o.Split, "split", "", "split `NAME` (validation, train, test)")
	fs.StringVar(&o.Predictions, "run", "", "prediction `FILE` (one JSON object {id: SQL or \"null\"}), or a run's strategy folder holding prediction.json")
	fs.StringVar(&o.Baseline, "baseline", "", "score a baseline instead of a file: abstain-all or gold")
	jsonOut := fs.String("out", "", "write the scores and per-item outcomes to `FILE` (JSON)")
	fs.DurationVar(&o.Timeout, "timeout", sqlite.DefaultTimeout, "per-query timeout (the official scorer has none)")
	fs.IntVar(&o.Workers, "concurrency", runtime.GOMAXPROCS(0), "items scored at once")
	fs.IntVar(&o.MaxRows, "max-rows", 1_000_000, "row cap per query; a larger result is an error (the official scorer has none)")
	fs.StringVar(&o.Abstention.Marker, "abstain-marker", "null", "abstention `MARKER`: a prediction equal to it (after post-processing) is not executed")
	fs.BoolVar(&o.Abstention.Lenient, "lenient", false, "deviation from the official scorer: also accept the marker in any case, with quotes or a trailing ';', an empty prediction, and JSON null in the prediction file as abstentions")
	goldSource := fs.String("gold-source", "labels", "gold results from `labels` (execute label.json, as scoring.py) or answers (answer.json, as scoring_v2.py)")
	cliflag.Alias(fs, "data-dir", "tasks")
	cliflag.Alias(fs, "pred", "run")
	cliflag.Alias(fs, "json", "out")
	cliflag.Alias(fs, "workers", "concurrency")
	cliflag.Alias(fs, "abstain", "abstain-marker")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *goldSource != "labels" && *goldSource != "answers" {
		return usagef("--gold-source must be labels or answers, not %q", *goldSource)
	}
	if err := o.Check(); err != nil {
		return usageError{Msg: err.Error()}
	}
	o.GoldFromAnswers = *goldSource == "answers"
	start := time.Now()
	var bar *progress.Bar // once the items are known
	o.Items = func(n int) { bar = newBar(env, "ehrsql score", n, false) }
	o.Progress = func(r reliability.ItemResult) { bar.Step(string(r.Outcome), 0, 0, false) }
	out, err := ehrsqlbench.ScoreFile(ctx, o)
	bar.Finish()
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		if err := out.WriteFile(*jsonOut); err != nil {
			return err
		}
	}
	out.WriteText(env.Stdout)
	fmt.Fprintf(env.Stderr, "scored %d items in %s (SQLite %s)\n", out.N, time.Since(start).Round(time.Millisecond), out.SQLite)
	return nil
}
