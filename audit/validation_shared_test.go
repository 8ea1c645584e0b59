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
	t.Logf("gold: %d leaves, %d decided by code, %d false fails; missed fails: %d", tot[Gold].Leaves, tot[Gold].CodeDecided, tot[Gold].CodeWrong, len(r.Missed))
}
