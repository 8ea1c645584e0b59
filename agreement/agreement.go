package agreement

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Counts is a 2x2 table of paired binary decisions: N[a][b] counts the
// leaves rater A decided a and rater B decided b; index 1 is pass, 0 fail.
type Counts struct {
	N [2][2]int
}

// Add records one pair.
func (c *Counts) Add(a, b bool) { c.N[b2i(a)][b2i(b)]++ }

// Merge adds o's counts.
func (c *Counts) Merge(o Counts) {
	for i := range 2 {
		for j := range 2 {
			c.N[i][j] += o.N[i][j]
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Total is the number of pairs.
func (c Counts) Total() int { return c.N[0][0] + c.N[0][1] + c.N[1][0] + c.N[1][1] }

// Raw is the share of pairs that agree, 0 without pairs.
func (c Counts) Raw() float64 {
	n := c.Total()
	if n == 0 {
		return 0
	}
	return float64(c.N[0][0]+c.N[1][1]) / float64(n)
}

// Kappa is Cohen's kappa: agreement corrected for the agreement expected
// by chance from each rater's pass rate. It is 0 (not NaN) when chance
// agreement is 1, i.e. both raters gave one answer throughout, and 0
// without pairs.
func (c Counts) Kappa() float64 {
	n := float64(c.Total())
	if n == 0 {
		return 0
	}
	po := c.Raw()
	pa := float64(c.N[1][0]+c.N[1][1]) / n // A: pass
	pb := float64(c.N[0][1]+c.N[1][1]) / n // B: pass
	pe := pa*pb + (1-pa)*(1-pb)
	if pe >= 1 {
		return 0
	}
	return (po - pe) / (1 - pe)
}

func (c Counts) String() string {
	return fmt.Sprintf("n=%d raw=%.3f kappa=%.3f (both pass %d, both fail %d, A pass/B fail %d, A fail/B pass %d)",
		c.Total(), c.Raw(), c.Kappa(), c.N[1][1], c.N[0][0], c.N[1][0], c.N[0][1])
}

// Verdict is one rater's decision of a leaf.
type Verdict struct {
	// Status is pass, fail, invalid, skipped or missing; only pass and
	// fail pair.
	Status string
	// Source says who decided: code, llm, replay, recorded, ...
	Source      string
	Explanation string
}

// Decided reports a pass or a fail.
func (v Verdict) Decided() bool { return v.Status == Pass || v.Status == Fail }

// Verdict statuses.
const (
	Pass    = "pass"
	Fail    = "fail"
	Missing = "missing"
)

// Item is one leaf of one model's answer, as both raters decided it.
type Item struct {
	Model string
	// Task is the task key; Tree "sql" or "results"; Leaf the node id.
	Task, Tree, Leaf string
	// Kind is the leaf's check kind: csv_exists, column_exists, no_null,
	// band, other, sql ("" when unknown).
	Kind string
	// Result reports that the answer ran and returned rows; ResultKnown
	// that this is known (a code decision or the run said so).
	Result, ResultKnown bool
	A, B                Verdict
}

// Options configures Compute.
type Options struct {
	// Seed makes the intervals reproducible.
	Seed uint64
	// Resamples is the number of bootstrap replicates (default 1000).
	Resamples int
}

// Interval is a kappa with its 95% percentile bootstrap interval; Lo and
// Hi are NaN without pairs.
type Interval struct{ Kappa, Lo, Hi float64 }

// Slice is the agreement on one slice of the items.
type Slice struct {
	// Name is "all", "tree=results", "kind=band", "source=code", ...
	Name string
	// WithResult restricts the slice to answers with a result.
	WithResult bool
	Counts
	Kappa Interval
	// Unpaired counts the items of the slice one rater did not decide as
	// pass or fail.
	Unpaired int
	// Tasks counts the (model, task) answers the slice's pairs come from.
	Tasks int
}

// Report is the outcome of Compute.
type Report struct {
	Slices []Slice
	// Disagreements are the paired items whose verdicts differ, sorted by
	// model, task, tree and leaf.
	Disagreements []Item
	// Models lists the models paired.
	Models []string
}

// Compute pairs the items' verdicts and measures agreement per slice.
func Compute(items []Item, o Options) *Report {
	if o.Resamples <= 0 {
		o.Resamples = 1000
	}
	type key struct {
		name   string
		result bool
	}
	// Per slice, the counts of each answer (model and task): the bootstrap
	// resamples answers.
	perTask := map[key]map[string]*Counts{}
	unpaired := map[key]int{}
	var order []key
	models := map[string]bool{}
	rep := &Report{}
	for _, it := range items {
		models[it.Model] = true
		src := SourceName(it, it.A.Source)
		if b := SourceName(it, it.B.Source); b != "" && b != src {
			src += "/" + b
		}
		names := []string{"source=" + src}
		if it.Kind != "" {
			names = append(names, "kind="+it.Kind+" source="+src)
		}
		// A replayed decision paired with the recorded one it replays
		// agrees by construction: it is shown under its source only, never
		// mixed into the overall, tree and kind slices.
		if !Replayed(it) {
			names = append(names, "all", "tree="+it.Tree)
			if it.Kind != "" {
				names = append(names, "kind="+it.Kind)
			}
		}
		for _, n := range names {
			for _, res := range []bool{false, true} {
				if res && !(it.ResultKnown && it.Result) {
					continue
				}
				k := key{n, res}
				if perTask[k] == nil {
					perTask[k] = map[string]*Counts{}
					order = append(order, k)
				}
				if !it.A.Decided() || !it.B.Decided() {
					unpaired[k]++
					continue
				}
				task := it.Model + "\x00" + it.Task
				c := perTask[k][task]
				if c == nil {
					c = &Counts{}
					perTask[k][task] = c
				}
				c.Add(it.A.Status == Pass, it.B.Status == Pass)
			}
		}
		if it.A.Decided() && it.B.Decided() && it.A.Status != it.B.Status {
			rep.Disagreements = append(rep.Disagreements, it)
		}
	}
	rank := func(n string) int {
		if strings.Contains(n, " source=") {
			return 4
		}
		for i, p := range []string{"all", "tree=", "kind=", "source="} {
			if strings.HasPrefix(n, p) {
				return i
			}
		}
		return 5
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.result != b.result {
			return !a.result
		}
		if rank(a.name) != rank(b.name) {
			return rank(a.name) < rank(b.name)
		}
		return a.name < b.name
	})
	for _, k := range order {
		s := Slice{Name: k.name, WithResult: k.result, Unpaired: unpaired[k]}
		tasks := make([]string, 0, len(perTask[k]))
		for t := range perTask[k] {
			tasks = append(tasks, t)
		}
		sort.Strings(tasks)
		cs := make([]Counts, len(tasks))
		for i, t := range tasks {
			cs[i] = *perTask[k][t]
			s.Counts.Merge(cs[i])
		}
		s.Tasks = len(tasks)
		label := k.name
		if k.result {
			label += "/result"
		}
		s.Kappa = bootstrapKappa(cs, o, label)
		rep.Slices = append(rep.Slices, s)
	}
	sort.Slice(rep.Disagreements, func(i, j int) bool { return lessItem(rep.Disagreements[i], rep.Disagreements[j]) })
	for m := range models {
		rep.Models = append(rep.Models, m)
	}
	sort.Strings(rep.Models)
	return rep
}

// Replayed reports a pair of a replayed decision and a recorded one (or
// two replayed ones): the replay is the recorded decision, so the pair
// agrees by construction and measures nothing of either judge.
func Replayed(it Item) bool {
	r := func(s string) bool { return s == "replay" || s == "recorded" }
	return (it.A.Source == "replay" || it.B.Source == "replay") && r(it.A.Source) && r(it.B.Source)
}

// Slice returns the named slice, or nil.
func (r *Report) Slice(name string, withResult bool) *Slice {
	for i := range r.Slices {
		if r.Slices[i].Name == name && r.Slices[i].WithResult == withResult {
			return &r.Slices[i]
		}
	}
	return nil
}

// bootstrapKappa is kappa over the answers' pooled counts and its 95%
// percentile interval over resamples of the answers. The generator depends
// only on the seed and the slice's label, so an interval does not move when
// other slices are added.
func bootstrapKappa(cs []Counts, o Options, label string) Interval {
	var all Counts
	for _, c := range cs {
		all.Merge(c)
	}
	iv := Interval{Kappa: all.Kappa(), Lo: math.NaN(), Hi: math.NaN()}
	if all.Total() == 0 {
		return iv
	}
	h := fnv.New64a()
	h.Write([]byte(label))
	rng := rand.New(rand.NewPCG(o.Seed, h.Sum64()))
	ks := make([]float64, o.Resamples)
	for r := range ks {
		var s Counts
		for range cs {
			s.Merge(cs[rng.IntN(len(cs))])
		}
		ks[r] = s.Kappa()
	}
	sort.Float64s(ks)
	iv.Lo, iv.Hi = quantile(ks, 0.025), quantile(ks, 0.975)
	return iv
}

// quantile interpolates linearly between the order statistics.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
