package reports

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/reliability"
	"github.com/clinsql/clinsql/rubric"
)

// EHRSQL is a report's EHRSQL 2024 section: per model and abstention
// strategy the reliability scores on the evaluation split with their
// intervals, the risk-coverage curves there, the calibration sweep, and
// every question's decision. Package ehrsqlbench reads it from run folders
// (ehrsqlbench.Section); the scores are the official scorer's, as the runs
// recorded them.
type EHRSQL struct {
	// Runs are the run folders it was read from.
	Runs []string
	// Penalty is the c of the RS(c) the charts show (the calibration's,
	// 10 by default: the task's main metric).
	Penalty      float64
	Results      []*EHRSQLResult
	Calibrations []*EHRSQLCalibration
}

// EHRSQLResult is one model x strategy on the evaluation split.
type EHRSQLResult struct {
	Model, Strategy, Split string
	Coverage               float64
	Scores                 reliability.Scores
	// Intervals are 95% bootstrap intervals x100: rs0, rs5, rs10, rsN.
	Intervals map[string][2]float64
	// Thresholds says the thresholds in words ("-" without one), Chosen
	// gives them by step; CalibrationSplit is where they were chosen.
	Thresholds       string
	Chosen           map[string]float64
	CalibrationSplit string
	// Curve is the strategy's risk-coverage curve on this split (a
	// strategy with a threshold).
	Curve []EHRSQLPoint
	// Items are the decisions, one per question in split order; nil when
	// the run's decisions.json predates the recorded outcomes (ItemsNote
	// says so).
	Items     []EHRSQLItem
	ItemsNote string
}

// EHRSQLPoint is one threshold of a step on the evaluation split: the
// official outcome counts and how many items were answered.
type EHRSQLPoint struct {
	Step      string
	Threshold float64
	Answered  int
	Counts    reliability.Counts
}

// Coverage is the share of items answered; Risk the share of the answered
// the official scoring penalises (wrong, error, answered unanswerable),
// NaN when none was answered.
func (p EHRSQLPoint) Coverage() float64 { return share(p.Answered, total(p.Counts)) }
func (p EHRSQLPoint) Risk() float64 {
	if p.Answered == 0 {
		return math.NaN()
	}
	return float64(p.Counts.Penalized()) / float64(p.Answered)
}

func total(c reliability.Counts) int {
	return c.Correct + c.Wrong + c.Error + c.AbstainedAnswerable + c.AnsweredUnanswerable + c.AbstainedUnanswerable
}

func share(n, of int) float64 {
	if of == 0 {
		return math.NaN()
	}
	return float64(n) / float64(of)
}

// EHRSQLItem is one question's decision under a strategy.
type EHRSQLItem struct {
	ID, Question, Gold, Prediction string
	Abstained                      bool
	// Step is the step that abstained, Reason why (or "answered").
	Step, Reason string
	Outcome      reliability.Outcome
}

// EHRSQLCalibration is a model's threshold search on the calibration split.
type EHRSQLCalibration struct {
	Model, Split string
	Items        int
	Penalty      float64
	Strategies   []EHRSQLCalibrated
}

// EHRSQLCalibrated is one strategy's sweep: RS(Penalty) and coverage at
// each threshold of each step, the chosen thresholds and the RS there.
type EHRSQLCalibrated struct {
	Strategy string
	Chosen   map[string]float64
	RS       float64
	Curve    []EHRSQLCalPoint
}

// EHRSQLCalPoint is one threshold's RS(c) x100 and coverage on the
// calibration split.
type EHRSQLCalPoint struct {
	Step                    string
	Threshold, RS, Coverage float64
}

// models lists the section's models in first-seen order.
func (e *EHRSQL) models() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range e.Results {
		if !seen[r.Model] {
			seen[r.Model] = true
			out = append(out, r.Model)
		}
	}
	return out
}

func (e *EHRSQL) penalty() float64 {
	if e.Penalty > 0 {
		return e.Penalty
	}
	return 10
}

