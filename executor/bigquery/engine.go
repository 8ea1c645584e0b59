package bigquery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/clinsql/clinsql/executor"
)

// Name is the engine's name on the command line.
const Name = "bigquery"

// jobTimeoutGrace is added to the per-query timeout for the job's own
// server-side timeout (jobTimeoutMs).
const jobTimeoutGrace = 10 * time.Second

// maxPageRows bounds a page request; the API cuts pages at about 10 MB anyway.
const maxPageRows = 10_000

// Engine runs ClinSQL queries on BigQuery. It implements executor.Executor
// and is safe for concurrent use.
type Engine struct {
	cfg      Config
	client   *bigquery.Client
	datasets *datasetMap
	redact   *redactor
	log      *slog.Logger
	totals   Accumulator

	apiTimeout    time.Duration // one dry run or job insert
	cancelTimeout time.Duration // jobs.cancel after the query's context ended
	pollInitial   time.Duration // first jobs.get poll interval
	pollMax       time.Duration
	// cancelLookups are the waits between looking up a job to cancel whose
	// insert was cut short: the insert may still be on its way.
	cancelLookups []time.Duration
}

var _ executor.Executor = (*Engine)(nil)

// Option adjusts how Open builds the engine.
type Option func(*Engine, *[]option.ClientOption)

// WithClientOptions passes options to the BigQuery client (tests use
// option.WithEndpoint and option.WithoutAuthentication).
func WithClientOptions(opts ...option.ClientOption) Option {
	return func(_ *Engine, co *[]option.ClientOption) { *co = append(*co, opts...) }
}

// WithLogger sets where the engine reports retries and cancellations. Log
// lines pass the same credential redactor as error messages. Default: none.
func WithLogger(l *slog.Logger) Option {
	return func(e *Engine, _ *[]option.ClientOption) { e.log = l }
}

// withPolling shortens job polling and cancel lookups (tests).
func withPolling(initial, maxWait time.Duration, cancelLookups ...time.Duration) Option {
	return func(e *Engine, _ *[]option.ClientOption) {
		e.pollInitial, e.pollMax = initial, maxWait
		if cancelLookups != nil {
			e.cancelLookups = cancelLookups
		}
	}
}

// Open validates cfg and connects. It makes no API call: credentials are
// checked on the first query.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:           cfg,
		datasets:      newDatasetMap(cfg.Datasets),
		redact:        newRedactor(cfg.KeyFile),
		log:           slog.New(slog.DiscardHandler),
		apiTimeout:    2 * time.Minute,
		cancelTimeout: 15 * time.Second,
		pollInitial:   100 * time.Millisecond,
		pollMax:       2 * time.Second,
		cancelLookups: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
	}
	var copts []option.ClientOption
	switch cfg.Credentials {
	case CredentialsKeyFile:
		copts = append(copts, option.WithAuthCredentialsFile(option.ServiceAccount, cfg.KeyFile))
	case CredentialsNone:
		copts = append(copts, option.WithoutAuthentication())
	}
	if cfg.Endpoint != "" {
		copts = append(copts, option.WithEndpoint(cfg.Endpoint))
	}
	for _, o := range opts {
		o(e, &copts)
	}
	client, err := bigquery.NewClient(ctx, cfg.Project, copts...)
	if err != nil {
		// The client's message may name the key file; keep only the
		// redacted text, not the error value.
		return nil, fmt.Errorf("bigquery: opening the client (credentials %s): %s", cfg.Credentials, e.redact.apply(err.Error()))
	}
	client.Location = cfg.Location
	e.client = client
	return e, nil
}

// OpenFromFlags opens the engine from registered command-line flags: the
// --bq-config file, overridden by the --bq-* flags given. Commands that run
// SQL call AddFlags before parsing and this after.
func OpenFromFlags(ctx context.Context, f *Flags, opts ...Option) (*Engine, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg, opts...)
}

// Name implements executor.Executor.
func (e *Engine) Name() string { return Name }

// Close releases the client.
func (e *Engine) Close() error { return e.client.Close() }

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Limits returns the per-query limits in force.
func (e *Engine) Limits() executor.Limits {
	return executor.Limits{Timeout: e.cfg.Timeout, MaxRows: e.cfg.MaxRows, MaxBytesBilled: int64(e.cfg.MaxBytesBilled), MaxResultBytes: int64(e.cfg.MaxResultBytes)}
}

