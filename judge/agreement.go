package judge

import "fmt"

// Agreement counts paired binary decisions of two raters (here: our judge
// and a recorded one) and reports raw agreement and Cohen's kappa.
type Agreement struct {
	// N[a][b] counts items rated a by the first rater and b by the second;
	// index 1 is pass, 0 fail.
	N [2][2]int
}

// Add records one pair.
func (g *Agreement) Add(first, second bool) {
	g.N[b2i(first)][b2i(second)]++
}

// Merge adds o's counts.
func (g *Agreement) Merge(o Agreement) {
	for i := range 2 {
		for j := range 2 {
			g.N[i][j] += o.N[i][j]
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
func (g Agreement) Total() int { return g.N[0][0] + g.N[0][1] + g.N[1][0] + g.N[1][1] }

// Raw is the share of pairs that agree.
func (g Agreement) Raw() float64 {
	n := g.Total()
	if n == 0 {
		return 0
	}
	return float64(g.N[0][0]+g.N[1][1]) / float64(n)
}

// Kappa is Cohen's kappa: agreement corrected for the agreement expected by
// chance from each rater's pass rate. It is 0 (not NaN) when chance
// agreement is 1, i.e. both raters gave one answer throughout.
func (g Agreement) Kappa() float64 {
	n := float64(g.Total())
	if n == 0 {
		return 0
	}
	po := g.Raw()
	p1 := float64(g.N[1][0]+g.N[1][1]) / n // first rater: pass
	q1 := float64(g.N[0][1]+g.N[1][1]) / n // second rater: pass
	pe := p1*q1 + (1-p1)*(1-q1)
	if pe >= 1 {
		return 0
	}
	return (po - pe) / (1 - pe)
}

func (g Agreement) String() string {
	return fmt.Sprintf("n=%d raw=%.3f kappa=%.3f (both pass %d, both fail %d, ours pass/theirs fail %d, ours fail/theirs pass %d)",
		g.Total(), g.Raw(), g.Kappa(), g.N[1][1], g.N[0][0], g.N[1][0], g.N[0][1])
}