// riskCoverage draws one model's strategies on the evaluation split: risk
// (top) and RS(c) (bottom) against coverage. A strategy with a threshold is
// a line over its thresholds, its chosen one ringed; one without is a
// point.
func (e *EHRSQL) riskCoverage(model string) svgChart {
	c := e.penalty()
	var risk, rs []xySeries
	rsMin, split := 0.0, ""
	i := 0
	for _, r := range e.Results {
		if r.Model != model {
			continue
		}
		split = r.Split
		steps := map[string][]EHRSQLPoint{}
		var order []string
		for _, p := range r.Curve {
			if steps[p.Step] == nil {
				order = append(order, p.Step)
			}
			steps[p.Step] = append(steps[p.Step], p)
		}
		if len(order) == 0 {
			// No threshold: the result is one point.
			p := EHRSQLPoint{Answered: int(math.Round(r.Coverage * float64(r.Scores.N))), Counts: r.Scores.Counts}
			order, steps[""] = []string{""}, []EHRSQLPoint{p}
		}
		for _, step := range order {
			pts := steps[step]
			sort.SliceStable(pts, func(a, b int) bool { return pts[a].Coverage() < pts[b].Coverage() })
			color, dash := seriesStyle(i)
			i++
			name := r.Strategy
			if step != "" && len(order) > 1 {
				name += " (" + step + " threshold)"
			}
			sr := xySeries{Name: name, Color: color, Dash: dash, Mark: -1}
			ss := sr
			for k, p := range pts {
				x := 100 * p.Coverage()
				sr.X, sr.Y = append(sr.X, x), append(sr.Y, 100*p.Risk())
				v := reliability.RS(p.Counts, c)
				ss.X, ss.Y = append(ss.X, x), append(ss.Y, v)
				rsMin = math.Min(rsMin, v)
				if th, ok := r.Chosen[step]; ok && step != "" && th == p.Threshold {
					sr.Mark, ss.Mark = k, k
				}
			}
			if step == "" {
				sr.Mark, ss.Mark = 0, 0
			}
			risk, rs = append(risk, sr), append(rs, ss)
		}
	}
	lo := math.Floor(rsMin/50) * 50
	return xyChart(fmt.Sprintf("%s: risk and RS(%g) against coverage, %s split (ringed: the strategy as scored)", model, c, split),
		"coverage: questions answered (%)", 0, 100, []xyPanel{
			{YLabel: "risk: penalised / answered (%)", YMin: 0, YMax: 100, Series: risk},
			{YLabel: fmt.Sprintf("RS(%g) x100", c), YMin: lo, YMax: 100, Series: rs, HLines: []float64{0}},
		})
}

// calibrationSweep draws one model's threshold search on the calibration
// split: RS(c) (top) and coverage (bottom) against each step's threshold,
// one chart per step (their thresholds have different units).
func (e *EHRSQL) calibrationSweep(cal *EHRSQLCalibration) []figure {
	var out []figure
	for _, step := range []string{"logprob", "consistency"} {
		var rs, cov []xySeries
		xmin, xmax, rsMin := math.Inf(1), math.Inf(-1), 0.0
		var chosen []float64
		for i, s := range cal.Strategies {
			color, dash := seriesStyle(i)
			sr := xySeries{Name: s.Strategy, Color: color, Dash: dash, Mark: -1}
			sc := sr
			for _, p := range s.Curve {
				if p.Step != step {
					continue
				}
				sr.X, sr.Y = append(sr.X, p.Threshold), append(sr.Y, p.RS)
				sc.X, sc.Y = append(sc.X, p.Threshold), append(sc.Y, 100*p.Coverage)
				xmin, xmax, rsMin = math.Min(xmin, p.Threshold), math.Max(xmax, p.Threshold), math.Min(rsMin, p.RS)
				if th, ok := s.Chosen[step]; ok && th == p.Threshold {
					sr.Mark, sc.Mark = len(sr.X)-1, len(sc.X)-1
					chosen = append(chosen, th)
				}
			}
			if len(sr.X) > 0 {
				rs, cov = append(rs, sr), append(cov, sc)
			}
		}
		if len(rs) == 0 {
			continue
		}
		if xmax == xmin {
			xmin, xmax = xmin-1, xmax+1
		}
		xlabel := "threshold: mean token log-probability of the answer"
		if step == "consistency" {
			xlabel = "threshold: share of the samples that agree"
		}
		title := fmt.Sprintf("%s: calibration on %s (%d questions), RS(%g) and coverage against the %s threshold (ringed: chosen)", cal.Model, cal.Split, cal.Items, cal.Penalty, step)
		out = append(out, figure{File: fileSlug("ehrsql", cal.Model, "calibration", step) + ".svg", Chart: xyChart(title, xlabel, xmin, xmax, []xyPanel{
			{YLabel: fmt.Sprintf("RS(%g) x100", cal.Penalty), YMin: math.Floor(rsMin/50) * 50, YMax: 100, Series: rs, HLines: []float64{0}, VLines: chosen},
			{YLabel: "coverage (%)", YMin: 0, YMax: 100, Series: cov, VLines: chosen},
		})})
	}
	return out
}