// Totals returns the sums of every query and dry run so far.
func (e *Engine) Totals() Totals { return e.totals.Snapshot() }

// Estimate is a dry run's verdict on a query.
type Estimate struct {
	StatementType    string   `json:"statement_type"` // SELECT, SCRIPT, CREATE_TABLE, ...
	BytesProcessed   int64    `json:"bytes_processed"`
	Accuracy         string   `json:"accuracy,omitempty"` // PRECISE, UPPER_BOUND, ...
	CacheHit         bool     `json:"cache_hit,omitempty"`
	ReferencedTables []string `json:"referenced_tables,omitempty"`
	// BytesBilled is the on-demand bill the query would incur: BytesProcessed
	// rounded up with BigQuery's minimums, zero on a cache hit.
	BytesBilled int64   `json:"bytes_billed"`
	CostUSD     float64 `json:"cost_usd"`
}

// DryRun asks BigQuery what sql would process, without running it (dry runs
// are free). A query BigQuery rejects returns an *executor.Error, classified
// as in Query.
func (e *Engine) DryRun(ctx context.Context, sql string) (*Estimate, error) {
	est, err := e.dryRun(ctx, e.datasets.rewrite(sql))
	if err != nil {
		return nil, err
	}
	est.BytesBilled = EstimateBilled(est.BytesProcessed, len(est.ReferencedTables))
	if est.CacheHit {
		est.BytesBilled = 0
	}
	est.CostUSD = CostUSD(est.BytesBilled, e.cfg.PricePerTiB)
	return est, nil
}

// Query implements executor.Executor: a dry run (statement type and bytes
// cap checked before any cost), then the job, its rows read up to the row cap.
func (e *Engine) Query(ctx context.Context, sql string) (*executor.Result, error) {
	start := time.Now()
	res, err := e.query(ctx, sql)
	var class executor.Class
	if err != nil {
		class = executor.ClassOf(err)
	} else {
		res.Stats.Duration = time.Since(start)
	}
	e.totals.addQuery(class)
	return res, err
}

func (e *Engine) query(ctx context.Context, sql string) (*executor.Result, error) {
	text := e.datasets.rewrite(sql)
	est, err := e.dryRun(ctx, text)
	if err != nil {
		return nil, err
	}
	stats := executor.Stats{BytesEstimated: est.BytesProcessed}
	if est.StatementType != "SELECT" {
		f := &Failure{msg: refusal(est.StatementType), Stats: stats}
		return nil, e.newError(executor.ClassRefused, f)
	}
	if limit := int64(e.cfg.MaxBytesBilled); est.BytesProcessed > limit {
		// BigQuery's own wording for the same condition, so a model sees the
		// message it would see had the job run.
		f := &Failure{Reason: "bytesBilledLimitExceeded", Stats: stats,
			msg: fmt.Sprintf("Query exceeded limit for bytes billed: %d. %d or higher required.", limit, EstimateBilled(est.BytesProcessed, len(est.ReferencedTables)))}
		return nil, e.newError(executor.ClassBytesLimit, f)
	}
	res, err := e.run(ctx, text)
	if err != nil {
		var xe *executor.Error
		var f *Failure
		if errors.As(err, &xe) && errors.As(xe.Err, &f) {
			f.Stats.BytesEstimated = est.BytesProcessed
		}
		return nil, err
	}
	res.Stats.BytesEstimated = est.BytesProcessed
	return res, nil
}

func refusal(stmt string) string {
	what := "a " + strings.ReplaceAll(stmt, "_", " ") + " statement"
	switch stmt {
	case "":
		what = "a statement of unknown type"
	case "SCRIPT":
		what = "a script (several statements)"
	}
	return fmt.Sprintf("Only a single read-only SELECT query may be run; BigQuery parsed %s.", what)
}

