package ehrsqlbench

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/clinsql/clinsql/datasets/ehrsql"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/sqlite"
	"github.com/clinsql/clinsql/reliability"
)

// CheckDatabase runs every gold label of split on db with the official
// post-processing and normalisation and compares the result with the
// split's published answer.json, as the official scorer's scoring_v2
// reads it. A database that does not reproduce the published answers
// would score right predictions wrong: it is refused, with the first
// items that differ named.
func CheckDatabase(ctx context.Context, db reliability.Querier, split *ehrsql.Split) error {
	if split.Answers == nil {
		return fmt.Errorf("%s: no answer.json to check the database against", split.Dir)
	}
	ids := split.Data.IDs()
	items := make([]reliability.Item, len(ids))
	for i, id := range ids {
		// The label is the prediction; the published answer the gold.
		items[i] = reliability.Item{ID: id, Gold: split.Labels.Values[id], Pred: split.Labels.Values[id], GoldAnswer: split.Answers.Values[id]}
	}
	rep, err := reliability.Score(ctx, db, items, reliability.Options{GoldFromAnswers: true})
	if err != nil {
		return err
	}
	var bad []string
	for _, it := range rep.Items {
		if it.Outcome != reliability.Correct && it.Outcome != reliability.AbstainedUnanswerable {
			bad = append(bad, fmt.Sprintf("%s (%s)", it.ID, it.Outcome))
		}
	}
	if len(bad) > 0 {
		shown := bad
		if len(shown) > 5 {
			shown = append(shown[:5:5], "...")
		}
		return fmt.Errorf("the database does not reproduce the published answers of %s: %d of %d gold labels give another result: %s",
			split.Dir, len(bad), len(ids), strings.Join(shown, ", "))
	}
	return nil
}

// VerifyFetched checks a fetched data folder (datasets/ehrsql.Fetch): its
// valid split loads and its database reproduces every published valid
// answer (CheckDatabase).
func VerifyFetched(ctx context.Context, dir string) error {
	valid, err := ehrsql.LoadSplit(filepath.Join(dir, "valid"))
	if err != nil {
		return err
	}
	db, err := sqlite.Open(filepath.Join(dir, filepath.FromSlash(ehrsql.DatabaseFile)),
		sqlite.Options{Limits: executor.Limits{Timeout: time.Minute, MaxRows: 1_000_000}, MaxIdle: 2 * runtime.GOMAXPROCS(0)})
	if err != nil {
		return err
	}
	defer db.Close()
	return CheckDatabase(ctx, db, valid)
}
