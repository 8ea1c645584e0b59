package bigquery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/bqfake"
	"github.com/clinsql/clinsql/internal/testctx"
)

const hangSQL = "SELECT * FROM `physionet-data.mimiciv_3_1_icu.chartevents` a CROSS JOIN `physionet-data.mimiciv_3_1_icu.chartevents` b"

func scriptHang(srv *bqfake.Server) {
	srv.Script(hangSQL, bqfake.Query{BytesProcessed: 1 << 30, Hang: true,
		Schema: []bqfake.Field{{Name: "x", Type: "INTEGER"}}})
}

// cancelAfterExpiry checks that exactly one jobs.cancel reached the server
// for the job, after the moment the query's context ended.
func cancelAfterExpiry(t *testing.T, srv *bqfake.Server, jobID string, expired time.Time) {
	t.Helper()
	cancels := srv.Calls("jobs.cancel")
	if len(cancels) != 1 {
		t.Fatalf("%d jobs.cancel calls, want 1", len(cancels))
	}
	c := cancels[0]
	if !strings.HasSuffix(c.Path, "/jobs/"+jobID+"/cancel") || c.Status != 200 {
		t.Errorf("cancel %s -> %d, want job %s", c.Path, c.Status, jobID)
	}
	if c.Query.Get("location") != "US" {
		t.Errorf("cancel without the job's location: %v", c.Query)
	}
	if c.At.Before(expired) {
		t.Errorf("cancel sent %v before the context ended", expired.Sub(c.At))
	}
	if _, cancelled, _ := srv.JobState(testProject, jobID); !cancelled {
		t.Error("job not cancelled on the server")
	}
}

// A job that outlives the per-query timeout is cancelled on the server and
// the query fails as a timeout. The job hangs for ever, so that the query
// returns at all shows the timeout stopped it (how soon is no bound a
// loaded machine should be able to break).
func TestTimeoutCancelsJob(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Timeout = 150 * time.Millisecond })
	scriptHang(f.srv)
	start := time.Now()
	_, err := f.eng.Query(context.Background(), hangSQL)
	xe, fl := xerr(t, err, executor.ClassTimeout)
	if !xe.Class.ModelFault() || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: model fault %v, is deadline %v", xe.Class.ModelFault(), errors.Is(err, context.DeadlineExceeded))
	}
	jobs := jobInserts(f.srv)
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1 (a timeout is not retried)", len(jobs))
	}
	jobID := bqfake.BodyAt(jobs[0].Body, "jobReference", "jobId").(string)
	if fl.JobID != jobID {
		t.Errorf("failure names job %q, want %q", fl.JobID, jobID)
	}
	if got := bqfake.BodyAt(jobs[0].Body, "configuration", "jobTimeoutMs"); got != "10150" {
		t.Errorf("jobTimeoutMs %v, want the per-query timeout plus the grace", got)
	}
	cancelAfterExpiry(t, f.srv, jobID, start.Add(150*time.Millisecond))
	if tot := f.eng.Totals(); tot.Cancelled != 1 || tot.Failures["timeout"] != 1 {
		t.Errorf("totals %+v", tot)
	}
}

// A caller that gives up (interrupt) gets its query cancelled on the server
// too; the failure is not the model's.
func TestCallerCancelCancelsJob(t *testing.T) {
	f := newFixture(t, nil)
	scriptHang(f.srv)
	ctx, cancel := context.WithCancel(context.Background())
	var expired time.Time
	go func() {
		for len(jobInserts(f.srv)) == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		expired = time.Now()
		cancel()
	}()
	_, err := f.eng.Query(ctx, hangSQL)
	xe, _ := xerr(t, err, executor.ClassInfra)
	if xe.Class.ModelFault() || !errors.Is(err, context.Canceled) {
		t.Errorf("caller cancel: model fault %v, is canceled %v", xe.Class.ModelFault(), errors.Is(err, context.Canceled))
	}
	jobID := bqfake.BodyAt(jobInserts(f.srv)[0].Body, "jobReference", "jobId").(string)
	cancelAfterExpiry(t, f.srv, jobID, expired)
}

// A caller's deadline is a timeout, and the job is cancelled. The deadline
// passes once the job exists (an event: a fixed 120 ms could pass during
// the dry run on a loaded machine, before any job).
func TestCallerDeadlineCancelsJob(t *testing.T) {
	f := newFixture(t, nil)
	scriptHang(f.srv)
	ctx, expire, cancel := testctx.WithExpiry(context.Background())
	defer cancel()
	go func() {
		for len(jobInserts(f.srv)) == 0 {
			time.Sleep(time.Millisecond)
		}
		expire()
	}()
	_, err := f.eng.Query(ctx, hangSQL)
	xerr(t, err, executor.ClassTimeout)
	jobID := bqfake.BodyAt(jobInserts(f.srv)[0].Body, "jobReference", "jobId").(string)
	if !f.srv.WaitCancelled(context.Background(), testProject, jobID) {
		t.Fatal("job not cancelled")
	}
}

// When the timeout strikes while the insert itself is still in flight, the
// engine does not know whether the job exists: it looks it up by the id it
// chose and cancels it once it appears.
func TestTimeoutDuringInsert(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	scriptHang(f.srv)
	f.srv.FailNext("jobs.insert/job", bqfake.Fault{Delay: 180 * time.Millisecond})
	start := time.Now()
	_, err := f.eng.Query(context.Background(), hangSQL)
	xerr(t, err, executor.ClassTimeout)
	jobs := jobInserts(f.srv)
	if len(jobs) != 1 {
		t.Fatalf("%d job inserts", len(jobs))
	}
	jobID := bqfake.BodyAt(jobs[0].Body, "jobReference", "jobId").(string)
	if len(f.srv.Calls("jobs.get")) == 0 {
		t.Error("no lookup of the job")
	}
	cancelAfterExpiry(t, f.srv, jobID, start.Add(100*time.Millisecond))
}

// The server's own job timeout (jobTimeoutMs) is a timeout too.
func TestServerJobTimeout(t *testing.T) {
	f := newFixture(t, nil)
	const sql = "SELECT slow"
	f.srv.Script(sql, bqfake.Query{JobError: &bqfake.Fault{Reason: "timeout", Message: "Job execution was cancelled: Job timed out after 300 sec"}})
	_, err := f.eng.Query(context.Background(), sql)
	xerr(t, err, executor.ClassTimeout)
}