// dryRun runs the dry run with retries of infrastructure failures.
func (e *Engine) dryRun(ctx context.Context, text string) (*Estimate, error) {
	var est *Estimate
	class, f := e.withRetry(ctx, "dry run", func(ctx context.Context) (executor.Class, *Failure) {
		actx, cancel := context.WithTimeout(ctx, e.apiTimeout)
		defer cancel()
		q := e.client.Query(text)
		q.DryRun = true
		q.Location = e.cfg.Location
		q.DisableQueryCache = !e.cfg.UseCache()
		job, err := q.Run(actx)
		if err != nil {
			if ctx.Err() != nil && !hasAPIError(err) {
				return e.contextFailure(ctx, "")
			}
			if actx.Err() != nil && !hasAPIError(err) {
				return executor.ClassInfra, &Failure{Retryable: true, msg: fmt.Sprintf("BigQuery did not answer the dry run within %s", e.apiTimeout)}
			}
			return e.classify(err, phaseDryRun)
		}
		st := job.LastStatus()
		if st != nil && st.Err() != nil {
			return e.classify(st.Err(), phaseDryRun)
		}
		if st == nil || st.Statistics == nil {
			return executor.ClassInfra, &Failure{msg: "BigQuery's dry-run reply carries no statistics"}
		}
		qs, ok := st.Statistics.Details.(*bigquery.QueryStatistics)
		if !ok {
			return executor.ClassInfra, &Failure{msg: "BigQuery's dry-run reply carries no query statistics"}
		}
		est = &Estimate{
			StatementType:  qs.StatementType,
			BytesProcessed: max(qs.TotalBytesProcessed, st.Statistics.TotalBytesProcessed),
			Accuracy:       qs.TotalBytesProcessedAccuracy,
			CacheHit:       qs.CacheHit,
		}
		for _, t := range qs.ReferencedTables {
			est.ReferencedTables = append(est.ReferencedTables, e.datasets.messageBack(t.ProjectID+"."+t.DatasetID+".")+t.TableID)
		}
		return "", nil
	})
	if f != nil {
		return nil, e.newError(class, f)
	}
	e.totals.addDryRun(est.BytesProcessed)
	return est, nil
}

// run runs the job, retrying infrastructure failures. A job id is reused
// until a job with it exists (so a lost insert reply cannot start a second
// job); a job that failed on the server is retried under a new id.
func (e *Engine) run(ctx context.Context, text string) (*executor.Result, error) {
	var res *executor.Result
	jobID := ""
	class, f := e.withRetry(ctx, "query", func(ctx context.Context) (executor.Class, *Failure) {
		if jobID == "" {
			jobID = newJobID()
		}
		r, class, f, created := e.runJob(ctx, text, jobID)
		if created {
			jobID = ""
		}
		res = r
		return class, f
	})
	if f != nil {
		return nil, e.newError(class, f)
	}
	return res, nil
}

// runJob makes one attempt: insert, wait, read. created reports whether a
// job with jobID now exists.
func (e *Engine) runJob(ctx context.Context, text, jobID string) (res *executor.Result, class executor.Class, f *Failure, created bool) {
	qctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()

	q := e.client.Query(text)
	q.JobID = jobID
	q.Location = e.cfg.Location
	q.MaxBytesBilled = int64(e.cfg.MaxBytesBilled)
	q.DisableQueryCache = !e.cfg.UseCache()
	q.Labels = e.cfg.Labels
	// A server-side backstop: the job stops by itself even if this process
	// dies before it can cancel it. The grace lets the engine's own timeout
	// and cancellation act first, so the job ends the same way every time.
	q.JobTimeout = e.cfg.Timeout + jobTimeoutGrace
	e.totals.update(func(t *Totals) { t.Jobs++ })

	job, err := q.Run(qctx)
	if err != nil && isDuplicate(err) {
		// An earlier insert with this id (the library's retry or ours) was
		// committed but its reply lost: the job exists. Attach to it.
		job, err = e.client.JobFromIDLocation(qctx, jobID, e.cfg.Location)
	}
	if err != nil {
		if qctx.Err() != nil && !hasAPIError(err) {
			e.cancelJob(ctx, nil, jobID) // the insert may have reached the server
			class, f = e.timeoutFailure(ctx, jobID)
			return nil, class, f, true
		}
		class, f = e.classify(err, phaseInsert)
		f.JobID = jobID
		return nil, class, f, false
	}
	created = true

	st, err := e.waitJob(qctx, job)
	if err != nil {
		e.cancelJob(ctx, job, jobID)
		if qctx.Err() != nil && !hasAPIError(err) {
			class, f = e.timeoutFailure(ctx, jobID)
			return nil, class, f, true
		}
		class, f = e.classify(err, phasePoll)
		f.JobID = jobID
		return nil, class, f, true
	}
	stats := statsOf(st, jobID)
	e.totals.AddStats(stats)
	if jerr := st.Err(); jerr != nil {
		class, f = e.classify(jerr, phaseJob)
		f.JobID, f.Stats = jobID, stats
		return nil, class, f, true
	}

	// Reading pages is retried on its own: the job's result stays
	// available, and re-running the job would bill it again.
	class, f = e.withRetry(qctx, "reading results", func(rctx context.Context) (executor.Class, *Failure) {
		r, err := e.readRows(rctx, job)
		if err != nil {
			if qctx.Err() != nil && !hasAPIError(err) {
				return e.timeoutFailure(ctx, jobID)
			}
			return e.classify(err, phaseRead)
		}
		res = r
		return "", nil
	})
	if f != nil {
		f.JobID, f.Stats = jobID, stats
		// Retrying the whole job would bill it again.
		f.Retryable = false
		return nil, class, f, true
	}
	res.Stats = stats
	return res, "", nil, true
}

