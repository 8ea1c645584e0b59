package reports

import (
	"math"
	"strings"
	"testing"
)

// TestScoreChartsHaveWhiskers: every bar of the score charts carries its 95%
// bootstrap interval as a whisker (three lines), and its tooltip says it.
func TestScoreChartsHaveWhiskers(t *testing.T) {
	r := buildFixtureReport(t, writeFixtureSet(t), Options{})
	for _, split := range r.Splits {
		for _, f := range r.leaderboardPanels(split) {
			c := f.Chart
			bars, withCI, whiskers := 0, 0, 0
			for _, rect := range c.Rects {
				if strings.Contains(rect.Title, ": ") { // a bar, not a legend swatch
					bars++
				}
				if strings.Contains(rect.Title, "95% CI") {
					withCI++
				}
			}
			for _, l := range c.Lines {
				if l.Stroke == whiskerStroke {
					whiskers++
					if math.IsNaN(l.X1) || l.X1 > l.X2 {
						t.Errorf("%s: whisker %+v", c.Title, l)
					}
				}
			}
			if withCI == 0 || withCI != bars || whiskers != 3*withCI {
				t.Errorf("%s: %d bars, %d with an interval, %d whisker lines (want every bar, 3 lines each)", c.Title, bars, withCI, whiskers)
			}
		}
	}
}
