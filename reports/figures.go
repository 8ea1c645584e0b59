package reports

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/atomicfile"
)

// FiguresDir is where Write puts every chart of the report as its own SVG
// file, for a paper.
const FiguresDir = "figures"

// figure is a chart and the file it is written to under FiguresDir.
type figure struct {
	File  string
	Chart svgChart
}

// bar is one bar of a panel: a label, a value in [0, 100] and its
// interval (NaN: none).
type bar struct {
	Label        string
	V, Lo, Hi    float64
	Note         string // shown after the value, e.g. the task count
	Badge, Title string
}

// barPanel draws one metric for every label as horizontal bars sorted by
// value (largest first, labels without a value last), each with its
// interval as a whisker and its value written after it, on a titled 0-100
// axis.
func barPanel(title, axis, color string, bars []bar) svgChart {
	return barPanelRange(title, axis, color, bars, 0, 100)
}

// barPanelRange is barPanel on an axis from lo to hi; bars grow from 0,
// either way.
func barPanelRange(title, axis, color string, bars []bar, lo, hi float64) svgChart {
	bars = append([]bar(nil), bars...)
	sort.SliceStable(bars, func(i, j int) bool {
		a, b := bars[i].V, bars[j].V
		if math.IsNaN(a) || math.IsNaN(b) {
			return !math.IsNaN(a) && math.IsNaN(b)
		}
		return a > b
	})
	maxLabel := 0
	for _, b := range bars {
		maxLabel = max(maxLabel, len([]rune(b.Label)))
	}
	left := math.Min(280, float64(maxLabel)*6.3+14)
	plotW, barH, top := 320.0, 16.0, 6.0
	c := svgChart{Title: title, Width: r1(left + plotW + 150)}
	bottom := top + float64(len(bars))*barH
	c.Height = r1(bottom + 40)
	x := func(v float64) float64 { return r1(left + plotW*(clamp(v, lo, hi)-lo)/(hi-lo)) }
	for _, t := range niceTicks(lo, hi, 6) {
		c.Lines = append(c.Lines, svgLine{x(t), top - 2, x(t), r1(bottom), "#dddddd", ""})
		c.Texts = append(c.Texts, svgText{X: x(t), Y: r1(bottom + 13), Text: tickText(t), Anchor: "middle", Size: 10, Fill: "#555"})
	}
	if lo < 0 {
		c.Lines = append(c.Lines, svgLine{x(0), top - 2, x(0), r1(bottom), "#555555", ""})
	}
	c.Texts = append(c.Texts, svgText{X: r1(left + plotW/2), Y: r1(bottom + 30), Text: axis, Anchor: "middle", Size: 11, Fill: "#222"})
	for i, b := range bars {
		y := r1(top + float64(i)*barH)
		c.Texts = append(c.Texts, svgText{X: r1(left - 6), Y: r1(y + barH/2 + 4), Text: b.Label, Anchor: "end", Size: 11, Fill: "#222"})
		if math.IsNaN(b.V) {
			c.Texts = append(c.Texts, svgText{X: r1(x(0) + 4), Y: r1(y + barH/2 + 4), Text: "no value", Anchor: "start", Size: 10, Fill: "#888"})
			continue
		}
		tip := fmt.Sprintf("%s: %.2f", b.Label, b.V)
		end := math.Max(b.V, 0)
		ci := !math.IsNaN(b.Lo) && !math.IsNaN(b.Hi)
		if ci {
			tip += fmt.Sprintf(" (95%% CI %.2f to %.2f)", b.Lo, b.Hi)
			end = math.Max(end, b.Hi)
		}
		if b.Title != "" {
			tip += "; " + b.Title
		}
		x0, xv := x(0), x(b.V)
		c.Rects = append(c.Rects, svgRect{X: math.Min(x0, xv), Y: r1(y + 2), W: r1(math.Abs(xv - x0)), H: r1(barH - 4), Fill: color, Title: tip})
		if ci {
			l, h, mid := x(b.Lo), x(b.Hi), r1(y+barH/2)
			c.Lines = append(c.Lines,
				svgLine{l, mid, h, mid, whiskerStroke, ""},
				svgLine{l, r1(y + 4), l, r1(y + barH - 4), whiskerStroke, ""},
				svgLine{h, r1(y + 4), h, r1(y + barH - 4), whiskerStroke, ""})
		}
		label := fmt.Sprintf("%.1f", b.V)
		if b.Note != "" {
			label += " " + b.Note
		}
		c.Texts = append(c.Texts, svgText{X: r1(x(end) + 5), Y: r1(y + barH/2 + 4), Text: label, Anchor: "start", Size: 10, Fill: "#222"})
	}
	return c
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// niceTicks returns ticks 1, 2 or 5 x 10^k apart covering [lo, hi], about
// n of them.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(max(1, n))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	var out []float64
	for t := math.Ceil(lo/step-1e-9) * step; t <= hi+step*1e-9; t += step {
		out = append(out, math.Round(t/step)*step)
	}
	return out
}