// waitJob polls jobs.get until the job is done. Polling jobs.get rather than
// long-polling jobs.getQueryResults means a job that failed on the server is
// seen as failed at once: the library's getQueryResults wait retries
// server-side failures until its context ends.
func (e *Engine) waitJob(ctx context.Context, job *bigquery.Job) (*bigquery.JobStatus, error) {
	st := job.LastStatus()
	delay := e.pollInitial
	for st == nil || !st.Done() {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(delay*3/2, e.pollMax)
		var err error
		if st, err = job.Status(ctx); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// readRows reads the result through every page up to the row cap.
func (e *Engine) readRows(ctx context.Context, job *bigquery.Job) (res *executor.Result, err error) {
	defer func() {
		// The library decodes replies with unchecked type assertions; a
		// malformed reply must fail this query, not the process.
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("malformed result page from BigQuery: %v", p)
		}
	}()
	it, err := job.Read(ctx)
	if err != nil {
		return nil, err
	}
	limit := e.cfg.MaxRows
	keep := executor.NewKeeper(limit, int64(e.cfg.MaxResultBytes))
	res = &executor.Result{Rows: [][]any{}}
	var schema bigquery.Schema
	// Reading stops at the first row not kept: the job's TotalRows gives the
	// true count without fetching the rest.
	for !keep.Full() {
		it.PageInfo().MaxSize = min(limit-len(res.Rows), maxPageRows)
		var row []bigquery.Value
		err := it.Next(&row)
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, err
		}
		if schema == nil {
			schema = it.Schema
		}
		if len(row) != len(schema) {
			return nil, fmt.Errorf("row of %d values for %d columns", len(row), len(schema))
		}
		out := make([]any, len(row))
		for i, v := range row {
			if out[i], err = convertValue(v, schema[i]); err != nil {
				return nil, err
			}
		}
		if !keep.Keep(out) {
			break
		}
		res.Rows = append(res.Rows, out)
	}
	if schema == nil {
		schema = it.Schema
	}
	for _, f := range schema {
		res.Columns = append(res.Columns, executor.Column{Name: f.Name, Type: typeName(f)})
	}
	keep.Finish(res, max(int64(it.TotalRows), int64(len(res.Rows))))
	return res, nil
}

// cancelJob asks the server to stop a job (jobs.cancel), on a context of its
// own: the query's context has ended by the time this runs. With job nil it
// looks the job up by id first, since an insert cut short may or may not
// have created it.
func (e *Engine) cancelJob(parent context.Context, job *bigquery.Job, jobID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), e.cancelTimeout)
	defer cancel()
	if job == nil {
		job = e.findJob(ctx, jobID)
		if job == nil {
			return
		}
	}
	if err := job.Cancel(ctx); err != nil {
		e.log.Warn("bigquery: cancelling a job failed", "job", jobID, "error", e.redact.apply(err.Error()))
		return
	}
	e.totals.update(func(t *Totals) { t.Cancelled++ })
	e.log.Info("bigquery: job cancelled", "job", jobID)
}

