package reports

import (
	"fmt"

	"github.com/clinsql/clinsql/audit"
)

// htmlAudit is the judge audit section (clinsql audit's report, given to
// clinsql report with --audit).
type htmlAudit struct {
	Judge                string
	Tasks                int
	Rows                 [][]string
	Gold                 []audit.Failure
	JudgeErrors, Defects int
	Missed, Lint         int
	Cost                 string
}

// maxAuditRows bounds the gold failures listed in the page; audit.md and
// audit_failures.csv list them all.
const maxAuditRows = 200

func (r *Report) htmlAudit() *htmlAudit {
	a := r.Audit
	if a == nil {
		return nil
	}
	h := &htmlAudit{Judge: a.Judge, Tasks: a.Tasks, Missed: len(a.Missed), Lint: len(a.Lint)}
	tot := a.Totals()
	for _, m := range a.Mutations {
		t := tot[m]
		h.Rows = append(h.Rows, []string{m, fmt.Sprint(t.Answers), fmt.Sprint(t.Testable), fmt.Sprint(t.Decided), fmt.Sprint(t.Wrong), fmt.Sprint(t.Invalid), fmt.Sprint(t.Undecided)})
	}
	h.JudgeErrors, h.Defects = a.GoldClassCounts()
	h.Gold = a.GoldFailures[:min(len(a.GoldFailures), maxAuditRows)]
	if c := a.Cost; c != nil {
		h.Cost = fmt.Sprintf("estimated $%.4f, spent $%.4f in %d calls (%d cache hits), budget $%.4f", c.EstimatedUSD, c.SpentUSD, c.Calls, c.CacheHits, c.BudgetUSD)
		if c.Stopped != "" {
			h.Cost += "; stopped early: " + c.Stopped
		}
	}
	return h
}
