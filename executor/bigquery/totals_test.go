package bigquery

import (
	"context"
	"fmt"
	"math"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/bqfake"
)

// Concurrent queries are summed exactly.
func TestTotalsConcurrent(t *testing.T) {
	f := newFixture(t, nil)
	const n = 24
	var wantBilled, wantProcessed, wantSlots int64
	for i := range n {
		processed := int64(i+1) * 7 << 20
		f.srv.Script(fmt.Sprintf("SELECT %d", i), bqfake.Query{BytesProcessed: processed, SlotMillis: int64(100 + i),
			Schema: numberedSchema, Rows: numberedRows(i % 3)})
		wantProcessed += processed
		wantBilled += max(processed, 10<<20)
		wantSlots += int64(100 + i)
	}
	f.srv.Script("SELECT broken", bqfake.Query{DryRunError: bqfake.InvalidQuery("Syntax error")})
	var g errgroup.Group
	g.SetLimit(6)
	for i := range n {
		g.Go(func() error {
			_, err := f.eng.Query(context.Background(), fmt.Sprintf("SELECT %d", i))
			return err
		})
		if i%8 == 0 {
			g.Go(func() error {
				_, err := f.eng.Query(context.Background(), "SELECT broken")
				if executor.ClassOf(err) != executor.ClassSyntax {
					return fmt.Errorf("broken query: %v", err)
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	tot := f.eng.Totals()
	want := Totals{Queries: n + 3, Succeeded: n, DryRuns: n, Jobs: n, Failures: map[string]int64{"syntax_error": 3},
		BytesEstimated: wantProcessed, BytesProcessed: wantProcessed, BytesBilled: wantBilled, SlotMillis: wantSlots}
	if fmt.Sprint(tot) != fmt.Sprint(want) {
		t.Errorf("totals\n got  %+v\n want %+v", tot, want)
	}
	if c := tot.Cost(6.25); math.Abs(c-float64(wantBilled)/(1<<40)*6.25) > 1e-12 {
		t.Errorf("cost %v", c)
	}
}

// DryRun on its own estimates without running anything.
func TestDryRun(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script("SELECT big", bqfake.Query{BytesProcessed: 3 << 40, ReferencedTables: []string{
		"physionet-data.mimiciv_3_1_icu.chartevents", "physionet-data.mimiciv_3_1_hosp.patients"}})
	f.srv.Script("SELECT small", bqfake.Query{BytesProcessed: 1000, ReferencedTables: []string{
		"physionet-data.mimiciv_3_1_hosp.patients", "physionet-data.mimiciv_3_1_hosp.admissions"}})
	f.srv.Script("SELECT cached", bqfake.Query{BytesProcessed: 1 << 30, CacheHit: true})
	f.srv.Script("SELECT bad", bqfake.Query{DryRunError: bqfake.InvalidQuery("Syntax error: Unexpected end of script at [1:11]")})

	est, err := f.eng.DryRun(context.Background(), "SELECT big")
	if err != nil {
		t.Fatal(err)
	}
	if est.StatementType != "SELECT" || est.BytesProcessed != 3<<40 || est.BytesBilled != 3<<40 || est.CostUSD != 18.75 ||
		est.Accuracy != "PRECISE" || len(est.ReferencedTables) != 2 {
		t.Errorf("estimate %+v", est)
	}
	est, err = f.eng.DryRun(context.Background(), "SELECT small")
	if err != nil {
		t.Fatal(err)
	}
	if est.BytesBilled != 20<<20 {
		t.Errorf("small query billed %d, want the 10 MiB minimum per table", est.BytesBilled)
	}
	est, err = f.eng.DryRun(context.Background(), "SELECT cached")
	if err != nil || est.BytesBilled != 0 || est.CostUSD != 0 {
		t.Errorf("cached: %+v %v", est, err)
	}
	_, err = f.eng.DryRun(context.Background(), "SELECT bad")
	xerr(t, err, executor.ClassSyntax)
	if n := len(jobInserts(f.srv)); n != 0 {
		t.Errorf("%d jobs run by dry runs", n)
	}
	if tot := f.eng.Totals(); tot.DryRuns != 3 || tot.Queries != 0 || tot.BytesBilled != 0 {
		t.Errorf("totals %+v", tot)
	}
}

func TestEstimateBilled(t *testing.T) {
	cases := []struct {
		processed int64
		tables    int
		want      int64
	}{
		{0, 0, 10 << 20},
		{1, 1, 10 << 20},
		{11<<20 + 1, 1, 12 << 20},
		{11 << 20, 3, 30 << 20},
		{5 << 30, 3, 5 << 30},
	}
	for _, c := range cases {
		if got := EstimateBilled(c.processed, c.tables); got != c.want {
			t.Errorf("EstimateBilled(%d, %d) = %d, want %d", c.processed, c.tables, got, c.want)
		}
	}
}
