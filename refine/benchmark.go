package refine

import (
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/internal/pyjson"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// difficulties in the reference's order.
var difficulties = []string{"easy", "medium", "hard"}

// tally counts tasks and their first successful attempt.
type tally struct {
	total, successful int
	at                map[int]int // first successful attempt -> tasks
}

func (t *tally) add(success int) {
	if t.at == nil {
		t.at = map[int]int{}
	}
	t.total++
	if success > 0 {
		t.successful++
		t.at[success]++
	}
}

// attemptFields are the reference's four attempt-wise maps, keys "1".."n",
// rates in percent of the tasks counted.
func (t *tally) attemptFields(n int) pyjson.Object {
	counts, rates, cum, cumRates := pyjson.Object{}, pyjson.Object{}, pyjson.Object{}, pyjson.Object{}
	running := 0
	for k := 1; k <= n; k++ {
		key := strconv.Itoa(k)
		c := t.at[k]
		running += c
		counts = append(counts, pyjson.Member{Key: key, Value: c})
		cum = append(cum, pyjson.Member{Key: key, Value: running})
		rates = append(rates, pyjson.Member{Key: key, Value: pct(c, t.total)})
		cumRates = append(cumRates, pyjson.Member{Key: key, Value: pct(running, t.total)})
	}
	return pyjson.Object{
		{Key: "attempt_success_counts", Value: counts},
		{Key: "attempt_success_rates", Value: rates},
		{Key: "attempt_cumulative_success_counts", Value: cum},
		{Key: "attempt_cumulative_success_rates", Value: cumRates},
	}
}

func pct(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total) * 100
}

// Tally is what [WriteBenchmarkSummary] counted, for callers that print
// it (the file itself is read as runfolder.BenchmarkSummary).
type Tally struct {
	Model      string
	Total      int // tasks counted (finished, not excluded)
	Successful int
	// SuccessAt[k] is the number of tasks whose first successful attempt is
	// k+1; Attempts is the number of attempt keys written.
	SuccessAt []int
	Attempts  int
	Statuses  map[string]int
	Excluded  []string // task keys not counted (unsupported by the engine)
	Pending   []string // expected tasks without a finished summary
}

// CumulativeRate returns the percentage of counted tasks that succeeded by
// attempt k (1-based).
func (b *Tally) CumulativeRate(k int) float64 {
	n := 0
	for i := 0; i < k && i < len(b.SuccessAt); i++ {
		n += b.SuccessAt[i]
	}
	return pct(n, b.Total)
}

// WriteBenchmarkSummary reads every finished task of a model's run folder
// and writes <run>/benchmark_summary.json in the reference shape: totals and
// attempt-wise success counts and rates (first successful attempt, keys "1"
// to attempts), per split, per domain and per difficulty folder. Tasks the
// engine could not run faithfully (status unsupported) are not counted: they
// are listed under "clinsql" with the status counts and, when expected is
// given, the tasks still pending. The file is written in Python's json.dump
// format, as the reference's is.
func WriteBenchmarkSummary(run, model string, attempts int, expected []datasets.Key) (*Tally, error) {
	b, bs, err := BuildBenchmarkSummary(run, model, attempts, expected)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(run, runfolder.BenchmarkSummaryFile), b); err != nil {
		return nil, err
	}
	return bs, nil
}

