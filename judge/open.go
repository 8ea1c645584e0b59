package judge

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/clinsql/clinsql/audit"
	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/runfolder"
)

// ErrBudgetWithoutPrices refuses a budget (given over a config that has
// none) with no price table to price the calls against.
var ErrBudgetWithoutPrices = errors.New("a budget needs a price table (--prices or prices: in the config)")

// OpenedLLM is an LLM judge with the client and the spending record it
// holds; Close releases them.
type OpenedLLM struct {
	Judge  *LLMJudge
	Meter  *llm.Meter
	Client *llm.Client
}

// OpenLLM opens the LLM judge cfg describes for the output folder out:
// the folder's spending record (cfg.BudgetUSD caps what out will ever
// spend, over every run into it; where the folder stands is written to
// log), its reply cache (cfg.Cache; default <out>/llm-cache, "off" for
// none) authenticated with this machine's key, and, for an endpoint in
// batch mode, its batch journal in out. prices, when not "", is a price
// table file over the config's. lo are the caller's collaborators
// (Getenv, Logger, Batch, Now); the meter and the cache are set here.
func OpenLLM(cfg *Config, out, prices string, lo llm.Options, log io.Writer) (*OpenedLLM, error) {
	if prices == "" {
		prices = cfg.PricesPath()
	}
	var table llm.Prices
	var err error
	switch {
	case prices != "":
		if table, err = llm.LoadPrices(prices); err != nil {
			return nil, err
		}
	case cfg.BudgetUSD > 0:
		return nil, ErrBudgetWithoutPrices
	}
	o := &OpenedLLM{}
	if o.Meter, err = llm.OpenFolderMeter(log, out, table, cfg.BudgetUSD); err != nil {
		return nil, err
	}
	// An endpoint in batch mode records its batches in the output
	// folder, where a rerun finds them.
	batch := llm.BatchOptions{}
	if lo.Batch != nil {
		batch = *lo.Batch
	}
	batch.Dir = out
	lo.Meter, lo.Batch = o.Meter, &batch
	dir := cfg.Cache
	if dir == "" {
		dir = filepath.Join(out, runfolder.LLMCacheDir)
	}
	if dir != "off" {
		if lo.Cache, err = llm.OpenLocalCache(dir); err != nil {
			o.Close()
			return nil, err
		}
	}
	if o.Client, err = llm.New(cfg.Endpoint, lo); err != nil {
		o.Close()
		return nil, err
	}
	o.Judge, err = NewLLMJudge(o.Client, LLMOptions{Samples: cfg.Samples, Prompt: cfg.Prompt.Options(), Prices: table,
		MaxConsecutiveFailures: cfg.MaxConsecutiveFailures})
	if err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

// Close closes the client and the spending record.
func (o *OpenedLLM) Close() {
	if o.Client != nil {
		o.Client.Close()
	}
	if o.Meter != nil {
		o.Meter.Close()
	}
}

// BackendSpec is a job's backend as clinsql judge names it: recorded
// decisions (Replay), a judge config file (Config) or an endpoint judged
// with the default settings (Endpoint: --judge PROVIDER/NAME), with the
// settings the command line gives over the config's. Its Open is a
// Job.NewBackend.
type BackendSpec struct {
	Replay, Config string
	Endpoint       *llm.Endpoint
	// Samples (0: the config's), Budget (< 0: the config's), Prices and
	// Cache ("": the config's) override the config; ReferenceGuided
	// turns the reference-guided mode on whatever the config says.
	Samples         int
	Budget          float64
	Prices, Cache   string
	ReferenceGuided bool
	// GroupSet and GatedSet: the job's Options.Group and GroupGated were
	// given on the command line, over the config's group and group_gated.
	GroupSet, GatedSet bool
	// LLM are the client's collaborators (Getenv, Logger, Batch, Now);
	// Log receives where the spending record stands and the cache's notes.
	LLM llm.Options
	Log io.Writer

	opened *OpenedLLM
}

// Open sets opts.Backend to the backend the spec names, opened for the
// output folder out; a judge config may set opts' grouping and
// reference-guided mode where the command line does not. The run is not
// used (it may be nil).
func (b *BackendSpec) Open(_ *runfolder.Run, out string, opts *Options) error {
	if b.Replay != "" {
		rp, err := NewReplay(b.Replay)
		if err != nil {
			return err
		}
		opts.Backend = rp
		return nil
	}
	cfg := &Config{Samples: 1}
	if b.Endpoint != nil {
		cfg.Endpoint = *b.Endpoint
	} else {
		var err error
		if cfg, err = LoadConfig(b.Config); err != nil {
			return err
		}
	}
	if b.Samples != 0 {
		cfg.Samples = b.Samples
	}
	if cfg.Group != "" && !b.GroupSet {
		opts.Group = cfg.Group
	}
	if cfg.GroupGated && !b.GatedSet {
		opts.GroupGated = true
	}
	if b.ReferenceGuided {
		cfg.ReferenceGuided = true
	}
	opts.ReferenceGuided = cfg.ReferenceGuided
	if b.Budget >= 0 {
		cfg.BudgetUSD = b.Budget
	}
	if b.Cache != "" {
		cfg.Cache = b.Cache
	}
	o, err := OpenLLM(cfg, out, b.Prices, b.LLM, b.Log)
	if err != nil {
		return err
	}
	b.opened = o
	opts.Backend = o.Judge
	return nil
}

// Opened is the LLM judge Open opened (nil for a replay, or before Open).
func (b *BackendSpec) Opened() *OpenedLLM { return b.opened }

// OpenAudit opens the spec's backend for an audit into out (see Open)
// and returns the audit judge over it: opts' engine settings, a ledger
// per batch under out/ledgers authenticated with key, before called
// with the estimate.
func (b *BackendSpec) OpenAudit(out string, opts Options, key localkey.Key, before func(audit.Cost) error) (*AuditJudge, error) {
	if err := b.Open(nil, out, &opts); err != nil {
		return nil, err
	}
	j := &AuditJudge{Options: opts, Dir: filepath.Join(out, "ledgers"), Key: key, Before: before}
	if o := b.opened; o != nil {
		ep := o.Client.Endpoint()
		j.Prompter, j.Samples, j.MaxTokens, j.Meter, j.Model = o.Judge, o.Judge.Samples(), ep.Sampling.MaxTokens, o.Meter, ep.Model
	}
	return j, nil
}

// Close notes the cached replies that were not this machine's and closes
// what Open opened.
func (b *BackendSpec) Close() {
	if o := b.opened; o != nil {
		if b.Log != nil {
			o.Client.Cache().NoteRejected(b.Log)
		}
		o.Close()
	}
}
