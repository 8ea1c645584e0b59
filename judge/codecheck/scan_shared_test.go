package codecheck

import (
	"strconv"
	"testing"

	"github.com/clinsql/clinsql/internal/testrace"
	"github.com/clinsql/clinsql/judge/internal/released"
)

// TestScanCodeDecisions scans every code decision on the results leaves of
// the 16 released models' validation runs for the error classes of issue
// 16, which no code decision may show:
//
//   - a pass of fractions (every value checked between 0 and 1) against a
//     rate band in percent, where the values read as percentages (x100)
//     lie outside the band;
//   - a pass of a rate of 0 against a rate band on a result whose counts
//     are all 0 (an empty cohort);
//   - a band decided on a column naming another statistic than the one
//     the leaf names, or on an identifier column.
func TestScanCodeDecisions(t *testing.T) {
	testrace.SecondPassOnly(t)
	tasks, models := released.Load(t)
	var decided, bands int
	for _, m := range models {
		for _, o := range m.Outputs {
			task := tasks[o.Key]
			a := LoadAnswer(o, task.Question)
			if !a.HasResult() || a.Table == nil {
				continue
			}
			for _, leaf := range task.ResultsRubric.Root.Leaves() {
				d := Check(leaf, a)
				if !d.Decided {
					continue
				}
				decided++
				if d.Kind != KindBand || d.Evidence == nil || d.Evidence.Column == "" {
					continue
				}
				bands++
				where := m.Name + " " + o.Key.String() + " " + leaf.ID + ": " + d.Explanation
				texts := bindingTexts(leaf)
				lb := ParseBands(leaf.Requirements)
				rate := false
				for _, b := range lb {
					rate = rate || rateBand(b, texts)
				}
				var vals []float64
				for _, s := range d.Evidence.Values {
					if f, err := strconv.ParseFloat(s, 64); err == nil {
						vals = append(vals, f)
					}
				}
				if d.Pass && rate && allFractions(vals) {
					for _, v := range vals {
						if !inAny(lb, v*100) {
							t.Errorf("fraction passed against a percent band: %s", where)
							break
						}
					}
				}
				if d.Pass && rate && allZero(vals) && countsAllZero(a.Table) {
					t.Errorf("empty cohort passed a rate band: %s", where)
				}
				if idName.MatchString(d.Evidence.Column) {
					t.Errorf("band bound to an identifier column: %s", where)
				}
				cs := statsOf(newTokenSet(d.Evidence.Column))
				if lead := namedStatistic(texts); lead != "" && len(cs) > 0 && !statCompatible(lead, cs) {
					t.Errorf("the leaf names the %s, column %q computes another statistic: %s", statName(lead), d.Evidence.Column, where)
				}
			}
		}
	}
	t.Logf("scanned %d code decisions on answers with a result, %d of them bands bound to a column", decided, bands)
}

func allFractions(vals []float64) bool {
	some := false
	for _, v := range vals {
		if v < 0 || v > 1 {
			return false
		}
		some = some || v != 0
	}
	return some
}

func inAny(bands []Band, v float64) bool {
	for _, b := range bands {
		if b.Contains(v) {
			return true
		}
	}
	return false
}

func allZero(vals []float64) bool {
	for _, v := range vals {
		if v != 0 {
			return false
		}
	}
	return len(vals) > 0
}

// countsAllZero reports a table with a count column (n, total_admissions,
// deaths_count) whose every count is 0: an empty cohort. A table of rates
// that are all 0 has no count to tell.
func countsAllZero(tb *Table) bool {
	counts := 0
	for i, c := range tb.Columns {
		if _, ok := newTokenSet(c)["count"]; !ok {
			continue
		}
		counts++
		for _, cell := range tb.Values(i) {
			if cell.IsNum && cell.Num != 0 {
				return false
			}
		}
	}
	return counts > 0
}
