package reports

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// Interval is a point estimate with its 95% bootstrap interval. All three
// are fractions in [0, 1] (differences in [-1, 1]); Lo and Hi are NaN when
// there are no tasks.
type Interval struct {
	Mean, Lo, Hi float64
}

// Bootstrap configures the percentile bootstrap.
type Bootstrap struct {
	// Seed makes every interval reproducible.
	Seed uint64
	// Resamples is the number of bootstrap replicates (default 2000).
	Resamples int
	// Level is the coverage (default 0.95).
	Level float64
}

// rng returns a generator that depends only on the seed and the label of
// what is resampled, so that an interval does not change when other models
// or cells are added to a report or computed in another order.
func (b Bootstrap) rng(label string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(label))
	return rand.New(rand.NewPCG(b.Seed, h.Sum64()))
}

func (b Bootstrap) resamples() int {
	if b.Resamples > 0 {
		return b.Resamples
	}
	return 2000
}

func (b Bootstrap) level() float64 {
	if b.Level > 0 && b.Level < 1 {
		return b.Level
	}
	return 0.95
}

// Means returns, for each column of per-task values, the mean and the
// percentile interval of the mean over resamples of the tasks (rows). All
// columns share the same resampled rows, so intervals of the SQL and the
// execution score of one cell come from the same draws. Columns must have
// equal lengths.
func (b Bootstrap) Means(label string, cols ...[]float64) []Interval {
	out := make([]Interval, len(cols))
	if len(cols) == 0 {
		return out
	}
	n := len(cols[0])
	for i, c := range cols {
		out[i] = Interval{Mean: mean(c), Lo: math.NaN(), Hi: math.NaN()}
	}
	if n == 0 {
		return out
	}
	r := b.rng(label)
	reps := b.resamples()
	dist := make([][]float64, len(cols))
	for i := range dist {
		dist[i] = make([]float64, reps)
	}
	idx := make([]int, n)
	for rep := 0; rep < reps; rep++ {
		for j := range idx {
			idx[j] = r.IntN(n)
		}
		for i, c := range cols {
			var s float64
			for _, j := range idx {
				s += c[j]
			}
			dist[i][rep] = s / float64(n)
		}
	}
	alpha := (1 - b.level()) / 2
	for i := range cols {
		sort.Float64s(dist[i])
		out[i].Lo = quantile(dist[i], alpha)
		out[i].Hi = quantile(dist[i], 1-alpha)
	}
	return out
}

// Ratio returns sum(num)/sum(den) over the tasks (rows) with the
// percentile interval of that ratio over resamples of the tasks: the
// interval of a rate whose units (leaves) come clustered in tasks.
// Resamples whose denominator is 0 are left out.
func (b Bootstrap) Ratio(label string, num, den []float64) Interval {
	var sn, sd float64
	for i := range num {
		sn += num[i]
		sd += den[i]
	}
	out := Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if sd == 0 {
		return out
	}
	out.Mean = sn / sd
	n := len(num)
	r := b.rng(label)
	dist := make([]float64, 0, b.resamples())
	for rep := 0; rep < b.resamples(); rep++ {
		var a, d float64
		for range n {
			j := r.IntN(n)
			a += num[j]
			d += den[j]
		}
		if d > 0 {
			dist = append(dist, a/d)
		}
	}
	sort.Float64s(dist)
	alpha := (1 - b.level()) / 2
	out.Lo, out.Hi = quantile(dist, alpha), quantile(dist, 1-alpha)
	return out
}

// Paired returns the mean difference a-b over paired tasks with its
// percentile interval, resampling pairs.
func (b Bootstrap) Paired(label string, a, bb []float64) Interval {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - bb[i]
	}
	return b.Means(label, d)[0]
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantile is numpy's default (linear) quantile of sorted xs.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}
