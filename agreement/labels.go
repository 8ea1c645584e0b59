package agreement

import (
	"math"
	"sort"
	"strings"
)

// Label values of a labelled leaf (package labelset's).
const (
	LabelPass     = "pass"
	LabelFail     = "fail"
	LabelArguable = "arguable"
)

// Labelled is one judge's verdict on one labelled leaf: Item's A is the
// judge, B the label (Status pass, fail or arguable; Explanation the
// rationale; Source "label").
type Labelled struct {
	Item
	// Weight is how many leaves of the population the label stands for:
	// its stratum's population over the stratum's draw (1 without a
	// draw).
	Weight float64
	// Chosen says how the leaf was drawn (disagreement, agreement,
	// llm-only; "" when unknown).
	Chosen string
}

// Rate is a proportion with its 95% Wilson score interval; Lo and Hi are
// NaN without a denominator.
type Rate struct {
	K, N      int
	P, Lo, Hi float64
}

// Wilson returns k of n with its 95% Wilson score interval: unlike the
// normal approximation it stays inside [0, 1] and is not empty at 0 of n,
// the case of a good judge.
func Wilson(k, n int) Rate {
	r := Rate{K: k, N: n, P: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if n <= 0 {
		return r
	}
	r.P, r.Lo, r.Hi = wilson(float64(k)/float64(n), float64(n))
	return r
}

// wilson is the 95% Wilson interval of a proportion p over n trials (n
// may be an effective sample size, not an integer).
func wilson(p, n float64) (float64, float64, float64) {
	const z = 1.959963984540054
	z2 := z * z
	den := 1 + z2/n
	centre := (p + z2/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / den
	return p, math.Max(0, centre-half), math.Min(1, centre+half)
}

// Accuracy is one judge's accuracy on one slice of the labelled leaves.
type Accuracy struct {
	// Name is "all", "kind=band", "source=code", "kind=band source=code",
	// ...; Answers is "all", "with result" or "without result".
	Name, Answers string
	// Labelled counts the slice's labelled leaves; Arguable those labelled
	// arguable (excluded from every rate); Undecided those left without a
	// pass or fail by the judge (invalid, skipped, missing; excluded).
	Labelled, Arguable, Undecided int
	// The decided leaves with a pass or fail label: the judge's verdict
	// against the label.
	TruePass, TrueFail, FalsePass, FalseFail int
	// Weighted is the error rate with each leaf weighted by its stratum
	// (population over draw), its interval Wilson's over Kish's effective
	// sample size: the estimate for the population the labels were drawn
	// from, where the unweighted rate over-represents the strata drawn
	// more densely (disagreements).
	Weighted Rate
}

// Decided is the number of leaves the rates are over.
func (a *Accuracy) Decided() int { return a.TruePass + a.TrueFail + a.FalsePass + a.FalseFail }

// Errors is the error rate: wrong verdicts over decided leaves.
func (a *Accuracy) Errors() Rate { return Wilson(a.FalsePass+a.FalseFail, a.Decided()) }

// FalsePassRate is the share of decided leaves passed against a fail
// label; FalseFailRate the share failed against a pass label. They sum to
// the error rate.
func (a *Accuracy) FalsePassRate() Rate { return Wilson(a.FalsePass, a.Decided()) }

// FalseFailRate: see FalsePassRate.
func (a *Accuracy) FalseFailRate() Rate { return Wilson(a.FalseFail, a.Decided()) }

// FailPrecision is the share of the judge's fails labelled fail.
func (a *Accuracy) FailPrecision() Rate { return Wilson(a.TrueFail, a.TrueFail+a.FalseFail) }

// FailRecall is the share of the fail labels the judge failed.
func (a *Accuracy) FailRecall() Rate { return Wilson(a.TrueFail, a.TrueFail+a.FalsePass) }

// LabelReport is a judge's accuracy against labels.
type LabelReport struct {
	// Judge names the judge output measured (set by the caller; the
	// first column of the TSV files).
	Judge  string
	Slices []Accuracy
	// Wrong are the decided leaves whose verdict differs from a pass or
	// fail label, sorted by model, task, tree and leaf.
	Wrong []Labelled
	// Models lists the models labelled and judged.
	Models []string
}

// Answers slices.
const (
	AnswersAll      = "all"
	AnswersResult   = "with result"
	AnswersNoResult = "without result"
)

// Slice returns the named slice, or nil.
func (r *LabelReport) Slice(name, answers string) *Accuracy {
	for i := range r.Slices {
		if r.Slices[i].Name == name && r.Slices[i].Answers == answers {
			return &r.Slices[i]
		}
	}
	return nil
}

// Score measures the judge's verdicts against the labels, per slice:
// overall, per leaf kind, per deciding source and per kind and source,
// each over all answers, answers with a result and answers without one
// (when known). Source slices are what tells the judges of one output
// apart: a judge folder made with replay holds code decisions and replayed
// recorded ones, and only "source=code" is the code checks' own accuracy.
func Score(items []Labelled) *LabelReport {
	type key struct{ name, answers string }
	type acc struct {
		Accuracy
		w, wErr, w2 float64
	}
	slices := map[key]*acc{}
	var order []key
	models := map[string]bool{}
	rep := &LabelReport{}
	for _, it := range items {
		models[it.Model] = true
		src := SourceName(it.Item, it.A.Source)
		names := []string{"all", "source=" + src}
		if it.Kind != "" {
			names = append(names, "kind="+it.Kind, "kind="+it.Kind+" source="+src)
		}
		answers := []string{AnswersAll}
		if it.ResultKnown {
			answers = append(answers, map[bool]string{true: AnswersResult, false: AnswersNoResult}[it.Result])
		}
		w := it.Weight
		if w <= 0 {
			w = 1
		}
		wrong := false
		for _, n := range names {
			for _, ans := range answers {
				k := key{n, ans}
				s := slices[k]
				if s == nil {
					s = &acc{Accuracy: Accuracy{Name: n, Answers: ans}}
					slices[k] = s
					order = append(order, k)
				}
				s.Labelled++
				switch {
				case it.B.Status != LabelPass && it.B.Status != LabelFail:
					s.Arguable++
					continue
				case !it.A.Decided():
					s.Undecided++
					continue
				}
				judgePass, labelPass := it.A.Status == Pass, it.B.Status == LabelPass
				switch {
				case judgePass && labelPass:
					s.TruePass++
				case !judgePass && !labelPass:
					s.TrueFail++
				case judgePass:
					s.FalsePass++
				default:
					s.FalseFail++
				}
				wrong = judgePass != labelPass
				s.w += w
				s.w2 += w * w
				if wrong {
					s.wErr += w
				}
			}
		}
		if wrong {
			rep.Wrong = append(rep.Wrong, it)
		}
	}
	rank := func(n string) int {
		switch {
		case n == "all":
			return 0
		case len(n) > 7 && n[:7] == "source=":
			return 1
		case strings.Contains(n, " source="):
			return 3
		}
		return 2
	}
	ansRank := map[string]int{AnswersAll: 0, AnswersResult: 1, AnswersNoResult: 2}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.answers != b.answers {
			return ansRank[a.answers] < ansRank[b.answers]
		}
		if rank(a.name) != rank(b.name) {
			return rank(a.name) < rank(b.name)
		}
		return a.name < b.name
	})
	for _, k := range order {
		s := slices[k]
		s.Weighted = Rate{N: s.Decided(), K: s.FalsePass + s.FalseFail, P: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		if s.w > 0 {
			s.Weighted.P, s.Weighted.Lo, s.Weighted.Hi = wilson(s.wErr/s.w, s.w*s.w/s.w2)
		}
		rep.Slices = append(rep.Slices, s.Accuracy)
	}
	sort.Slice(rep.Wrong, func(i, j int) bool { return lessItem(rep.Wrong[i].Item, rep.Wrong[j].Item) })
	for m := range models {
		rep.Models = append(rep.Models, m)
	}
	sort.Strings(rep.Models)
	return rep
}

// lessItem orders items by model, task, tree and leaf.
func lessItem(a, b Item) bool {
	if a.Model != b.Model {
		return a.Model < b.Model
	}
	if a.Task != b.Task {
		return a.Task < b.Task
	}
	if a.Tree != b.Tree {
		return a.Tree < b.Tree
	}
	return a.Leaf < b.Leaf
}

// SourceNoSQL is the source name of a code decision of an SQL leaf: code
// decides SQL leaves only of answers without SQL (every SQL requirement
// then fails), which are not the code checks' judgement of an answer, so
// they are sliced apart from the code's results decisions.
const SourceNoSQL = "code:no-sql"

// SourceName is the name a verdict's source is sliced under: a code
// decision on the SQL tree is SourceNoSQL.
func SourceName(it Item, source string) string {
	if source == "code" && it.Tree == "sql" {
		return SourceNoSQL
	}
	return source
}
