package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/scoring"
)

// svgChart is a chart as primitives; the template draws them, escaping
// every label. Coordinates are in pixels, rounded to 0.1.
type svgChart struct {
	Title         string
	Width, Height float64
	Rects         []svgRect
	Lines         []svgLine
	Paths         []svgPath
	Dots          []svgDot
	Texts         []svgText
}

type svgRect struct {
	X, Y, W, H  float64
	Fill, Title string
}

type svgLine struct {
	X1, Y1, X2, Y2 float64
	Stroke, Dash   string
}

type svgPath struct {
	Points, Stroke, Dash, Title string
}

type svgDot struct {
	X, Y, R     float64
	Fill, Title string
}

type svgText struct {
	X, Y         float64
	Text, Anchor string
	Size         float64
	Fill, Weight string
}

func r1(x float64) float64 { return math.Round(x*10) / 10 }

var difficultyColors = map[string]string{"easy": "#4e79a7", "medium": "#f28e2b", "hard": "#e15759", All: "#555555"}

// modelColors are distinguishable on white; models past the tenth reuse the
// hues with a dashed line.
var modelColors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

type series struct {
	Name, Color string
	// Values in [0, 100]; NaN means no value.
	Values []float64
	// Lo and Hi, when set, are each value's 95% interval, drawn as a
	// whisker across the bar's end (NaN: none).
	Lo, Hi []float64
}

// whiskerStroke draws interval whiskers, apart from the grid lines.
const whiskerStroke = "#222222"

// groupedHBars draws one group of horizontal bars per label, one bar per
// series, on a 0-100 axis.
func groupedHBars(title string, labels []string, ss []series, showValues bool) svgChart {
	maxLabel := 0
	for _, l := range labels {
		maxLabel = max(maxLabel, len([]rune(l)))
	}
	left := math.Min(300, float64(maxLabel)*6.2+12)
	plotW := 360.0
	barH := 7.0
	if len(ss) == 1 {
		barH = 11
	}
	gap := 6.0
	top := 30.0
	if len(ss) == 1 {
		top = 12
	}
	groupH := float64(len(ss))*barH + gap
	c := svgChart{Title: title, Width: r1(left + plotW + 50), Height: r1(top + float64(len(labels))*groupH + 26)}
	x := func(v float64) float64 { return r1(left + plotW*v/100) }
	bottom := top + float64(len(labels))*groupH
	for _, t := range []float64{0, 25, 50, 75, 100} {
		c.Lines = append(c.Lines, svgLine{x(t), r1(top - 4), x(t), r1(bottom), "#dddddd", ""})
		c.Texts = append(c.Texts, svgText{X: x(t), Y: r1(bottom + 14), Text: fmt.Sprint(t), Anchor: "middle", Size: 10, Fill: "#555"})
	}
	if len(ss) > 1 {
		lx := left
		for _, s := range ss {
			c.Rects = append(c.Rects, svgRect{X: r1(lx), Y: 8, W: 10, H: 10, Fill: s.Color, Title: s.Name})
			c.Texts = append(c.Texts, svgText{X: r1(lx + 14), Y: 17, Text: s.Name, Anchor: "start", Size: 11, Fill: "#333"})
			lx += 14 + float64(len([]rune(s.Name)))*6.5 + 14
		}
	}
	for i, l := range labels {
		gy := top + float64(i)*groupH
		c.Texts = append(c.Texts, svgText{X: r1(left - 6), Y: r1(gy + float64(len(ss))*barH/2 + 4), Text: l, Anchor: "end", Size: 11, Fill: "#222"})
		for j, s := range ss {
			v := s.Values[i]
			if math.IsNaN(v) {
				continue
			}
			y := r1(gy + float64(j)*barH)
			c.Rects = append(c.Rects, svgRect{X: x(0), Y: y, W: r1(plotW * v / 100), H: r1(barH - 1), Fill: s.Color,
				Title: fmt.Sprintf("%s, %s: %.2f", l, s.Name, v)})
			if s.Lo != nil && !math.IsNaN(s.Lo[i]) && !math.IsNaN(s.Hi[i]) {
				lo, hi, mid := x(s.Lo[i]), x(s.Hi[i]), r1(y+(barH-1)/2)
				c.Lines = append(c.Lines,
					svgLine{lo, mid, hi, mid, whiskerStroke, ""},
					svgLine{lo, r1(y + 1), lo, r1(y + barH - 2), whiskerStroke, ""},
					svgLine{hi, r1(y + 1), hi, r1(y + barH - 2), whiskerStroke, ""})
				c.Rects[len(c.Rects)-1].Title += fmt.Sprintf(" (95%% CI %.2f to %.2f)", s.Lo[i], s.Hi[i])
			}
			if showValues {
				c.Texts = append(c.Texts, svgText{X: r1(x(v) + 4), Y: r1(y + barH - 2.5), Text: fmt.Sprintf("%.1f", v), Anchor: "start", Size: 10, Fill: "#333"})
			}
		}
	}
	return c
}

