package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/executor/batch"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
)

// TestExecGoldDemo runs the validation gold queries on the real demo build
// end to end: every task is accounted for, every success has its CSV and
// every failure its class.
func TestExecGoldDemo(t *testing.T) {
	testrace.SecondPassOnly(t) // TestExecGold runs the same path under the detector
	db := demoDB(t)
	data := shared.Path(t, "clinsql-data")
	out := filepath.Join(t.TempDir(), "gold")
	code, stdout, errs := runCLI(t, "", "exec", "--db", db, "--tasks", data, "--gold", "--out", out, "--concurrency", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Log(firstLine(stdout))
	b, err := os.ReadFile(filepath.Join(out, batch.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s batch.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Total != 190 || len(s.Outcomes) != 190 || s.Succeeded+len(s.Failures) != 190 {
		t.Fatalf("total %d outcomes %d succeeded %d failures %d", s.Total, len(s.Outcomes), s.Succeeded, len(s.Failures))
	}
	for _, o := range s.Outcomes {
		_, err := os.Stat(filepath.Join(out, filepath.FromSlash(o.CSV)))
		switch {
		case o.OK && (o.CSV == "" || err != nil):
			t.Errorf("%s succeeded without a CSV", o.Task)
		case !o.OK && (o.Class == "" || o.Error == ""):
			t.Errorf("%s failed without a class or message", o.Task)
		}
	}
}
