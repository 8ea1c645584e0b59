package judge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/clinsql/clinsql/audit"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/localkey"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// AuditJudge is the judge engine as package audit measures it (an
// audit.Judge) with a backend,
// typically an LLM judge: the same code checks, grouping and ledger as
// clinsql judge, except that no leaf is skipped (every leaf's verdict is
// compared). The variants are judged in batches holding each task at most
// once, each with its own ledger under Dir, so an interrupted or
// budget-stopped audit resumes where it stopped and a finished one makes
// no call (the llm cache and the ledgers keep what was decided).
type AuditJudge struct {
	// Options are the engine's (Backend, CodeChecks, Group, ...);
	// Skipping is turned off.
	Options Options
	// Prompter, Samples and MaxTokens feed the estimate
	// (EstimateRun).
	Prompter  Prompter
	Samples   int
	MaxTokens int
	// Meter prices the estimate and caps the spending; Model is the
	// endpoint's model, for the price table.
	Meter *llm.Meter
	Model string
	// Dir receives one folder per batch with its ledger; Key
	// authenticates the ledgers (see Job.Key).
	Dir string
	Key localkey.Key
	// Before is called with the estimate before any call; an error stops
	// the audit (for an estimate-only run, or a refusal).
	Before func(audit.Cost) error
	// Cost is filled by Decide; Stopped is why judging stopped early (nil
	// when it finished).
	Cost    audit.Cost
	Stopped error
}

// AuditCost is what judging cost (an audit.Costed: the report carries it).
func (j *AuditJudge) AuditCost() audit.Cost { return j.Cost }

// Name is the backend's name, with "+code" when code checks decide first.
func (j *AuditJudge) Name() string {
	n := "none"
	if j.Options.Backend != nil {
		n = j.Options.Backend.Name()
	}
	if j.Options.CodeChecks {
		n += " + code checks"
	}
	return n
}

type auditBatch struct {
	name  string
	idx   []int // into the variants
	led   *judgefmt.Ledger
	items []Item
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Decide judges the variants batch by batch.
func (j *AuditJudge) Decide(ctx context.Context, vs []*audit.Variant) ([]map[judgefmt.LeafKey]audit.Verdict, error) {
	opts := j.Options
	opts.Skipping = false
	if opts.Mode == "" {
		opts.Mode = rubric.Strict
	}
	// Batch k of a mutation holds each task's k-th variant of it.
	byName := map[string]*auditBatch{}
	var batches []*auditBatch
	seen := map[string]int{}
	for i, v := range vs {
		tk := v.Mutation + "\x00" + v.Task.Key.String()
		k := seen[tk]
		seen[tk]++
		name := v.Mutation
		if k > 0 {
			name += "-" + strconv.Itoa(k+1)
		}
		b := byName[name]
		if b == nil {
			b = &auditBatch{name: unsafeName.ReplaceAllString(name, "_")}
			byName[name] = b
			batches = append(batches, b)
		}
		b.idx = append(b.idx, i)
		b.items = append(b.items, Item{Task: v.Task, Answer: v.Answer})
	}
	sort.SliceStable(batches, func(a, b int) bool { return batches[a].idx[0] < batches[b].idx[0] })
	defer func() {
		for _, b := range batches {
			if b.led != nil {
				b.led.Close()
			}
		}
	}()
	var est Estimate
	for _, b := range batches {
		dir := filepath.Join(j.Dir, b.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		l, err := OpenLedger(filepath.Join(dir, judgefmt.LedgerFile), opts, Binding{Backend: BackendIdentity(opts.Backend),
			TasksSHA256: runfolder.TaskFingerprint(tasksOfItems(b.items))}, j.Key)
		if err != nil {
			return nil, err
		}
		b.led = l
		e := EstimateRun(b.items, l, opts, j.Prompter, j.Samples, j.MaxTokens)
		est.Leaves += e.Leaves
		est.CodeLeaves += e.CodeLeaves
		est.BackendLeaves += e.BackendLeaves
		est.Calls += e.Calls
		est.PromptTokens += e.PromptTokens
		est.CompletionTokens += e.CompletionTokens
	}
	j.Cost.EstimatedCall = est.Calls
	if j.Meter != nil {
		j.Cost.BudgetUSD = j.Meter.Budget()
		if usd, err := j.Meter.Prices().Estimate(j.Model, 1, est.PromptTokens, est.CompletionTokens); err == nil {
			j.Cost.EstimatedUSD = usd
		}
	}
	if j.Before != nil {
		if err := j.Before(j.Cost); err != nil {
			return nil, err
		}
	}
	out := make([]map[judgefmt.LeafKey]audit.Verdict, len(vs))
	for i := range out {
		out[i] = map[judgefmt.LeafKey]audit.Verdict{}
	}
	spent0 := 0.0
	if j.Meter != nil {
		spent0 = j.Meter.Spent()
	}
	for _, b := range batches {
		o, err := Run(ctx, b.items, b.led, opts)
		if err != nil {
			return nil, fmt.Errorf("audit %s: %w", b.name, err)
		}
		j.Cost.Calls += o.This.LLMCalls
		j.Cost.CacheHits += o.This.CacheHits
		j.Cost.PromptTokens += o.This.PromptTokens
		j.Cost.Completion += o.This.CompletionTokens
		for n, it := range o.Items {
			if it == nil {
				continue
			}
			for k, rec := range it.Records {
				var v audit.Verdict
				switch rec.Verdict {
				case rubric.Pass, rubric.Fail:
					v = audit.Verdict{Pass: rec.Verdict == rubric.Pass, Source: string(rec.Source), Explanation: rec.Explanation}
				case rubric.Invalid:
					v = audit.Verdict{Source: audit.SourceInvalid, Explanation: rec.Explanation}
				default:
					continue
				}
				out[b.idx[n]][k] = v
			}
		}
		if o.Stopped != nil {
			j.Stopped = o.Stopped
			j.Cost.Stopped = fmt.Sprintf("%v (batch %s; run the same audit again to resume)", o.Stopped, b.name)
			break
		}
	}
	if j.Meter != nil {
		j.Cost.SpentUSD = j.Meter.Spent() - spent0
	}
	return out, nil
}

func tasksOfItems(items []Item) []*datasets.Task {
	out := make([]*datasets.Task, len(items))
	for i, it := range items {
		out[i] = it.Task
	}
	return out
}
