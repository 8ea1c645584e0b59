package reports

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/audit"
)

// A Job is one report as clinsql report writes it: built from its options,
// with a judge audit beside it, written into Out.
type Job struct {
	Options
	// Out is the report folder.
	Out string
	// AuditDir is a judge audit's folder (clinsql audit --out) whose
	// audit.json report.html shows; "" for none.
	AuditDir string
	// EHRSQL is an EHRSQL section (ehrsqlbench.Section) the report shows
	// beside the ClinSQL models; nil for none.
	EHRSQL *EHRSQL
	// Labels, if set, is a label set (LabelsFile names it) to measure the
	// models' judges against and correct the leaderboard by.
	Labels     []labelset.Label
	LabelsFile string
	// Built, if set, is called once the report is built, before its files
	// are written (a progress line, warnings).
	Built func(*Report)
}

// Run builds the job's report and writes its files into Out; files lists
// them, report.html last.
func Run(ctx context.Context, j Job) (r *Report, files []string, err error) {
	if r, err = Build(ctx, j.Options); err != nil {
		return nil, nil, err
	}
	if j.AuditDir != "" {
		if r.Audit, err = audit.ReadJSON(filepath.Join(j.AuditDir, audit.JSONFile)); err != nil {
			return nil, nil, fmt.Errorf("--audit: %w", err)
		}
	}
	if j.Labels != nil {
		if err := r.applyLabels(j.LabelsFile, j.Labels, j.Tasks); err != nil {
			return nil, nil, fmt.Errorf("--labels: %w", err)
		}
	}
	r.EHRSQL = j.EHRSQL
	if j.Built != nil {
		j.Built(r)
	}
	if files, err = r.Write(j.Out); err != nil {
		return nil, nil, err
	}
	return r, files, nil
}
