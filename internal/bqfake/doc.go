// Package bqfake is an in-process fake of the BigQuery v2 REST API for tests.
//
// It speaks the real JSON wire format at the real paths (jobs.insert,
// jobs.get, jobs.getQueryResults, jobs.cancel, plus an OAuth 2.0 token
// endpoint for service-account keys), so tests run the real
// cloud.google.com/go/bigquery client against it by passing [Server.Endpoint]
// with option.WithEndpoint.
//
// What it checks, so that a client bug cannot pass by construction:
//   - every request body and URL parameter is validated against the BigQuery
//     discovery document of the google.golang.org/api version in use (unknown
//     fields, wrong JSON types, malformed int64 strings and bad enum values are
//     rejected with 400, as the real API does);
//   - BigQuery's own rules the schema cannot express: job ids, label keys and
//     values, the project in the URL matching the job reference, standard SQL
//     (useLegacySql must be false), duplicate job ids (409), job locations,
//     maximumBytesBilled (a job over it fails with bytesBilledLimitExceeded) and
//     jobTimeoutMs (a job over it is stopped);
//   - with [Server.RequireServiceAccount], a signed JWT-bearer assertion at the
//     token endpoint and the issued bearer token on every API call.
//
// Every request is recorded ([Server.Requests]) and every rule broken is kept
// as a violation ([Server.Violations]) for the test to assert on. The fake's
// own replies are validated against the response schemas too.
//
// It runs no SQL: a test scripts what each query text does ([Query]): the dry
// run's statement type and byte estimate or error, how long the job runs or
// whether it hangs, its error, and its schema and rows in wire form. Faults
// (error replies such as rateLimitExceeded, or dropped connections) are queued
// per method with [Server.FailNext].
package bqfake