// BuildBenchmarkSummary is [WriteBenchmarkSummary] without the write: the
// file's bytes and what they say. run may be any producer's run folder (the
// released ones included).
func BuildBenchmarkSummary(run, model string, attempts int, expected []datasets.Key) ([]byte, *Tally, error) {
	outs, err := runfolder.LoadOutputs(run)
	if err != nil && (len(outs) > 0 || hasSummaries(run)) {
		return nil, nil, err
	}
	bs := &Tally{Model: model, Statuses: map[string]int{}}
	type levelKey struct{ split, domain, difficulty string }
	all := &tally{}
	splits := map[string]*tally{}
	domains := map[[2]string]*tally{}
	levels := map[levelKey]*tally{}
	finished := map[datasets.Key]bool{}
	modelIDs, modelNames := map[string]int{}, map[string]int{}
	for _, o := range outs {
		sum, ok, err := refinefmt.ReadSummary(run, o.Key)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		if sum.ModelID != "" {
			modelIDs[sum.ModelID]++
		}
		if sum.Model != "" {
			modelNames[sum.Model]++
		}
		status := ""
		if sum.Clinsql != nil {
			status = sum.Clinsql.Status
			bs.Statuses[status]++
		}
		finished[o.Key] = true
		if status == refinefmt.StatusUnsupported {
			bs.Excluded = append(bs.Excluded, o.Key.String())
			continue
		}
		success := 0
		for _, a := range sum.RefinementAttempts {
			attempts = max(attempts, a.Attempt)
			if a.Success && success == 0 {
				success = a.Attempt
			}
		}
		for _, t := range []*tally{
			all, tallyOf(splits, o.Split), tallyOf(domains, [2]string{o.Split, o.Domain}),
			tallyOf(levels, levelKey{o.Split, o.Domain, o.Difficulty}),
		} {
			t.add(success)
		}
	}
	for _, k := range expected {
		if !finished[k] {
			bs.Pending = append(bs.Pending, k.String())
		}
	}
	attempts = max(attempts, 1)
	bs.Attempts = attempts
	bs.Total, bs.Successful = all.total, all.successful
	bs.SuccessAt = make([]int, attempts)
	for k := range bs.SuccessAt {
		bs.SuccessAt[k] = all.at[k+1]
	}

	// The model is named as its task summaries name it (model is the
	// fallback), and the reference writes model_id after it when the run
	// has one.
	model = majority(modelNames, model)
	bs.Model = model
	modelID := majority(modelIDs, "")
	withID := func(o pyjson.Object) pyjson.Object {
		if modelID != "" {
			o = append(o, pyjson.Member{Key: "model_id", Value: modelID})
		}
		return o
	}

	splitObj := pyjson.Object{}
	for _, sp := range slices.Sorted(maps.Keys(splits)) {
		st := splits[sp]
		domObj := pyjson.Object{}
		var doms []string
		for k := range domains {
			if k[0] == sp {
				doms = append(doms, k[1])
			}
		}
		sort.Strings(doms)
		for _, dm := range doms {
			dt := domains[[2]string{sp, dm}]
			lvObj := pyjson.Object{}
			for _, df := range difficulties {
				lt, ok := levels[levelKey{sp, dm, df}]
				if !ok {
					continue
				}
				dir := datasets.Key{Difficulty: df}.DifficultyDir()
				lv := pyjson.Object{
					{Key: "total", Value: lt.total},
					{Key: "successful", Value: lt.successful},
					{Key: "failed", Value: lt.total - lt.successful},
					{Key: "split", Value: sp},
					{Key: "domain", Value: dm},
					{Key: "difficulty", Value: dir},
					{Key: "model", Value: model},
				}
				lv = withID(lv)
				lvObj = append(lvObj, pyjson.Member{Key: dir, Value: append(lv, lt.attemptFields(attempts)...)})
			}
			d := pyjson.Object{
				{Key: "total_queries", Value: dt.total},
				{Key: "total_successful", Value: dt.successful},
				{Key: "level_results", Value: lvObj},
			}
			domObj = append(domObj, pyjson.Member{Key: dm, Value: append(d, dt.attemptFields(attempts)...)})
		}
		s := pyjson.Object{
			{Key: "total_queries", Value: st.total},
			{Key: "total_successful", Value: st.successful},
			{Key: "domain_results", Value: domObj},
		}
		splitObj = append(splitObj, pyjson.Member{Key: sp, Value: append(s, st.attemptFields(attempts)...)})
	}
	top := withID(pyjson.Object{{Key: "model", Value: model}})
	top = append(top, pyjson.Object{
		{Key: "splits", Value: splitObj},
		{Key: "total_queries", Value: all.total},
		{Key: "total_successful", Value: all.successful},
	}...)
	top = append(top, all.attemptFields(attempts)...)
	statuses := pyjson.Object{}
	for _, s := range slices.Sorted(maps.Keys(bs.Statuses)) {
		statuses = append(statuses, pyjson.Member{Key: s, Value: bs.Statuses[s]})
	}
	top = append(top, pyjson.Member{Key: "clinsql", Value: pyjson.Object{
		{Key: "statuses", Value: statuses},
		{Key: "excluded_unsupported", Value: anySlice(bs.Excluded)},
		{Key: "pending", Value: anySlice(bs.Pending)},
	}})
	b, err := pyjson.Marshal(top)
	if err != nil {
		return nil, nil, err
	}
	return b, bs, nil
}

// majority returns the most frequent key of counts (the first in order on
// a tie), or def when counts is empty.
func majority(counts map[string]int, def string) string {
	best, n := def, 0
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if counts[k] > n {
			best, n = k, counts[k]
		}
	}
	return best
}

func tallyOf[K comparable](m map[K]*tally, k K) *tally {
	t := m[k]
	if t == nil {
		t = &tally{}
		m[k] = t
	}
	return t
}

// hasSummaries reports whether any execution_summary.json lies below dir.
func hasSummaries(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == runfolder.ExecutionSummaryFile {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

func anySlice(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
