package bigquery

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/bqfake"
)

const countSQL = "SELECT COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients`"

func scriptCount(srv *bqfake.Server) {
	srv.Script(countSQL, bqfake.Query{
		BytesProcessed:   2_500_000,
		ReferencedTables: []string{"physionet-data.mimiciv_3_1_hosp.patients"},
		Duration:         30 * time.Millisecond,
		Schema:           []bqfake.Field{{Name: "n", Type: "INTEGER"}},
		Rows:             [][]any{{"364627"}},
		SlotMillis:       1234,
	})
}

// The engine dry-runs first, then inserts a job under its own id with the
// byte cap, cache setting, labels and job timeout, and records the job's
// figures.
func TestQueryDryRunThenJob(t *testing.T) {
	f := newFixture(t, nil)
	scriptCount(f.srv)

	res, err := f.eng.Query(context.Background(), countSQL)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0][0] != int64(364627) {
		t.Fatalf("rows %v", res.Rows)
	}
	if got := res.Columns; len(got) != 1 || got[0] != (executor.Column{Name: "n", Type: "INT64"}) {
		t.Errorf("columns %v", got)
	}

	reqs := f.srv.Requests()
	if len(reqs) == 0 || reqs[0].Method != "jobs.insert" || !isDryRun(reqs[0]) {
		t.Fatalf("first request %s, want a dry-run jobs.insert", reqs[0].Method)
	}
	if n := len(dryRuns(f.srv)); n != 1 {
		t.Errorf("%d dry runs, want 1", n)
	}
	jobs := jobInserts(f.srv)
	if len(jobs) != 1 {
		t.Fatalf("%d job inserts, want 1", len(jobs))
	}
	// Nothing but the dry run happens before the job.
	for _, r := range reqs {
		if r.Method == "jobs.insert" && !isDryRun(r) {
			break
		}
		if !isDryRun(r) {
			t.Errorf("%s before the job insert", r.Method)
		}
	}
	body := jobs[0].Body
	checks := []struct {
		path []string
		want any
	}{
		{[]string{"configuration", "query", "maximumBytesBilled"}, fmt.Sprint(int64(DefaultMaxBytesBilled))},
		{[]string{"configuration", "query", "useLegacySql"}, false},
		{[]string{"configuration", "query", "query"}, countSQL},
		{[]string{"configuration", "jobTimeoutMs"}, "310000"},
		{[]string{"configuration", "labels", "app"}, "clinsql"},
		{[]string{"jobReference", "projectId"}, testProject},
		{[]string{"jobReference", "location"}, "US"},
	}
	for _, c := range checks {
		if got := bqfake.BodyAt(body, c.path...); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", strings.Join(c.path, "."), got, c.want)
		}
	}
	if bqfake.BodyAt(body, "configuration", "dryRun") == true {
		t.Error("job insert is a dry run")
	}
	if v := bqfake.BodyAt(body, "configuration", "query", "useQueryCache"); v != nil && v != true {
		t.Errorf("useQueryCache %v with the cache on", v)
	}
	jobID, _ := bqfake.BodyAt(body, "jobReference", "jobId").(string)
	if !strings.HasPrefix(jobID, "clinsql_") {
		t.Errorf("job id %q", jobID)
	}
	if f.srv.Calls("jobs.query") != nil {
		t.Error("the engine used jobs.query")
	}

	want := executor.Stats{BytesEstimated: 2_500_000, BytesProcessed: 2_500_000, BytesBilled: 10 << 20, SlotMillis: 1234, JobID: jobID}
	got := res.Stats
	got.Duration = 0
	if got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
	if res.Stats.Duration <= 0 {
		t.Error("no duration recorded")
	}
	tot := f.eng.Totals()
	if tot.Queries != 1 || tot.Succeeded != 1 || tot.DryRuns != 1 || tot.Jobs != 1 ||
		tot.BytesBilled != 10<<20 || tot.BytesEstimated != 2_500_000 || tot.SlotMillis != 1234 {
		t.Errorf("totals %+v", tot)
	}
}

func TestQueryCacheOff(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		off := false
		c.QueryCache = &off
		c.Labels = map[string]string{"run": "r1", "model": "gpt-5"}
	})
	scriptCount(f.srv)
	if _, err := f.eng.Query(context.Background(), countSQL); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.srv.Calls("jobs.insert") {
		if v := bqfake.BodyAt(r.Body, "configuration", "query", "useQueryCache"); v != false {
			t.Errorf("useQueryCache %v, want false", v)
		}
	}
	body := jobInserts(f.srv)[0].Body
	if l := bqfake.BodyAt(body, "configuration", "labels"); fmt.Sprint(l) != "map[model:gpt-5 run:r1]" {
		t.Errorf("labels %v", l)
	}
}

func TestCacheHitIsFree(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(countSQL, bqfake.Query{BytesProcessed: 5 << 30, CacheHit: true,
		Schema: []bqfake.Field{{Name: "n", Type: "INTEGER"}}, Rows: [][]any{{"1"}}})
	res, err := f.eng.Query(context.Background(), countSQL)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stats.CacheHit || res.Stats.BytesBilled != 0 {
		t.Errorf("stats %+v, want a free cache hit", res.Stats)
	}
	if tot := f.eng.Totals(); tot.CacheHits != 1 {
		t.Errorf("totals %+v", tot)
	}
}
