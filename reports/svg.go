package reports

import (
	"fmt"
	"math"
	"strings"

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
	// Rotate turns the text by that many degrees about (X, Y): -90 for a
	// vertical axis title.
	Rotate float64
}

func r1(x float64) float64 { return math.Round(x*10) / 10 }

// modelColors are distinguishable on white; models past the tenth reuse the
// hues with a dashed line.
var modelColors = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// whiskerStroke draws interval whiskers, apart from the grid lines.
const whiskerStroke = "#222222"

// refinementChart draws cumulative execution success after each attempt,
// one line per model and split.
func (r *Report) refinementChart() svgChart {
	maxA := 3
	for _, x := range r.Refinement {
		maxA = max(maxA, len(x.Cumulative))
	}
	left, top, plotW, plotH := 64.0, 16.0, 340.0, 240.0
	legendX := left + plotW + 24
	c := svgChart{Title: "Execution success after each attempt (cumulative %)"}
	longest := 0
	for _, x := range r.Refinement {
		longest = max(longest, len([]rune(x.Model))+len([]rune(x.Split))+3)
	}
	c.Width = r1(legendX + 24 + float64(longest+16)*6.4)
	c.Height = r1(math.Max(top+plotH+50, top+float64(len(r.Refinement))*16+20))
	x := func(k int) float64 { return r1(left + plotW*float64(k)/float64(maxA-1)) }
	y := func(v float64) float64 { return r1(top + plotH*(1-v/100)) }
	for _, t := range []float64{0, 25, 50, 75, 100} {
		c.Lines = append(c.Lines, svgLine{left, y(t), left + plotW, y(t), "#dddddd", ""})
		c.Texts = append(c.Texts, svgText{X: left - 6, Y: r1(y(t) + 3.5), Text: fmt.Sprint(t), Anchor: "end", Size: 10, Fill: "#555"})
	}
	for k := 0; k < maxA; k++ {
		c.Texts = append(c.Texts, svgText{X: x(k), Y: r1(top + plotH + 16), Text: fmt.Sprintf("attempt %d", k+1), Anchor: "middle", Size: 10, Fill: "#555"})
	}
	c.Texts = append(c.Texts,
		svgText{X: r1(left + plotW/2), Y: r1(top + plotH + 36), Text: "refinement attempt (the first query, then each fix)", Anchor: "middle", Size: 11, Fill: "#222"},
		svgText{X: r1(left - 40), Y: r1(top + plotH/2), Text: "tasks whose SQL has run (%)", Anchor: "middle", Size: 11, Fill: "#222", Rotate: -90})
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
