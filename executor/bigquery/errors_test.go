package bigquery

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/bqfake"
)

// BigQuery's reasons map to the executor's classes; the message kept is
// BigQuery's own.
func TestErrorClasses(t *testing.T) {
	row := []bqfake.Field{{Name: "x", Type: "INTEGER"}}
	cases := []struct {
		name      string
		q         bqfake.Query
		want      executor.Class
		wantMsg   string
		wantJobs  int // job inserts
		wantTries int // dry runs
	}{
		{
			name:    "syntax error",
			q:       bqfake.Query{DryRunError: bqfake.InvalidQuery(`Syntax error: Expected end of input but got identifier "SELEC" at [1:1]`)},
			want:    executor.ClassSyntax,
			wantMsg: `Syntax error: Expected end of input but got identifier "SELEC" at [1:1]`, wantTries: 1,
		},
		{
			name:    "unknown column",
			q:       bqfake.Query{DryRunError: bqfake.InvalidQuery("Unrecognized name: subjectid; Did you mean subject_id? at [1:8]")},
			want:    executor.ClassSyntax,
			wantMsg: "Unrecognized name: subjectid; Did you mean subject_id? at [1:8]", wantTries: 1,
		},
		{
			name:    "unknown table",
			q:       bqfake.Query{DryRunError: &bqfake.Fault{Reason: "notFound", Message: "Not found: Table physionet-data:mimiciv_3_1_hosp.patient was not found in location US"}},
			want:    executor.ClassSyntax,
			wantMsg: "Not found: Table physionet-data:mimiciv_3_1_hosp.patient was not found in location US", wantTries: 1,
		},
		{
			name: "billing project missing",
			q:    bqfake.Query{DryRunError: &bqfake.Fault{Reason: "notFound", Message: "Not found: Project " + testProject}},
			want: executor.ClassInfra, wantTries: 1,
		},
		{
			name: "no access to the data",
			q:    bqfake.Query{DryRunError: &bqfake.Fault{Reason: "accessDenied", Message: "Access Denied: Table physionet-data:mimiciv_3_1_hosp.patients: User does not have permission to query table physionet-data:mimiciv_3_1_hosp.patients."}},
			want: executor.ClassInfra, wantTries: 1,
		},
		{
			name:    "division by zero at run time",
			q:       bqfake.Query{Schema: row, JobError: bqfake.InvalidQuery("division by zero: 1 / 0")},
			want:    executor.ClassRuntime,
			wantMsg: "division by zero: 1 / 0", wantJobs: 1, wantTries: 1,
		},
		{
			name:     "resources exceeded",
			q:        bqfake.Query{Schema: row, JobError: &bqfake.Fault{Reason: "resourcesExceeded", Message: "Resources exceeded during query execution: The query could not be executed in the allotted memory."}},
			want:     executor.ClassRuntime,
			wantJobs: 1, wantTries: 1,
		},
		{
			name:     "response too large",
			q:        bqfake.Query{Schema: row, JobError: &bqfake.Fault{Reason: "responseTooLarge", Message: "Response too large to return. Consider specifying a destination table in your job configuration."}},
			want:     executor.ClassRowLimit,
			wantJobs: 1, wantTries: 1,
		},
		{
			name:     "billed over the cap on the server",
			q:        bqfake.Query{Schema: row, BytesProcessed: 1 << 20, BytesBilled: 60 << 30},
			want:     executor.ClassBytesLimit,
			wantMsg:  "Query exceeded limit for bytes billed: 53687091200. 64424509440 or higher required.",
			wantJobs: 1, wantTries: 1,
		},
		{
			name:    "estimate over the cap",
			q:       bqfake.Query{Schema: row, BytesProcessed: 51 << 30},
			want:    executor.ClassBytesLimit,
			wantMsg: "Query exceeded limit for bytes billed: 53687091200. 54760833024 or higher required.", wantTries: 1,
		},
		{
			name:    "script",
			q:       bqfake.Query{StatementType: "SCRIPT"},
			want:    executor.ClassRefused,
			wantMsg: "Only a single read-only SELECT query may be run; BigQuery parsed a script (several statements).", wantTries: 1,
		},
		{
			name: "drop table", q: bqfake.Query{StatementType: "DROP_TABLE"},
			want: executor.ClassRefused, wantMsg: "Only a single read-only SELECT query may be run; BigQuery parsed a DROP TABLE statement.", wantTries: 1,
		},
		{name: "insert", q: bqfake.Query{StatementType: "INSERT"}, want: executor.ClassRefused, wantTries: 1},
		{name: "export data", q: bqfake.Query{StatementType: "EXPORT_DATA"}, want: executor.ClassRefused, wantTries: 1},
		{
			name:     "stopped by someone else",
			q:        bqfake.Query{Schema: row, JobError: &bqfake.Fault{Reason: "stopped", Message: "Job execution was cancelled: User requested cancellation"}},
			want:     executor.ClassInfra,
			wantJobs: 1, wantTries: 1,
		},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nil)
			sql := "SELECT case_" + strings.Repeat("x", i)
			f.srv.Script(sql, c.q)
			_, err := f.eng.Query(context.Background(), sql)
			xe, _ := xerr(t, err, c.want)
			if c.wantMsg != "" && xe.Message != c.wantMsg {
				t.Errorf("message %q, want %q", xe.Message, c.wantMsg)
			}
			if xe.Engine != "bigquery" {
				t.Errorf("engine %q", xe.Engine)
			}
			if n := len(jobInserts(f.srv)); n != c.wantJobs {
				t.Errorf("%d job inserts, want %d", n, c.wantJobs)
			}
			if n := len(dryRuns(f.srv)); n != c.wantTries {
				t.Errorf("%d dry runs, want %d (only infrastructure failures are retried)", n, c.wantTries)
			}
			if tot := f.eng.Totals(); tot.Failures[string(c.want)] != 1 || tot.Queries != 1 {
				t.Errorf("totals %+v", tot)
			}
		})
	}
}