// rsPanels are RS(0) and RS(10) of every model x strategy, sorted, with
// intervals: the EHRSQL leaderboard as charts.
func (e *EHRSQL) rsPanels() []figure {
	var out []figure
	for _, k := range []struct{ key, name string }{{"rs10", "RS(10)"}, {"rs0", "RS(0)"}} {
		var bars []bar
		lo := 0.0
		for _, r := range e.Results {
			v := r.Scores.RS10
			if k.key == "rs0" {
				v = r.Scores.RS0
			}
			iv, ok := r.Intervals[k.key]
			b := bar{Label: r.Model + " · " + r.Strategy, V: v, Lo: math.NaN(), Hi: math.NaN(), Note: fmt.Sprintf("(coverage %.0f%%)", 100*r.Coverage)}
			if ok {
				b.Lo, b.Hi = iv[0], iv[1]
			}
			lo = math.Min(lo, v)
			if ok {
				lo = math.Min(lo, b.Lo)
			}
			bars = append(bars, b)
		}
		title := k.name + " x100 per model and strategy, evaluation split"
		out = append(out, figure{File: fileSlug("ehrsql", k.key) + ".svg",
			Chart: barPanelRange(title, k.name+" x100, 95% bootstrap CI", "#76b7b2", bars, math.Floor(lo/50)*50, 100)})
	}
	return out
}

// figures are the section's charts.
func (e *EHRSQL) figures() []figure {
	out := e.rsPanels()
	for _, m := range e.models() {
		out = append(out, figure{File: fileSlug("ehrsql", m, "risk-coverage") + ".svg", Chart: e.riskCoverage(m)})
	}
	for _, c := range e.Calibrations {
		out = append(out, e.calibrationSweep(c)...)
	}
	return out
}

// htmlEHRSQL is the section as the page shows it.
type htmlEHRSQL struct {
	Runs    string
	Penalty float64
	Rows    []htmlEHRRow
	// RS are RS(10) and RS(0) over every model x strategy; Models each
	// model's risk-coverage chart and calibration sweeps.
	RS     []svgChart
	Models []htmlEHRModel
}

type htmlEHRRow struct {
	Model, Strategy, Split, Href string
	N                            int
	Coverage                     string
	// RS are RS(0), RS(5), RS(10), RS(N), each value and interval.
	RS                                  [4]htmlCell
	Counts                              reliability.Counts
	Thresholds, CalibrationSplit, Items string
}

type htmlEHRModel struct {
	Name         string
	RiskCoverage svgChart
	Calibration  []svgChart
}

// hEHRSQL is a result's summary in the page's data; its items are packed
// per model (hEHRItems).
type hEHRSQL struct {
	Model    string `json:"model"`
	Strategy string `json:"strategy"`
	Split    string `json:"split"`
	N        int    `json:"n"`
	Coverage string `json:"cov"`
	RS       string `json:"rs"` // RS(0), RS(5), RS(10), RS(N) with intervals, in words
	// Blob indexes BLOBS.ehrsql; Slot the strategy within it (-1: the
	// run recorded no outcomes).
	Blob int    `json:"blob"`
	Slot int    `json:"slot"`
	Note string `json:"note,omitempty"`
}

// hEHRItems are one model's questions on a split and each strategy's
// decisions on them, in split order: questions and gold labels once.
type hEHRItems struct {
	IDs      []string      `json:"ids"`
	Question []string      `json:"q"`
	Gold     []string      `json:"gold"`
	Slots    []hEHRDecided `json:"slots"`
}

type hEHRDecided struct {
	Pred    []string `json:"pred"`
	Abst    []bool   `json:"abst"`
	Step    []string `json:"step"`
	Reason  []string `json:"why"`
	Outcome []string `json:"out"`
}