// findJob looks up a job whose insert was cut short, waiting a little for an
// insert still on its way. It returns nil if the job never appeared.
func (e *Engine) findJob(ctx context.Context, jobID string) *bigquery.Job {
	for i := 0; ; i++ {
		j, err := e.client.JobFromIDLocation(ctx, jobID, e.cfg.Location)
		if err == nil {
			return j
		}
		var ge *googleapi.Error
		if !errors.As(err, &ge) || ge.Code != http.StatusNotFound {
			e.log.Warn("bigquery: looking up a job to cancel failed", "job", jobID, "error", e.redact.apply(err.Error()))
			return nil
		}
		if i >= len(e.cancelLookups) {
			e.log.Info("bigquery: job to cancel was never created", "job", jobID)
			return nil
		}
		t := time.NewTimer(e.cancelLookups[i])
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// timeoutFailure describes a query stopped because its time ran out or its
// caller went away.
func (e *Engine) timeoutFailure(parent context.Context, jobID string) (executor.Class, *Failure) {
	if parent.Err() != nil {
		class, f := e.contextFailure(parent, jobID)
		return class, f
	}
	return executor.ClassTimeout, &Failure{
		JobID:  jobID,
		ctxErr: context.DeadlineExceeded,
		msg:    fmt.Sprintf("Query exceeded the time limit of %s and was cancelled.", e.cfg.Timeout),
	}
}

// contextFailure describes a query whose caller's context ended: a deadline
// is a timeout, a cancellation is not the model's fault.
func (e *Engine) contextFailure(ctx context.Context, jobID string) (executor.Class, *Failure) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return executor.ClassTimeout, &Failure{JobID: jobID, ctxErr: context.DeadlineExceeded,
			msg: "Query did not finish before the caller's deadline and was cancelled."}
	}
	return executor.ClassInfra, &Failure{JobID: jobID, ctxErr: context.Canceled,
		msg: "Query cancelled by the caller."}
}

// withRetry runs fn until it succeeds, fails for good, or the retry policy
// is spent. Only failures marked Retryable (infrastructure) are retried;
// waits grow exponentially with jitter.
func (e *Engine) withRetry(ctx context.Context, what string, fn func(context.Context) (executor.Class, *Failure)) (executor.Class, *Failure) {
	pol := e.cfg.Retry
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		class, f := fn(ctx)
		if f == nil {
			return "", nil
		}
		f.Attempts = attempt
		if !f.Retryable || ctx.Err() != nil {
			return class, f
		}
		if attempt >= pol.Attempts {
			f.msg += fmt.Sprintf(" (gave up after %d attempts)", attempt)
			return class, f
		}
		d := backoff(pol, attempt)
		if waited+d > pol.Budget {
			f.msg += fmt.Sprintf(" (gave up after %d attempts: retry budget of %s spent)", attempt, pol.Budget)
			return class, f
		}
		e.totals.update(func(t *Totals) { t.Retries++ })
		e.log.Warn("bigquery: retrying after an infrastructure failure", "during", what,
			"attempt", attempt, "reason", f.Reason, "wait", d.Round(time.Millisecond), "error", f.msg)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return class, f
		case <-t.C:
		}
		waited += d
	}
}

// backoff is the wait before retry number attempt: exponential from
// Initial, capped at Max, jittered to between half and all of it so that
// parallel workers do not retry in step.
func backoff(p RetryConfig, attempt int) time.Duration {
	d := p.Initial
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	return half + time.Duration(mrand.Int64N(int64(half)+1))
}

func statsOf(st *bigquery.JobStatus, jobID string) executor.Stats {
	s := executor.Stats{JobID: jobID}
	if st == nil || st.Statistics == nil {
		return s
	}
	s.BytesProcessed = st.Statistics.TotalBytesProcessed
	s.SlotMillis = st.Statistics.TotalSlotDuration.Milliseconds()
	if qs, ok := st.Statistics.Details.(*bigquery.QueryStatistics); ok {
		s.BytesBilled = qs.TotalBytesBilled
		s.CacheHit = qs.CacheHit
		if qs.TotalBytesProcessed > 0 {
			s.BytesProcessed = qs.TotalBytesProcessed
		}
		if qs.SlotMillis > 0 {
			s.SlotMillis = qs.SlotMillis
		}
	}
	return s
}

func hasAPIError(err error) bool {
	var ge *googleapi.Error
	var be *bigquery.Error
	return errors.As(err, &ge) || errors.As(err, &be)
}

func isDuplicate(err error) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusConflict
}

// newJobID returns a fresh job id; the prefix makes the engine's jobs easy
// to find in the console and INFORMATION_SCHEMA.JOBS.
func newJobID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "clinsql_" + hex.EncodeToString(b)
}
