package cli

import (
	"fmt"
	"github.com/clinsql/clinsql/internal/localkey"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/runfolder"
)

// openLLMJudge opens the LLM judge a judge config describes, with the
// spending record of out (budget over every run into it) and the llm
// cache (cfg.Cache, default <out>/llm-cache, "off" for none). pricesFile,
// when not "", is a price table given on the command line, over the
// config's; logger, when not nil, logs retries and calls; batch serves an
// endpoint in batch mode (its journal goes to out).
func openLLMJudge(env *Env, cfg *judge.Config, out, pricesFile string, logger *slog.Logger, batch *llm.BatchOptions) (*judge.LLMJudge, *llm.Meter, *llm.Client, error) {
	var table llm.Prices
	var err error
	if pricesFile == "" {
		pricesFile = cfg.PricesPath()
	}
	if p := pricesFile; p != "" {
		if table, err = llm.LoadPrices(p); err != nil {
			return nil, nil, nil, err
		}
	} else if cfg.BudgetUSD > 0 {
		return nil, nil, nil, usagef("a budget needs a price table (--prices or prices: in the config)")
	}
	meter, err := openMeter(env.Stderr, out, table, cfg.BudgetUSD)
	if err != nil {
		return nil, nil, nil, err
	}
	lo := llm.Options{Meter: meter, Getenv: env.Getenv, Logger: logger, Batch: batch}
	if batch != nil {
		// An endpoint in batch mode records its batches in the output
		// folder, where a rerun finds them.
		batch.Dir = out
	}
	dir := cfg.Cache
	if dir == "" {
		dir = filepath.Join(out, runfolder.LLMCacheDir)
	}
	if dir != "off" {
		if lo.Cache, err = openCache(dir); err != nil {
			meter.Close()
			return nil, nil, nil, err
		}
	}
	client, err := llm.New(cfg.Endpoint, lo)
	if err != nil {
		meter.Close()
		return nil, nil, nil, err
	}
	j, err := judge.NewLLMJudge(client, judge.LLMOptions{Samples: cfg.Samples, Prompt: cfg.Prompt.Options(), Prices: table,
		MaxConsecutiveFailures: cfg.MaxConsecutiveFailures})
	if err != nil {
		client.Close()
		meter.Close()
		return nil, nil, nil, usageError{err.Error()}
	}
	return j, meter, client, nil
}

// loadLocalKey is this machine's key (package localkey), which
// authenticates the judge ledgers and LLM cache entries clinsql resumes
// from.
func loadLocalKey() (localkey.Key, error) {
	dir, err := localkey.Dir()
	if err != nil {
		return nil, err
	}
	return localkey.Load(dir)
}

// openCache opens an LLM reply cache whose entries are authenticated with
// this machine's key: replies cached elsewhere (a cache copied or shipped
// with a folder) are bought again, never served.
func openCache(dir string) (*llm.Cache, error) {
	key, err := loadLocalKey()
	if err != nil {
		return nil, err
	}
	return llm.OpenCache(dir, llm.CacheKey(key))
}

// noteRejected says how many cached replies were not this machine's.
func noteRejected(w io.Writer, c *llm.Cache) {
	if c != nil && c.Rejected() > 0 {
		fmt.Fprintf(w, "note: %d cached replies in %s were not written on this machine (copied, shipped with a folder, or cached before entries were authenticated): they were not used, and were asked for again\n", c.Rejected(), c.Dir())
	}
}
