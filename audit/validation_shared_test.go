package audit

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/golden"
	"github.com/clinsql/clinsql/internal/shared"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func loadValidation(tb testing.TB) []*datasets.Task {
	tb.Helper()
	dir := shared.Path(tb, "clinsql-data", "data", "splits", "validation")
	tasks, err := datasets.LoadClinSQL(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return tasks
}

// TestValidationCodeAudit audits the code checks on the 190 validation
// tasks with every result mutation. The figures of the README's section
// on auditing a judge are this golden's.
func TestValidationCodeAudit(t *testing.T) {
	tasks := loadValidation(t)
	r, err := Run(context.Background(), tasks, Options{Mutations: ResultMutations})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "validation-code.md"), b.String(), *update)
	tot := r.Totals()
	// The targets of issue 19, kept as guards: no gold failure the code is
	// to blame for, no missed failure, and no fewer code decisions on gold
	// than main made before the fixes (1,840).
	if je, _ := r.GoldClassCounts(); je != 0 {
		t.Errorf("%d gold failures are the code's errors", je)
	}
	if len(r.Missed) != 0 {
		t.Errorf("%d missed failures on mutations", len(r.Missed))
	}
	if tot[Gold].CodeDecided < 1840 {
		t.Errorf("code decides %d gold leaves, fewer than 1,840", tot[Gold].CodeDecided)
	}
	t.Logf("gold: %d leaves, %d decided by code, %d false fails; missed fails: %d", tot[Gold].Leaves, tot[Gold].CodeDecided, tot[Gold].CodeWrong, len(r.Missed))
}