// difficultyCharts draws, for one split, the execution and the SQL score
// per difficulty for every model, in rank order.
func (r *Report) difficultyCharts(split string) []svgChart {
	names := r.Ranking(split).Models
	var out []svgChart
	for _, metric := range []string{"Execution", "SQL"} {
		var ss []series
		for _, d := range append(append([]string{}, datasets.Difficulties...), All) {
			s := series{Name: d, Color: difficultyColors[d]}
			for _, n := range names {
				c := r.Board(r.Mode, n).Cell(split, All, d)
				v, lo, hi := math.NaN(), math.NaN(), math.NaN()
				if c != nil {
					iv := c.Exec
					if metric == "SQL" {
						iv = c.SQL
					}
					v, lo, hi = 100*roundPub(iv.Mean), 100*iv.Lo, 100*iv.Hi
				}
				s.Values = append(s.Values, v)
				s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
			}
			ss = append(ss, s)
		}
		out = append(out, groupedHBars(fmt.Sprintf("%s score per difficulty, %s split, %s mode", metric, split, modeName(r.Mode)), names, ss, false))
	}
	return out
}

// taxonomyCharts draws one bar chart per bucket: each model's failure rate.
func (r *Report) taxonomyCharts() []svgChart {
	names := r.orderedModels()
	var out []svgChart
	for i, b := range Buckets {
		s := series{Name: "failure rate", Color: modelColors[i%len(modelColors)]}
		for _, n := range names {
			t, _ := r.Taxonomy.Row(n, b)
			v := math.NaN()
			if t.Passed+t.Failed > 0 {
				v = 100 * t.FailRate()
			}
			s.Values = append(s.Values, v)
		}
		out = append(out, groupedHBars("Failed leaves (%): "+string(b), names, []series{s}, true))
	}
	return out
}

// refinementChart draws cumulative execution success after each attempt,
// one line per model and split.
func (r *Report) refinementChart() svgChart {
	maxA := 3
	for _, x := range r.Refinement {
		maxA = max(maxA, len(x.Cumulative))
	}
	left, top, plotW, plotH := 44.0, 16.0, 340.0, 240.0
	legendX := left + plotW + 24
	c := svgChart{Title: "Execution success after each attempt (cumulative %)"}
	longest := 0
	for _, x := range r.Refinement {
		longest = max(longest, len([]rune(x.Model))+len([]rune(x.Split))+3)
	}
	c.Width = r1(legendX + 24 + float64(longest+16)*6.4)
	c.Height = r1(math.Max(top+plotH+40, top+float64(len(r.Refinement))*16+20))
	x := func(k int) float64 { return r1(left + plotW*float64(k)/float64(maxA-1)) }
	y := func(v float64) float64 { return r1(top + plotH*(1-v/100)) }
	for _, t := range []float64{0, 25, 50, 75, 100} {
		c.Lines = append(c.Lines, svgLine{left, y(t), left + plotW, y(t), "#dddddd", ""})
		c.Texts = append(c.Texts, svgText{X: left - 6, Y: r1(y(t) + 3.5), Text: fmt.Sprint(t), Anchor: "end", Size: 10, Fill: "#555"})
	}
	for k := 0; k < maxA; k++ {
		c.Texts = append(c.Texts, svgText{X: x(k), Y: r1(top + plotH + 16), Text: fmt.Sprintf("attempt %d", k+1), Anchor: "middle", Size: 10, Fill: "#555"})
	}
	multiSplit := len(r.Splits) > 1
	i := 0
	for _, m := range r.orderedModels() {
		for _, row := range r.Refinement {
			if row.Model != m {
				continue
			}
			color := modelColors[i%len(modelColors)]
			dash := ""
			if i >= len(modelColors) {
				dash = "5,3"
			}
			name := row.Model
			if multiSplit {
				name += " (" + row.Split + ")"
			}
			var pts []string
			for k := range row.Cumulative {
				v := row.Rate(k)
				pts = append(pts, fmt.Sprintf("%v,%v", x(k), y(v)))
				c.Dots = append(c.Dots, svgDot{X: x(k), Y: y(v), R: 3, Fill: color,
					Title: fmt.Sprintf("%s: %.1f%% after attempt %d (%d of %d tasks)", name, v, k+1, row.Cumulative[k], row.Tasks)})
			}
			c.Paths = append(c.Paths, svgPath{Points: strings.Join(pts, " "), Stroke: color, Dash: dash, Title: name})
			ly := r1(top + float64(i)*16)
			c.Lines = append(c.Lines, svgLine{legendX, ly + 4, legendX + 18, ly + 4, color, dash})
			c.Texts = append(c.Texts, svgText{X: legendX + 24, Y: ly + 8, Text: fmt.Sprintf("%s %.1f → %.1f", name, row.Rate(0), row.Rate(len(row.Cumulative)-1)),
				Anchor: "start", Size: 11, Fill: "#222"})
			i++
		}
	}
	return c
}

func roundPub(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	return scoring.Round6(x)
}
