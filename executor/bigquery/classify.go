package bigquery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"

	"github.com/clinsql/clinsql/executor"
)

// phase says where in a query's life an error arose; the same BigQuery
// reason can mean the model's fault in one phase and infrastructure in
// another (notFound: an unknown table during analysis, a vanished job while
// polling).
type phase int

const (
	phaseDryRun phase = iota // jobs.insert with dryRun: analysis of the SQL
	phaseInsert              // jobs.insert of the real job
	phasePoll                // jobs.get while the job runs
	phaseJob                 // the finished job's errorResult
	phaseRead                // jobs.getQueryResults pages
)

// Failure is the underlying error of every *executor.Error this engine
// returns. It holds BigQuery's reason and the job's identity and cost, and
// only text that passed the credential redactor.
type Failure struct {
	Reason     string // BigQuery's error reason, "" for transport errors
	HTTPStatus int    // 0 for job errors and transport errors
	Location   string // ErrorProto.location, e.g. "query"
	JobID      string
	Stats      executor.Stats // what the job cost before it failed, if known
	Attempts   int            // tries made, >1 after infrastructure retries
	Retryable  bool           // an infrastructure failure worth retrying
	msg        string
	ctxErr     error // context.Canceled or context.DeadlineExceeded, if involved
}

func (f *Failure) Error() string {
	if f.Reason != "" {
		return fmt.Sprintf("%s (reason %s)", f.msg, f.Reason)
	}
	return f.msg
}

// Unwrap exposes the context error, so errors.Is(err, context.Canceled)
// holds for a query stopped by its caller.
func (f *Failure) Unwrap() error { return f.ctxErr }

// Reasons BigQuery gives for failures that are not the SQL's and pass if
// retried (https://cloud.google.com/bigquery/docs/error-messages).
var retryableReasons = map[string]bool{
	"rateLimitExceeded":    true,
	"quotaExceeded":        true,
	"backendError":         true,
	"internalError":        true,
	"jobBackendError":      true,
	"jobInternalError":     true,
	"jobRateLimitExceeded": true,
}

// Reasons that are the account's or the setup's, not the SQL's, and do not
// pass if retried.
var setupReasons = map[string]bool{
	"accessDenied":      true,
	"billingNotEnabled": true,
	"notEnabled":        true,
	"required":          true, // missing credentials
	"authError":         true,
	"unauthorized":      true,
	"forbidden":         true,
	"blocked":           true,
}

// errInfo is what classification needs from any error the client returns.
type errInfo struct {
	reason   string
	message  string
	location string
	status   int
	network  bool
	authTemp bool // a token fetch failure that may pass if retried
}

func inspect(err error) errInfo {
	var info errInfo
	var ge *googleapi.Error
	var be *bigquery.Error
	var ae *auth.Error
	switch {
	case errors.As(err, &ae):
		// Fetching an access token failed (bad key, revoked account, clock
		// skew): the account's problem, retried only when transient.
		info.reason = "authError"
		info.authTemp = ae.Temporary()
		if ae.Response != nil {
			info.status = ae.Response.StatusCode
		}
		info.message = "authentication failed: " + ae.Error()
	case errors.As(err, &ge):
		info.status = ge.Code
		info.message = ge.Message
		if len(ge.Errors) > 0 {
			info.reason = ge.Errors[0].Reason
			if info.message == "" {
				info.message = ge.Errors[0].Message
			}
		}
		if info.message == "" {
			info.message = strings.TrimSpace(ge.Body)
		}
	case errors.As(err, &be):
		info.reason, info.message, info.location = be.Reason, be.Message, be.Location
	default:
		info.network = isNetworkError(err)
		info.message = err.Error()
	}
	return info
}

func isNetworkError(err error) bool {
	var ue *url.Error
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.As(err, &oe) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		strings.Contains(err.Error(), "http2: ")
}

// classify turns a client error into a Failure and its class. See the
// package documentation for the table it implements.
func (e *Engine) classify(err error, ph phase) (executor.Class, *Failure) {
	info := inspect(err)
	f := &Failure{Reason: info.reason, HTTPStatus: info.status, Location: info.location}
	msg := info.message
	class := executor.ClassInfra
	switch r := info.reason; {
	case r == "bytesBilledLimitExceeded":
		class = executor.ClassBytesLimit
	case r == "responseTooLarge":
		// The result is too large to return and the engine never writes a
		// destination table: the row cap could not be honoured by truncation.
		class = executor.ClassRowLimit
	case r == "resourcesExceeded" || r == "billingTierLimitExceeded":
		// Out of memory or compute for this query's shape (a huge sort,
		// ARRAY_AGG or cross join). The same SQL fails again: the model's.
		class = executor.ClassRuntime
	case r == "timeout":
		class = executor.ClassTimeout
	case r == "stopped":
		// Cancelled: by us on timeout (handled before classification) or by
		// someone else; a job timeout shows as a stop with a timeout message.
		if strings.Contains(strings.ToLower(msg), "timed out") || strings.Contains(strings.ToLower(msg), "timeout") {
			class = executor.ClassTimeout
		}
	case retryableReasons[r]:
		f.Retryable = true
	case setupReasons[r]:
		// The account cannot read the data or run jobs: not the model's.
		f.Retryable = info.authTemp
	case r == "notFound":
		if ph == phaseDryRun || ph == phaseInsert || ph == phaseJob {
			// "Not found: Table ...", "Not found: Dataset ...": the SQL names
			// something that does not exist, unless it is the billing project.
			class = executor.ClassSyntax
			if e.mentionsBillingProject(msg) {
				class = executor.ClassInfra
			}
		}
	case r == "invalidQuery" || r == "invalid":
		switch ph {
		case phaseDryRun:
			class = executor.ClassSyntax
		case phaseJob:
			// Analysis passed, execution failed: division by zero, a bad
			// cast, an array index out of bounds.
			class = executor.ClassRuntime
		case phaseInsert:
			// The dry run accepted the same SQL, so the job configuration is
			// at fault (for example a label): ours, not the model's.
			class = executor.ClassInfra
		}
	case info.status >= 500 || info.network:
		f.Retryable = true
	case info.status == 401 || info.status == 403:
		// authentication or permission without a known reason
	case info.status == 400 && ph == phaseDryRun:
		class = executor.ClassSyntax
	}
	if class == executor.ClassInfra && !f.Retryable && info.reason == "" && info.status == 0 && !info.network {
		// An error the client produced itself (credentials, a malformed
		// reply): not retried, it would fail the same way.
		msg = "BigQuery client: " + msg
	}
	f.msg = e.cleanMessage(msg)
	if errors.Is(err, context.Canceled) {
		f.ctxErr = context.Canceled
	} else if errors.Is(err, context.DeadlineExceeded) {
		f.ctxErr = context.DeadlineExceeded
	}
	return class, f
}

func (e *Engine) mentionsBillingProject(msg string) bool {
	p := e.cfg.Project
	return strings.Contains(msg, "Project "+p) || strings.Contains(msg, "project "+p) ||
		strings.Contains(msg, "projects/"+p)
}

// cleanMessage prepares BigQuery's message for a refinement prompt: names
// mapped back to those the SQL used, credentials redacted.
func (e *Engine) cleanMessage(msg string) string {
	return e.redact.apply(e.datasets.messageBack(strings.TrimSpace(msg)))
}

// newError builds the *executor.Error returned to callers.
func (e *Engine) newError(class executor.Class, f *Failure) *executor.Error {
	return &executor.Error{Class: class, Engine: e.Name(), Message: f.msg, Err: f}
}