func tickText(v float64) string {
	s := fmt.Sprintf("%.4g", v)
	if s == "-0" {
		return "0"
	}
	return s
}

// xySeries is a line (or, with one point, a marker) of an xy panel.
type xySeries struct {
	Name, Color, Dash string
	X, Y              []float64
	// Mark, when set, rings the point of that index (a chosen threshold).
	Mark int
	// Labels are written beside the points (nil: none).
	Labels []string
}

// xyPanel is one plot area of an xyChart.
type xyPanel struct {
	YLabel         string
	YMin, YMax     float64
	Series         []xySeries
	HLines, VLines []float64 // reference lines (dashed)
}

// xyChart draws panels stacked over one titled x axis, each with its own
// titled y axis and ticks, and under them a legend of the series names.
func xyChart(title, xlabel string, xmin, xmax float64, panels []xyPanel) svgChart {
	left, plotW, plotH, gap := 64.0, 380.0, 170.0, 28.0
	c := svgChart{Title: title, Width: r1(left + plotW + 16)}
	names := map[string]bool{}
	var legend []xySeries
	for _, p := range panels {
		for _, s := range p.Series {
			if !names[s.Name] {
				names[s.Name] = true
				legend = append(legend, s)
			}
		}
	}
	x := func(v float64) float64 { return r1(left + plotW*(clamp(v, xmin, xmax)-xmin)/(xmax-xmin)) }
	top := 8.0
	for pi, p := range panels {
		y := func(v float64) float64 { return r1(top + plotH*(1-(clamp(v, p.YMin, p.YMax)-p.YMin)/(p.YMax-p.YMin))) }
		c.Rects = append(c.Rects, svgRect{X: left, Y: r1(top), W: plotW, H: plotH, Fill: "#fbfbfb", Title: p.YLabel})
		for _, t := range niceTicks(p.YMin, p.YMax, 5) {
			c.Lines = append(c.Lines, svgLine{left, y(t), left + plotW, y(t), "#dddddd", ""})
			c.Texts = append(c.Texts, svgText{X: left - 5, Y: r1(y(t) + 3.5), Text: tickText(t), Anchor: "end", Size: 10, Fill: "#555"})
		}
		for _, t := range niceTicks(xmin, xmax, 5) {
			c.Lines = append(c.Lines, svgLine{x(t), r1(top), x(t), r1(top + plotH), "#dddddd", ""})
			if pi == len(panels)-1 {
				c.Texts = append(c.Texts, svgText{X: x(t), Y: r1(top + plotH + 13), Text: tickText(t), Anchor: "middle", Size: 10, Fill: "#555"})
			}
		}
		for _, h := range p.HLines {
			c.Lines = append(c.Lines, svgLine{left, y(h), left + plotW, y(h), "#888888", "4,3"})
		}
		for _, v := range p.VLines {
			c.Lines = append(c.Lines, svgLine{x(v), r1(top), x(v), r1(top + plotH), "#888888", "4,3"})
		}
		c.Texts = append(c.Texts, svgText{X: r1(left - 44), Y: r1(top + plotH/2), Text: p.YLabel, Anchor: "middle", Size: 11, Fill: "#222", Rotate: -90})
		for _, s := range p.Series {
			var pts []string
			for i := range s.X {
				if math.IsNaN(s.Y[i]) {
					continue
				}
				pts = append(pts, fmt.Sprintf("%v,%v", x(s.X[i]), y(s.Y[i])))
			}
			if len(pts) > 1 {
				c.Paths = append(c.Paths, svgPath{Points: strings.Join(pts, " "), Stroke: s.Color, Dash: s.Dash, Title: s.Name})
			}
			for i := range s.X {
				if math.IsNaN(s.Y[i]) {
					continue
				}
				tip := fmt.Sprintf("%s: %s %.3g, %s %.3g", s.Name, xlabel, s.X[i], p.YLabel, s.Y[i])
				r := 2.0
				if len(s.X) == 1 {
					r = 4.5
				}
				if i == s.Mark && s.Mark >= 0 {
					c.Dots = append(c.Dots, svgDot{X: x(s.X[i]), Y: y(s.Y[i]), R: 7, Fill: "#222222", Title: tip + " (chosen)"},
						svgDot{X: x(s.X[i]), Y: y(s.Y[i]), R: 5.5, Fill: "#ffffff", Title: tip + " (chosen)"},
						svgDot{X: x(s.X[i]), Y: y(s.Y[i]), R: 4, Fill: s.Color, Title: tip + " (chosen)"})
				} else {
					c.Dots = append(c.Dots, svgDot{X: x(s.X[i]), Y: y(s.Y[i]), R: r, Fill: s.Color, Title: tip})
				}
				if s.Labels != nil && s.Labels[i] != "" {
					c.Texts = append(c.Texts, svgText{X: r1(x(s.X[i]) + 6), Y: r1(y(s.Y[i]) - 5), Text: s.Labels[i], Anchor: "start", Size: 10, Fill: s.Color})
				}
			}
		}
		top += plotH + gap
	}
	bottom := top - gap
	c.Texts = append(c.Texts, svgText{X: r1(left + plotW/2), Y: r1(bottom + 30), Text: xlabel, Anchor: "middle", Size: 11, Fill: "#222"})
	// The legend, under the axis, entries filling rows of the plot's width.
	lx, ly := left, bottom+50
	for _, s := range legend {
		w := 30 + float64(len([]rune(s.Name)))*6.3
		if lx > left && lx+w > left+plotW {
			lx, ly = left, ly+16
		}
		c.Lines = append(c.Lines, svgLine{r1(lx), r1(ly), r1(lx + 18), r1(ly), s.Color, s.Dash})
		c.Dots = append(c.Dots, svgDot{X: r1(lx + 9), Y: r1(ly), R: 3, Fill: s.Color, Title: s.Name})
		c.Texts = append(c.Texts, svgText{X: r1(lx + 24), Y: r1(ly + 4), Text: s.Name, Anchor: "start", Size: 11, Fill: "#222"})
		lx += w + 12
	}
	c.Height = r1(ly + 14)
	return c
}