// An invalidQuery reply is the model's error, with BigQuery's message kept
// for the refinement prompt, and costs nothing: no job runs.
func TestInvalidQueryIsModelError(t *testing.T) {
	f := newFixture(t, nil)
	const sql = "SELECT subject_id FROM `physionet-data.mimiciv_3_1_hosp.patients` WHERE anchor_age > 'x'"
	const msg = "No matching signature for operator > for argument types: INT64, STRING. Supported signature: ANY > ANY at [1:77]"
	f.srv.Script(sql, bqfake.Query{DryRunError: bqfake.InvalidQuery(msg)})
	_, err := f.eng.Query(context.Background(), sql)
	xe, fl := xerr(t, err, executor.ClassSyntax)
	if !xe.Class.ModelFault() {
		t.Error("invalidQuery not charged to the model")
	}
	if xe.Message != msg {
		t.Errorf("message %q, want BigQuery's %q", xe.Message, msg)
	}
	if fl.Reason != "invalidQuery" || fl.HTTPStatus != 400 {
		t.Errorf("failure %+v", fl)
	}
	if n := len(jobInserts(f.srv)); n != 0 {
		t.Errorf("%d jobs run for a query the dry run rejected", n)
	}
}

// Rate limits, quota and backend errors are retried, never charged to the
// model; a retried insert keeps its job id so no second job can start.
func TestInfraRetries(t *testing.T) {
	cases := []struct {
		name     string
		method   string
		faults   []bqfake.Fault
		jobError *bqfake.Fault
	}{
		{"rate limit on insert", "jobs.insert/job", []bqfake.Fault{bqfake.RateLimited(), bqfake.RateLimited()}, nil},
		{"rate limit on dry run", "jobs.insert/dryrun", []bqfake.Fault{bqfake.RateLimited()}, nil},
		{"quota on insert", "jobs.insert/job", []bqfake.Fault{{Reason: "quotaExceeded", Message: "Quota exceeded: Your project exceeded quota for concurrent queries."}}, nil},
		{"backend error on insert", "jobs.insert/job", []bqfake.Fault{bqfake.BackendError()}, nil},
		{"connection dropped on insert", "jobs.insert/job", []bqfake.Fault{{Drop: true}}, nil},
		{"connection dropped on dry run", "jobs.insert/dryrun", []bqfake.Fault{{Drop: true}, {Drop: true}}, nil},
		{"reply lost after insert", "jobs.insert/job", []bqfake.Fault{{Drop: true, AfterProcessing: true}}, nil},
		{"bad gateway while polling", "jobs.get", []bqfake.Fault{{Code: 502, Message: "Bad Gateway"}}, nil},
		{"rate limit on results", "jobs.getQueryResults", []bqfake.Fault{bqfake.RateLimited()}, nil},
		{"job failed on the backend", "", nil, &bqfake.Fault{Reason: "backendError", Message: "Backend error. Job aborted."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nil)
			q := bqfake.Query{BytesProcessed: 1 << 20, Duration: 5 * time.Millisecond, Schema: numberedSchema, Rows: numberedRows(3)}
			if c.jobError != nil {
				q.JobError, q.FailJobs = c.jobError, 1
			}
			f.srv.Script("SELECT retried", q)
			if c.method != "" {
				f.srv.FailNext(c.method, c.faults...)
			}
			res, err := f.eng.Query(context.Background(), "SELECT retried")
			if err != nil {
				t.Fatalf("not retried: %v", err)
			}
			if len(res.Rows) != 3 {
				t.Fatalf("rows %v", res.Rows)
			}
			// Every job insert for this query carries the same job id, except
			// after a job failed on the server.
			ids := map[string]bool{}
			for _, r := range jobInserts(f.srv) {
				ids[bqfake.BodyAt(r.Body, "jobReference", "jobId").(string)] = true
			}
			wantIDs := 1
			if c.jobError != nil {
				wantIDs = 2
			}
			if len(ids) != wantIDs {
				t.Errorf("%d job ids over %d inserts, want %d", len(ids), len(jobInserts(f.srv)), wantIDs)
			}
			if res.Stats.JobID == "" || !ids[res.Stats.JobID] {
				t.Errorf("result job %q not among the inserted %v", res.Stats.JobID, ids)
			}
			if c.name == "reply lost after insert" {
				// The job was created; the retry under the same id is told
				// so (409) and the engine attaches to it.
				inserts := jobInserts(f.srv)
				if len(inserts) != 2 || inserts[0].Status != 0 || inserts[1].Status != 409 {
					t.Errorf("inserts %d, statuses %d %d; want a dropped reply then 409", len(inserts), inserts[0].Status, inserts[len(inserts)-1].Status)
				}
			}
		})
	}
}