func rsCI(v float64, iv [2]float64, ok bool) string {
	if !ok {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", v, iv[0], iv[1])
}

// html builds the section's page data and the drill-down blobs.
func (e *EHRSQL) html() (*htmlEHRSQL, []hEHRSQL, []hEHRItems) {
	h := &htmlEHRSQL{Runs: strings.Join(e.Runs, ", "), Penalty: e.penalty()}
	var data []hEHRSQL
	var blobs []hEHRItems
	blobOf := map[string]int{}
	for _, r := range e.Results {
		row := htmlEHRRow{Model: r.Model, Strategy: r.Strategy, Split: r.Split, N: r.Scores.N, Coverage: fmt.Sprintf("%.1f%%", 100*r.Coverage),
			Counts: r.Scores.Counts, Thresholds: r.Thresholds, CalibrationSplit: r.CalibrationSplit,
			Href: "#ehrsql/" + pathEscape(r.Model) + "/" + pathEscape(r.Strategy)}
		var words []string
		for i, k := range []struct {
			key, name string
			v         float64
		}{{"rs0", "RS(0)", r.Scores.RS0}, {"rs5", "RS(5)", r.Scores.RS5}, {"rs10", "RS(10)", r.Scores.RS10}, {"rsN", "RS(N)", r.Scores.RSN}} {
			x, ok := r.Intervals[k.key]
			row.RS[i] = htmlCell{Text: fmt.Sprintf("%.2f", k.v)}
			if ok {
				row.RS[i].Title = fmt.Sprintf("[%.2f, %.2f]", x[0], x[1])
			}
			words = append(words, k.name+" "+rsCI(k.v, x, ok))
		}
		d := hEHRSQL{Model: r.Model, Strategy: r.Strategy, Split: r.Split, N: r.Scores.N, Coverage: row.Coverage,
			RS: strings.Join(words, " · "), Blob: -1, Slot: -1, Note: r.ItemsNote}
		if r.Items != nil {
			key := r.Model + "\x00" + r.Split
			bi, ok := blobOf[key]
			if !ok {
				bi = len(blobs)
				blobOf[key] = bi
				var b hEHRItems
				for _, it := range r.Items {
					b.IDs = append(b.IDs, it.ID)
					b.Question = append(b.Question, it.Question)
					b.Gold = append(b.Gold, clipSQL(it.Gold))
				}
				blobs = append(blobs, b)
			}
			b := &blobs[bi]
			var dd hEHRDecided
			ok = len(r.Items) == len(b.IDs)
			for i, it := range r.Items {
				if !ok || b.IDs[i] != it.ID {
					ok = false
					break
				}
				dd.Pred = append(dd.Pred, clipSQL(it.Prediction))
				dd.Abst = append(dd.Abst, it.Abstained)
				dd.Step = append(dd.Step, it.Step)
				dd.Reason = append(dd.Reason, truncRunes(it.Reason, maxErrorRunes))
				dd.Outcome = append(dd.Outcome, string(it.Outcome))
			}
			if ok {
				d.Blob, d.Slot = bi, len(b.Slots)
				b.Slots = append(b.Slots, dd)
			} else {
				d.Note = "the strategies of this model decided different questions: its decisions are not shown"
			}
		}
		row.Items = d.Note
		h.Rows = append(h.Rows, row)
		data = append(data, d)
	}
	for _, f := range e.rsPanels() {
		h.RS = append(h.RS, f.Chart)
	}
	for _, m := range e.models() {
		hm := htmlEHRModel{Name: m, RiskCoverage: e.riskCoverage(m)}
		for _, c := range e.Calibrations {
			if c.Model == m {
				for _, f := range e.calibrationSweep(c) {
					hm.Calibration = append(hm.Calibration, f.Chart)
				}
			}
		}
		h.Models = append(h.Models, hm)
	}
	return h, data, blobs
}

// pathEscape is JavaScript's encodeURIComponent, which the page's router
// undoes.
func pathEscape(s string) string { return url.PathEscape(s) }

// NewEHRSQLReport is the report of an EHRSQL section alone (clinsql report
// with EHRSQL runs and no ClinSQL ones): Write gives report.html and the
// figures.
func NewEHRSQLReport(sec *EHRSQL) *Report {
	return &Report{Mode: rubric.Strict, EHRSQL: sec, Boards: map[rubric.Mode][]*Board{}, Tasks: map[datasets.Key]*datasets.Task{}}
}
