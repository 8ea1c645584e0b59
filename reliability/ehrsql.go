package reliability

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/executor"
)

// Querier runs one query; every executor.Executor is one.
type Querier interface {
	Query(ctx context.Context, sql string) (*executor.Result, error)
}

// Item is one EHRSQL item to score: the gold label and the prediction as
// their files hold them, before post-processing.
type Item struct {
	ID   string
	Gold string // label SQL, or "null" when unanswerable
	Pred string // predicted SQL, or the abstention marker
	// GoldAnswer is the item's answer.json text, used instead of executing
	// Gold when Options.GoldFromAnswers is set.
	GoldAnswer string
}

// Options configure Score.
type Options struct {
	// Workers bounds the items scored at once (default GOMAXPROCS).
	Workers int
	// Progress, if set, is called once per item scored, from the worker
	// that scored it (so it must be safe for concurrent use, and quick).
	Progress func(ItemResult)
	// Abstention decides whether a prediction abstains (default: exactly
	// "null" after post-processing, as the official scorer).
	Abstention Abstention
	// GoldFromAnswers takes the gold results from answer.json (through
	// literal_eval and the same normalisation, as scoring_v2 does) instead of
	// executing the labels (scoring.py, the default).
	GoldFromAnswers bool
}

// ItemResult is one scored item.
type ItemResult struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	Score   int     `json:"score"`
	// GoldSQL and PredSQL are the post-processed texts that ran (empty when
	// nothing ran).
	GoldSQL string `json:"gold_sql"`
	PredSQL string `json:"pred_sql"`
	Gold    Answer `json:"gold"`
	Pred    Answer `json:"pred"`
}

// Report is a scored run: the headline numbers and every item in input
// order.
type Report struct {
	Scores
	Items []ItemResult `json:"items"`
}

// Score runs the official EHRSQL 2024 scoring on items:
//
//   - gold and prediction go through PostProcessSQL; a gold label that is
//     "null" is unanswerable, a prediction that Options.Abstention matches
//     abstains; neither is executed;
//   - the rest run on q; a failure of the SQL (any executor class charged
//     to the model, timeouts included) is an error answer, and a result
//     becomes an Answer through Normalize;
//   - each item gets its Outcome, and the run its Scores.
//
// Per-item failures are data. Score returns an error only when ctx ends or
// when q fails in a way that is not the SQL's fault (executor.ClassInfra or
// ClassUnsupported), since the scores would then be wrong; the error names
// the item.
func Score(ctx context.Context, q Querier, items []Item, opt Options) (*Report, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]ItemResult, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range items {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r, err := scoreItem(gctx, q, items[i], opt)
			if err != nil {
				return fmt.Errorf("item %q: %w", items[i].ID, err)
			}
			results[i] = r
			if opt.Progress != nil {
				opt.Progress(r)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outcomes := make([]Outcome, len(results))
	for i, r := range results {
		outcomes[i] = r.Outcome
	}
	return &Report{Scores: Summarize(outcomes), Items: results}, nil
}

func scoreItem(ctx context.Context, q Querier, it Item, opt Options) (ItemResult, error) {
	r := ItemResult{ID: it.ID}
	var err error
	switch {
	case opt.GoldFromAnswers:
		if r.Gold, err = NormalizeText(it.GoldAnswer); err != nil {
			return r, fmt.Errorf("gold answer: %w", err)
		}
	default:
		sql := PostProcessSQL(it.Gold)
		if sql == "null" {
			r.Gold = Answer{Kind: KindAbstain}
			break
		}
		r.GoldSQL = sql
		if r.Gold, err = run(ctx, q, sql); err != nil {
			return r, fmt.Errorf("gold: %w", err)
		}
	}
	sql := PostProcessSQL(it.Pred)
	if opt.Abstention.Matches(sql) {
		r.Pred = Answer{Kind: KindAbstain}
	} else {
		r.PredSQL = sql
		if r.Pred, err = run(ctx, q, sql); err != nil {
			return r, fmt.Errorf("prediction: %w", err)
		}
	}
	r.Outcome = outcome(r.Gold, r.Pred)
	r.Score = r.Outcome.Score()
	return r, nil
}

// run executes sql and normalises the result; an SQL failure is an error
// answer, other failures are returned.
func run(ctx context.Context, q Querier, sql string) (Answer, error) {
	res, err := q.Query(ctx, sql)
	if err != nil {
		if ctx.Err() != nil {
			return Answer{}, ctx.Err()
		}
		class := executor.ClassOf(err)
		if !class.ModelFault() {
			return Answer{}, err
		}
		msg := err.Error()
		var e *executor.Error
		if errors.As(err, &e) {
			msg = e.Message
		}
		return Answer{Kind: KindError, Error: msg, Class: class}, nil
	}
	return Normalize(res), nil
}

// OutcomeOf is the official reliability_score table on two normalised
// answers (the gold's and the prediction's), for callers that executed
// them already.
func OutcomeOf(gold, pred Answer) Outcome { return outcome(gold, pred) }

// outcome is the official reliability_score table.
func outcome(gold, pred Answer) Outcome {
	switch {
	case gold.Kind == KindAbstain && pred.Kind == KindAbstain:
		return AbstainedUnanswerable
	case gold.Kind == KindAbstain:
		return AnsweredUnanswerable
	case pred.Kind == KindAbstain:
		return AbstainedAnswerable
	case gold.Equal(pred):
		return Correct
	case pred.Kind == KindError:
		return Error
	}
	return Wrong
}