// When retries are spent the failure is infrastructure, with the number of
// attempts, and the log says what was retried.
func TestInfraRetriesExhausted(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script("SELECT retried", bqfake.Query{Schema: numberedSchema, Rows: numberedRows(1)})
	quota := bqfake.Fault{Reason: "quotaExceeded", Message: "Quota exceeded: Your project exceeded quota for concurrent queries."}
	f.srv.FailNext("jobs.insert/job", quota, quota, quota, quota, quota, quota)
	_, err := f.eng.Query(context.Background(), "SELECT retried")
	xe, fl := xerr(t, err, executor.ClassInfra)
	if xe.Class.ModelFault() {
		t.Error("infrastructure charged to the model")
	}
	if fl.Attempts != 4 || !strings.Contains(xe.Message, "gave up after 4 attempts") || !strings.HasPrefix(xe.Message, "Quota exceeded") {
		t.Errorf("attempts %d, message %q", fl.Attempts, xe.Message)
	}
	if n := len(jobInserts(f.srv)); n != 4 {
		t.Errorf("%d inserts, want 4", n)
	}
	if tot := f.eng.Totals(); tot.Retries != 3 {
		t.Errorf("retries %d, want 3", tot.Retries)
	}
	if logs := f.log.String(); strings.Count(logs, "retrying") != 3 || !strings.Contains(logs, "quotaExceeded") {
		t.Errorf("log:\n%s", logs)
	}
}

// The wait between retries grows exponentially within [d/2, d], capped.
func TestBackoff(t *testing.T) {
	p := RetryConfig{Attempts: 10, Initial: 100 * time.Millisecond, Max: time.Second, Budget: time.Minute}
	for attempt, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 9: time.Second} {
		for range 50 {
			d := backoff(p, attempt)
			if d < want/2 || d > want {
				t.Fatalf("attempt %d: %v outside [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
}

// A garbage reply fails the query as infrastructure instead of crashing.
func TestGarbageReplies(t *testing.T) {
	cases := []struct {
		method string
		fault  bqfake.Fault
	}{
		{"jobs.insert/dryrun", bqfake.Fault{Raw: []byte(`{"kind": "bigquery#job", "statistics": 42`)}},
		{"jobs.getQueryResults", bqfake.Fault{Raw: []byte(`<html>upstream connect error</html>`), Code: 200}},
		{"jobs.get", bqfake.Fault{Raw: []byte(`{"status": {"state": "EXPLODED"}}`)}},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			f := newFixture(t, func(cfg *Config) { cfg.Retry.Attempts = 1 })
			f.srv.Script("SELECT 1", bqfake.Query{Schema: numberedSchema, Rows: numberedRows(1), Duration: 20 * time.Millisecond})
			f.srv.FailNext(c.method, c.fault)
			_, err := f.eng.Query(context.Background(), "SELECT 1")
			xerr(t, err, executor.ClassInfra)
		})
	}
	// A result page whose cells do not match the schema.
	f := newFixture(t, nil)
	f.srv.Script("SELECT bad", bqfake.Query{Schema: []bqfake.Field{{Name: "r", Type: "RECORD", Fields: []bqfake.Field{{Name: "a", Type: "INTEGER"}}}},
		Rows: [][]any{{"not a record"}}})
	_, err := f.eng.Query(context.Background(), "SELECT bad")
	xerr(t, err, executor.ClassInfra)
}