// seriesColors tell up to ten series apart; past them the hues repeat
// dashed.
func seriesStyle(i int) (color, dash string) {
	color = modelColors[i%len(modelColors)]
	if i >= len(modelColors) {
		dash = "5,3"
	}
	return color, dash
}

// fileSlug makes a chart's file name: lower case letters, digits and
// dashes.
func fileSlug(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('_')
		}
		dash := false
		for _, r := range strings.ToLower(p) {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
				b.WriteRune(r)
				dash = false
			case !dash:
				b.WriteByte('-')
				dash = true
			}
		}
	}
	return strings.Trim(b.String(), "-_.")
}

// leaderboardPanels are one split's score charts: the execution and SQL
// score overall and per difficulty, each over every model sorted, with
// intervals and values.
func (r *Report) leaderboardPanels(split string) []figure {
	var out []figure
	for _, metric := range []struct{ name, slug, color string }{{"Execution", "exec", "#4e79a7"}, {"SQL", "sql", "#59a14f"}} {
		for _, d := range append([]string{All}, datasets.Difficulties...) {
			var bars []bar
			for _, name := range r.Ranking(split).Models {
				b := bar{Label: name, V: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
				if c := r.Board(r.Mode, name).Cell(split, All, d); c != nil {
					iv := c.Exec
					if metric.slug == "sql" {
						iv = c.SQL
					}
					b.V, b.Lo, b.Hi = 100*roundPub(iv.Mean), 100*iv.Lo, 100*iv.Hi
					b.Note = fmt.Sprintf("(n = %d)", c.N)
				}
				if m := r.Model(name); m != nil && m.Database != nil {
					b.Label += " *"
					b.Title = m.Database.Caveat
				}
				bars = append(bars, b)
			}
			if !anyValue(bars) {
				continue // no task of that difficulty in the split
			}
			which := "all tasks"
			if d != All {
				which = d + " tasks"
			}
			title := fmt.Sprintf("%s score, %s split, %s (%s mode)", metric.name, split, which, modeName(r.Mode))
			out = append(out, figure{File: fileSlug("leaderboard", split, metric.slug, d) + ".svg",
				Chart: barPanel(title, metric.name+" score x100, 95% bootstrap CI", metric.color, bars)})
		}
	}
	return out
}

// taxonomyPanels are the failure rate of each bucket, every model sorted,
// with the rate's interval over tasks.
func (r *Report) taxonomyPanels() []figure {
	var out []figure
	for i, b := range Buckets {
		var bars []bar
		for _, name := range r.orderedModels() {
			t, _ := r.Taxonomy.Row(name, b)
			br := bar{Label: name, V: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
			if t.Passed+t.Failed > 0 {
				iv := r.Bootstrap.Ratio("taxonomy/"+name+"/"+string(b), t.failed, t.decided)
				br.V, br.Lo, br.Hi = 100*iv.Mean, 100*iv.Lo, 100*iv.Hi
				br.Note = fmt.Sprintf("(%d/%d)", t.Failed, t.Passed+t.Failed)
			}
			bars = append(bars, br)
		}
		if !anyValue(bars) {
			continue
		}
		color, _ := seriesStyle(i)
		out = append(out, figure{File: fileSlug("taxonomy", string(b)) + ".svg",
			Chart: barPanel("Failed leaves: "+string(b), "failed / decided leaves (%), 95% bootstrap CI over tasks", color, bars)})
	}
	return out
}

// figures lists every chart of the report with its file name.
func (r *Report) figures() []figure {
	var out []figure
	for _, s := range r.Splits {
		out = append(out, r.leaderboardPanels(s)...)
	}
	if r.Taxonomy != nil {
		out = append(out, r.taxonomyPanels()...)
	}
	if len(r.Refinement) > 0 {
		out = append(out, figure{File: "refinement.svg", Chart: r.refinementChart()})
	}
	if r.EHRSQL != nil {
		out = append(out, r.EHRSQL.figures()...)
	}
	return out
}

// writeFigures writes every chart as its own SVG file under dir.
func (r *Report) writeFigures(dir string) ([]string, error) {
	var written []string
	for _, f := range r.figures() {
		var b bytes.Buffer
		if err := pageTemplate.ExecuteTemplate(&b, "svgfile", f.Chart); err != nil {
			return written, fmt.Errorf("%s: %w", f.File, err)
		}
		p := filepath.Join(dir, f.File)
		if err := atomicfile.Write(p, b.Bytes()); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

func anyValue(bars []bar) bool {
	for _, b := range bars {
		if !math.IsNaN(b.V) {
			return true
		}
	}
	return false
}
