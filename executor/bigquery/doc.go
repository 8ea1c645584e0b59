// Package bigquery is the BigQuery engine: it runs ClinSQL's SQL on real
// MIMIC-IV in BigQuery (physionet-data.mimiciv_3_1_*, or a copy named by the
// dataset mapping) through cloud.google.com/go/bigquery, and implements
// executor.Executor.
//
// # A query's life
//
//  1. Dataset mapping: table paths whose project and dataset are mapped in
//     [Config.Datasets] are rewritten, in every spelling GoogleSQL allows;
//     string literals and comments are never touched.
//  2. Dry run (free). BigQuery analyses the SQL; its statement type must be
//     SELECT (WITH ... SELECT included), anything else (DDL, DML, scripts,
//     EXPORT DATA) is ClassRefused. The estimate of bytes processed goes into
//     Stats.BytesEstimated; above MaxBytesBilled the query is ClassBytesLimit
//     before any cost.
//  3. The job: inserted under a job id the engine chooses (so it can always
//     be cancelled, even when the insert's reply is lost), with
//     maximumBytesBilled, the query cache setting, labels and jobTimeoutMs.
//     The engine polls jobs.get until it is done. When the per-query timeout
//     or the caller's context ends first, the job is cancelled on the server
//     (jobs.cancel) on a context detached from the expired one, with its own
//     short deadline.
//  4. Rows are read through every page (jobs.getQueryResults) up to the row
//     cap or the result byte cap (max_result_bytes, default 32 MiB), reading
//     no page past it; Result.TotalRows is the job's total, Truncated says rows were
//     dropped. Values are typed as package executor documents (NUMERIC and
//     BIGNUMERIC exact as *big.Rat, DATE/DATETIME/TIME as civil types,
//     TIMESTAMP as UTC time.Time, ARRAY as []any, STRUCT as executor.Struct,
//     INTERVAL in BigQuery's canonical text, GEOGRAPHY as WKT text, RANGE as
//     "[start, end)" text; a NULL ARRAY is an empty one, as BigQuery returns it);
//     column types use GoogleSQL names (INT64, FLOAT64, BOOL, ARRAY<T>,
//     STRUCT<a T, ...>).
//  5. Stats: bytes estimated, processed and billed, slot milliseconds, cache
//     hit and job id. [Engine.Totals] sums them over the run.
//
// The engine never uses jobs.query (the library's "fast path"): that call
// returns the job id only when it returns, so a query cut off mid-call could
// not be cancelled.
//
// # Errors
//
// Every failure is an *executor.Error whose Message is BigQuery's own
// message (mapped dataset names shown as the SQL wrote them, credentials
// redacted) and whose Err is a *[Failure] with the reason, job id and cost.
//
//	reason / condition                          class          whose
//	invalidQuery, invalid (dry run)             ClassSyntax    model
//	notFound (table, dataset, column)           ClassSyntax    model
//	invalidQuery, invalid (while running:       ClassRuntime   model
//	  division by zero, bad cast)
//	resourcesExceeded, billingTierLimitExceeded ClassRuntime   model: the
//	                                                           query's shape
//	bytesBilledLimitExceeded, dry-run estimate  ClassBytesLimit model
//	  over MaxBytesBilled
//	responseTooLarge                            ClassRowLimit  model: the result
//	                                                           cannot be returned,
//	                                                           so the row cap cannot
//	                                                           truncate it
//	statement type not SELECT                   ClassRefused   model
//	per-query timeout, job timeout, "timeout"   ClassTimeout   model
//	rateLimitExceeded, quotaExceeded,           ClassInfra     retried
//	  backendError, internalError, job*Error,
//	  HTTP 5xx, network errors
//	accessDenied, billingNotEnabled, auth       ClassInfra     not retried
//	  errors, notFound for the billing project
//	  or a job, caller cancelled
//
// accessDenied is infrastructure even when the SQL names a dataset the
// account may not read: the usual cause is an account whose PhysioNet access
// is not linked, and charging that to every model would hide it.
//
// Infrastructure failures are retried with exponential backoff and jitter
// within [RetryConfig] (attempts and a total wait budget); the client
// library also retries some of them inside single calls. A retried insert
// reuses its job id, so a job is never started twice; a job that failed on
// the server is retried under a new id. Reading pages is retried on its own,
// never by re-running the job.
//
// # Credentials
//
// Application Default Credentials, a service-account key file, or none (an
// emulator). The key file's path and the secrets inside it never appear in
// an error message, a log line or [Config.Describe]: every text the engine
// emits passes a redactor that knows them.
package bigquery
