package reports

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/clinsql/clinsql/runfolder"
)

// RefinementRow is one model's execution success per attempt on one split,
// from the run's execution summaries.
type RefinementRow struct {
	Model string `json:"model"`
	Split string `json:"split"`
	// Tasks is the number of task outputs in the run for the split, less
	// those the engine could not run faithfully (Excluded), which the run's
	// benchmark_summary.json does not count against the model either.
	Tasks    int `json:"tasks"`
	Excluded int `json:"excluded_unsupported,omitempty"`
	// NoSQL counts tasks where generation returned no SQL (no attempt).
	NoSQL int `json:"no_sql"`
	// Cumulative[k] counts tasks whose SQL ran by attempt k+1;
	// FirstSuccess[k] those that first ran at attempt k+1, so
	// FirstSuccess[k] for k >= 1 is what refinement round k rescued. Both
	// have at least three entries (the reference's three attempts).
	Cumulative   []int `json:"ran_after_attempt"`
	FirstSuccess []int `json:"first_ran_at_attempt"`
	// Failed counts tasks whose SQL never ran.
	Failed int `json:"never_ran"`
	// Warned counts tasks whose final SQL ran with a warning: not exactly
	// as BigQuery would have (on a sample database, a division by zero
	// given NULL).
	Warned int `json:"ran_with_warnings,omitempty"`
	// Published is benchmark_summary.json's cumulative success counts for
	// the split ("1", "2", "3"), nil when the run has none; Mismatch is set
	// when they differ from what the execution summaries say.
	Published []int `json:"published_ran_after_attempt"`
	Mismatch  bool  `json:"published_mismatch"`
}

// Rate is Cumulative[k] as a percentage of Tasks.
func (r RefinementRow) Rate(k int) float64 {
	if r.Tasks == 0 || k >= len(r.Cumulative) {
		return 0
	}
	return 100 * float64(r.Cumulative[k]) / float64(r.Tasks)
}

// firstSuccess returns the attempt (1-based) at which a task's SQL first
// ran, or 0 if it never did.
func firstSuccess(s runfolder.ExecutionSummary) int {
	for i, a := range s.RefinementAttempts {
		if a.Success {
			if a.Attempt > 0 {
				return a.Attempt
			}
			return i + 1
		}
	}
	if s.ExecutionSuccess && len(s.RefinementAttempts) == 0 {
		return 1 // an engine that records no attempts ran it once
	}
	return 0
}

// finalWarnings are the warnings of the attempt whose SQL is the task's
// final one, when it ran.
func finalWarnings(s runfolder.ExecutionSummary) []string {
	if n := len(s.RefinementAttempts); n > 0 && s.ExecutionSuccess {
		return s.RefinementAttempts[n-1].Warnings
	}
	return nil
}

func refinement(m *Model, splits []string) ([]RefinementRow, []error) {
	var rows []RefinementRow
	var warns []error
	excluded := map[string]bool{}
	if m.Bench != nil {
		for _, k := range m.Bench.Clinsql.Excluded {
			excluded[k] = true
		}
	}
	for _, split := range splits {
		var outs []*runfolder.Output
		skipped := 0
		for _, o := range m.Outputs {
			switch {
			case o.Key.Split != split:
			case excluded[o.Key.String()]:
				skipped++
			default:
				outs = append(outs, o)
			}
		}
		if len(outs) == 0 {
			continue
		}
		sort.Slice(outs, func(i, j int) bool { return outs[i].Key.Less(outs[j].Key) })
		r := RefinementRow{Model: m.Name, Split: split, Tasks: len(outs), Excluded: skipped}
		maxAttempts := 3
		for _, o := range outs {
			maxAttempts = max(maxAttempts, len(o.Summary.RefinementAttempts))
		}
		r.FirstSuccess = make([]int, maxAttempts)
		for _, o := range outs {
			if len(o.Summary.RefinementAttempts) == 0 && !o.Summary.ExecutionSuccess {
				r.NoSQL++
			}
			if len(finalWarnings(o.Summary)) > 0 {
				r.Warned++
			}
			switch k := firstSuccess(o.Summary); {
			case k == 0:
				r.Failed++
			case k > maxAttempts:
				r.FirstSuccess = append(r.FirstSuccess, make([]int, k-maxAttempts)...)
				maxAttempts = k
				fallthrough
			default:
				r.FirstSuccess[k-1]++
			}
		}
		r.Cumulative = make([]int, len(r.FirstSuccess))
		sum := 0
		for i, n := range r.FirstSuccess {
			sum += n
			r.Cumulative[i] = sum
		}
		if m.Bench != nil {
			if b, ok := m.Bench.Splits[split]; ok && len(b.Cumulative) > 0 {
				for i := 1; i <= len(b.Cumulative); i++ {
					n, ok := b.Cumulative[strconv.Itoa(i)]
					if !ok {
						break
					}
					r.Published = append(r.Published, n)
				}
				for i, n := range r.Published {
					if i >= len(r.Cumulative) || r.Cumulative[i] != n {
						r.Mismatch = true
					}
				}
				if b.TotalQueries != 0 && b.TotalQueries != r.Tasks {
					r.Mismatch = true
				}
				if r.Mismatch {
					warns = append(warns, fmt.Errorf("%s: %s split: benchmark_summary.json says %v successes by attempt over %d tasks, the execution summaries %v over %d",
						m.Run, split, r.Published, b.TotalQueries, r.Cumulative, r.Tasks))
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, warns
}
