package bqfake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// basePath is where the real service serves the API; the client appends
// method paths to the endpoint it is given, so the fake serves the same tree.
const basePath = "/bigquery/v2/"

const mib = 1 << 20

// Field is a column of a scripted result schema, in the API's vocabulary
// (Type INTEGER, FLOAT, NUMERIC, BIGNUMERIC, BOOLEAN, STRING, BYTES, DATE,
// DATETIME, TIME, TIMESTAMP, INTERVAL, JSON, GEOGRAPHY, RECORD; Mode NULLABLE
// or REPEATED).
type Field struct {
	Name   string
	Type   string
	Mode   string
	Fields []Field
}

// Record is a STRUCT cell: its field values in schema order.
type Record []any

// Timestamp is a TIMESTAMP cell. The fake renders it as the client asked
// (formatOptions.useInt64Timestamp: microseconds since the epoch; otherwise
// floating-point seconds, the API's legacy format).
type Timestamp time.Time

// Cells of a scripted row are nil (NULL), a string in the API's text form
// ("42", "1.5", "true", base64 for BYTES, "2024-02-29", "2024-02-29T10:11:12"
// for DATETIME, ...), a Timestamp, a Record, or a []any for a REPEATED field.

// Fault is an error reply, or with Drop a connection closed without a reply.
type Fault struct {
	Code     int    // HTTP status; derived from Reason when zero
	Reason   string // BigQuery error reason ("invalidQuery", "rateLimitExceeded", ...)
	Message  string
	Location string // ErrorProto.location, e.g. "query"
	// Drop closes the connection instead of replying. With AfterProcessing
	// the request takes effect first (a job is created), then the reply is
	// lost, as when a network fails after the server committed.
	Drop            bool
	AfterProcessing bool
	// Delay holds the request this long first. A Fault with only Delay set
	// is then handled normally.
	Delay time.Duration
	// Raw replies with these bytes (and Code, default 200) instead of an
	// error envelope: a garbage reply.
	Raw []byte
	// EchoAuth appends the request's Authorization header to Message: a
	// hostile or buggy server, to test that clients redact what they show.
	EchoAuth bool
}

func (f Fault) delayOnly() bool {
	return f.Code == 0 && f.Reason == "" && !f.Drop && f.Raw == nil
}

// InvalidQuery is BigQuery's reply to SQL it cannot analyse.
func InvalidQuery(msg string) *Fault {
	return &Fault{Code: 400, Reason: "invalidQuery", Message: msg, Location: "query"}
}

// RateLimited is BigQuery's rate-limit reply.
func RateLimited() Fault {
	return Fault{Code: 403, Reason: "rateLimitExceeded", Message: "Exceeded rate limits: too many api requests per user per method for this user_method. For more information, see https://cloud.google.com/bigquery/docs/troubleshoot-quotas"}
}

// BackendError is BigQuery's transient server failure.
func BackendError() Fault {
	return Fault{Code: 503, Reason: "backendError", Message: "Error encountered during execution. Retrying may solve the problem."}
}

// Query scripts what the fake does with one SQL text.
type Query struct {
	// Dry run. StatementType defaults to SELECT.
	StatementType    string
	BytesProcessed   int64
	ReferencedTables []string // "project.dataset.table"
	// DryRunError fails the dry run, and the job, as an HTTP error.
	DryRunError *Fault

	// Job. A job is DONE Duration after insert unless Hang is set, in which
	// case it runs until cancelled or until its jobTimeoutMs.
	Duration time.Duration
	Hang     bool
	// JobError ends the job DONE with this errorResult; with FailJobs > 0
	// only the first FailJobs jobs of this query fail.
	JobError *Fault
	FailJobs int
	Schema   []Field
	Rows     [][]any
	// BytesBilled defaults to BytesProcessed rounded up to a MiB with
	// BigQuery's 10 MiB minimum; a cache hit bills nothing.
	BytesBilled int64
	SlotMillis  int64
	CacheHit    bool
	// PageRows caps rows per page, as the real API cuts pages at about 10 MB.
	PageRows int
}

// Request is one recorded HTTP request.
type Request struct {
	Method     string // "jobs.insert", "jobs.get", "jobs.getQueryResults", "jobs.cancel", "token", or "unknown"
	HTTPMethod string
	Path       string
	Query      url.Values
	Header     http.Header
	Body       map[string]any // decoded JSON body, nil if none
	RawBody    []byte
	At         time.Time
	Status     int // reply status; 0 if the connection was dropped
}

// Server is the fake. Create it with New and Close it when done.
type Server struct {
	srv *httptest.Server
	doc *discoveryDoc

	// DataLocation is where the scripted datasets live; a job run in another
	// location fails as the real service's would. Default "US".
	DataLocation string

	mu         sync.Mutex
	queries    map[string]*Query
	jobCount   map[string]int  // jobs inserted per SQL text
	jobs       map[string]*job // by project + ":" + jobId
	faults     map[string][]Fault
	requests   []Request
	violations []string
	auth       *saAuth
	tokens     map[string]bool
}

// New starts a fake server on a loopback port.
func New() (*Server, error) {
	doc, err := loadDiscovery()
	if err != nil {
		return nil, err
	}
	s := &Server{
		doc:          doc,
		DataLocation: "US",
		queries:      make(map[string]*Query),
		jobCount:     make(map[string]int),
		jobs:         make(map[string]*job),
		faults:       make(map[string][]Fault),
		tokens:       make(map[string]bool),
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Endpoint is the value for option.WithEndpoint.
func (s *Server) Endpoint() string { return s.srv.URL + basePath }

// URL is the server's root URL.
func (s *Server) URL() string { return s.srv.URL }

// Script sets what the fake does with the exact SQL text sql.
func (s *Server) Script(sql string, q Query) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := q
	s.queries[sql] = &cp
}

// FailNext queues faults for the next calls of method ("jobs.insert",
// "jobs.get", "jobs.getQueryResults", "jobs.cancel", "token"), one per call.
// A dry run is a jobs.insert too; use "jobs.insert/dryrun" and
// "jobs.insert/job" to target one kind only.
func (s *Server) FailNext(method string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = append(s.faults[method], faults...)
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls returns the recorded requests of one method.
func (s *Server) Calls(method string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Violations returns every rule of the real API that a request broke, and
// every reply of the fake that failed its own schema check.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// JobState reports a job's state ("PENDING", "RUNNING", "DONE") and whether it
// was cancelled through jobs.cancel; ok is false for an unknown job.
func (s *Server) JobState(project, jobID string) (state string, cancelled, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[project+":"+jobID]
	if j == nil {
		return "", false, false
	}
	st, _ := j.state(time.Now())
	return st, j.cancelled, true
}

type job struct {
	project, id, location string
	config                map[string]any
	sql                   string
	q                     *Query
	created               time.Time
	startErr              *Fault // decided at insert (over maximumBytesBilled)
	jobErr                *Fault // the scripted JobError, if this job fails
	timeout               time.Duration
	cancelled             bool
	cancelledAt           time.Time
	billed                int64
	processed             int64
	cacheHit              bool
}

// state returns the job's state at now and, once DONE, its error if any.
func (j *job) state(now time.Time) (string, *Fault) {
	if j.startErr != nil {
		return "DONE", j.startErr
	}
	if j.cancelled {
		return "DONE", &Fault{Code: 400, Reason: "stopped", Message: "Job execution was cancelled: User requested cancellation"}
	}
	if j.timeout > 0 && (j.q.Hang || j.q.Duration > j.timeout) && now.Sub(j.created) >= j.timeout {
		return "DONE", &Fault{Code: 400, Reason: "timeout", Message: fmt.Sprintf("Job execution was cancelled: Job timed out after %d sec", int(j.timeout.Seconds()))}
	}
	if j.q.Hang || now.Sub(j.created) < j.q.Duration {
		return "RUNNING", nil
	}
	return "DONE", j.jobErr
}

func (j *job) doneAt() time.Time {
	switch {
	case j.startErr != nil:
		return j.created
	case j.cancelled:
		return j.cancelledAt
	case j.timeout > 0 && (j.q.Hang || j.q.Duration > j.timeout):
		return j.created.Add(j.timeout)
	}
	return j.created.Add(j.q.Duration)
}

var (
	jobIDPattern    = regexp.MustCompile(`^[A-Za-z0-9_-]+$`) // and at most 1024 bytes
	labelKeyPattern = regexp.MustCompile(`^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$`)
	labelValPattern = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$`)
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{
		HTTPMethod: r.Method,
		Path:       r.URL.Path,
		Query:      r.URL.Query(),
		Header:     r.Header.Clone(),
		RawBody:    body,
		At:         time.Now(),
	}
	method, params := route(r.Method, r.URL.Path)
	rec.Method = method
	if len(body) > 0 && method != "token" {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err == nil {
			rec.Body = m
		}
	}
	idx := s.record(rec)

	status, reply, drop := s.handle(r, method, params, rec)
	if drop {
		s.setStatus(idx, 0)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	s.setStatus(idx, status)
	var out []byte
	switch v := reply.(type) {
	case []byte: // a scripted garbage reply: sent as is
		out = v
	default:
		var err error
		out, err = json.Marshal(v)
		if err != nil {
			panic(err)
		}
		if method != "token" && status < 300 && method != "unknown" {
			s.checkReply(method, sampleRows(v))
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	w.Write(out)
}

func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	return len(s.requests) - 1
}

func (s *Server) setStatus(i, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[i].Status = status
}

func (s *Server) violate(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violations = append(s.violations, fmt.Sprintf(format, a...))
}

// route maps a request to a discovery method name and its path parameters.
func route(httpMethod, path string) (string, map[string]string) {
	if path == "/token" && httpMethod == http.MethodPost {
		return "token", nil
	}
	rest, ok := strings.CutPrefix(path, basePath)
	if !ok {
		return "unknown", nil
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || parts[0] != "projects" {
		return "unknown", nil
	}
	p := map[string]string{"projectId": parts[1]}
	switch {
	case len(parts) == 3 && parts[2] == "jobs" && httpMethod == http.MethodPost:
		return "jobs.insert", p
	case len(parts) == 4 && parts[2] == "jobs" && httpMethod == http.MethodGet:
		p["jobId"] = parts[3]
		return "jobs.get", p
	case len(parts) == 5 && parts[2] == "jobs" && parts[4] == "cancel" && httpMethod == http.MethodPost:
		p["jobId"] = parts[3]
		return "jobs.cancel", p
	case len(parts) == 4 && parts[2] == "queries" && httpMethod == http.MethodGet:
		p["jobId"] = parts[3]
		return "jobs.getQueryResults", p
	case len(parts) == 3 && parts[2] == "queries" && httpMethod == http.MethodPost:
		return "jobs.query", p
	}
	return "unknown", nil
}

// handle returns the reply status and body, or drop=true to close the
// connection without a reply.
func (s *Server) handle(r *http.Request, method string, params map[string]string, rec Request) (int, any, bool) {
	if method == "token" {
		return s.handleToken(r, rec)
	}
	if method == "unknown" {
		s.violate("%s %s: no such BigQuery v2 method", r.Method, r.URL.Path)
		return 404, errorBody(Fault{Code: 404, Reason: "notFound", Message: "Not Found"}), false
	}
	if method == "jobs.query" {
		// The engine must create jobs with its own id (jobs.insert) so that it
		// can cancel them; jobs.query would hide the id until it returns.
		s.violate("jobs.query called: the engine must use jobs.insert with a client-chosen job id")
		return 400, errorBody(Fault{Code: 400, Reason: "invalid", Message: "jobs.query is not served by this fake"}), false
	}
	if f := s.checkAuth(r); f != nil {
		return f.Code, errorBody(*f), false
	}
	m := s.doc.methods[method]
	if probs := s.doc.validateParams(m, r.URL.Query()); len(probs) > 0 {
		return s.reject(method, probs)
	}
	kind := method
	if method == "jobs.insert" {
		kind = "jobs.insert/job"
		if cfg, _ := rec.Body["configuration"].(map[string]any); cfg != nil && cfg["dryRun"] == true {
			kind = "jobs.insert/dryrun"
		}
	}
	pre, post := s.takeFault(method, kind)
	if pre != nil && pre.Delay > 0 {
		select {
		case <-time.After(pre.Delay):
		case <-r.Context().Done():
			// The client gave up; the real service may still act on the
			// request, and so does the fake.
			time.Sleep(time.Until(rec.At.Add(pre.Delay)))
		}
		if pre.delayOnly() {
			pre = nil
		}
	}
	if pre != nil {
		if pre.Drop {
			return 0, nil, true
		}
		if pre.Raw != nil {
			code := pre.Code
			if code == 0 {
				code = 200
			}
			return code, pre.Raw, false
		}
		if pre.EchoAuth {
			pre.Message += " (request carried Authorization: " + r.Header.Get("Authorization") + ")"
		}
		return faultCode(*pre), errorBody(*pre), false
	}
	var status int
	var reply any
	switch method {
	case "jobs.insert":
		status, reply = s.jobsInsert(r, params, rec)
	case "jobs.get":
		status, reply = s.jobsGet(r, params)
	case "jobs.getQueryResults":
		status, reply = s.jobsGetQueryResults(r, params)
	case "jobs.cancel":
		status, reply = s.jobsCancel(r, params)
	}
	if post != nil {
		return 0, nil, true
	}
	return status, reply, false
}

// takeFault pops the next queued fault for method or kind. A fault with
// Drop and AfterProcessing is returned as post.
func (s *Server) takeFault(method, kind string) (pre, post *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, key := range []string{kind, method} {
		if q := s.faults[key]; len(q) > 0 {
			f := q[0]
			s.faults[key] = q[1:]
			if f.Drop && f.AfterProcessing && f.Delay == 0 {
				return nil, &f
			}
			return &f, nil
		}
	}
	return nil, nil
}

func (s *Server) reject(method string, probs []string) (int, any, bool) {
	for _, p := range probs {
		s.violate("%s: %s", method, p)
	}
	return 400, errorBody(Fault{Code: 400, Reason: "invalid", Message: "Invalid JSON payload received. " + strings.Join(probs, "; ")}), false
}

func (s *Server) jobsInsert(r *http.Request, params map[string]string, rec Request) (int, any) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		s.violate("jobs.insert: Content-Type %q, want application/json", ct)
		return 400, errorBody(Fault{Code: 400, Reason: "invalid", Message: "Content-Type must be application/json"})
	}
	if rec.Body == nil {
		s.violate("jobs.insert: body is not a JSON object")
		return 400, errorBody(Fault{Code: 400, Reason: "invalid", Message: "Invalid JSON payload received."})
	}
	if probs := s.doc.validate(&schema{Ref: "Job"}, rec.Body, "job"); len(probs) > 0 {
		st, body, _ := s.reject("jobs.insert", probs)
		return st, body
	}
	project := params["projectId"]
	ref, _ := rec.Body["jobReference"].(map[string]any)
	cfg, _ := rec.Body["configuration"].(map[string]any)
	qc, _ := cfg["query"].(map[string]any)
	var probs []string
	if qc == nil {
		probs = append(probs, "configuration.query: required for a query job")
	}
	dryRun := cfg["dryRun"] == true
	jobID, _ := ref["jobId"].(string)
	location, _ := ref["location"].(string)
	if ref != nil {
		if p, _ := ref["projectId"].(string); p != "" && p != project {
			probs = append(probs, fmt.Sprintf("jobReference.projectId %q differs from the project in the URL %q", p, project))
		}
		if jobID != "" && (!jobIDPattern.MatchString(jobID) || len(jobID) > 1024) {
			probs = append(probs, fmt.Sprintf("jobReference.jobId %q: only letters, digits, '_' and '-', at most 1024", jobID))
		}
	}
	if labels, _ := cfg["labels"].(map[string]any); labels != nil {
		if len(labels) > 64 {
			probs = append(probs, "configuration.labels: more than 64 labels")
		}
		for k, v := range labels {
			if !labelKeyPattern.MatchString(k) {
				probs = append(probs, fmt.Sprintf("configuration.labels: invalid key %q", k))
			}
			if vs, _ := v.(string); !labelValPattern.MatchString(vs) {
				probs = append(probs, fmt.Sprintf("configuration.labels[%s]: invalid value %q", k, vs))
			}
		}
	}
	sql, _ := qc["query"].(string)
	if qc != nil && strings.TrimSpace(sql) == "" {
		probs = append(probs, "configuration.query.query: empty")
	}
	if len(probs) > 0 {
		st, body, _ := s.reject("jobs.insert", probs)
		return st, body
	}
	if legacy, ok := qc["useLegacySql"].(bool); !ok || legacy {
		// The real service would parse the text as legacy SQL and reject
		// GoogleSQL syntax; the fake refuses to pretend otherwise.
		s.violate("jobs.insert: useLegacySql is not false")
		return 400, errorBody(*InvalidQuery("Legacy SQL is not served by this fake; set useLegacySql to false"))
	}
	if location == "" {
		location = s.DataLocation
	}
	if !strings.EqualFold(location, s.DataLocation) {
		return 404, errorBody(Fault{Code: 404, Reason: "notFound", Message: fmt.Sprintf("Not found: Dataset was not found in location %s", location)})
	}

	s.mu.Lock()
	q := s.queries[sql]
	s.mu.Unlock()
	if q == nil {
		return 400, errorBody(*InvalidQuery(fmt.Sprintf("bqfake: no script for query %q", truncate(sql, 80))))
	}
	if q.DryRunError != nil {
		return faultCode(*q.DryRunError), errorBody(*q.DryRunError)
	}
	now := time.Now()
	useCache := true
	if v, ok := qc["useQueryCache"].(bool); ok {
		useCache = v
	}
	cacheHit := q.CacheHit && useCache
	processed := q.BytesProcessed
	billed := q.BytesBilled
	if billed == 0 {
		billed = max((processed+mib-1)/mib*mib, 10*mib)
	}
	if cacheHit {
		processed, billed = 0, 0
	}
	stmt := q.StatementType
	if stmt == "" {
		stmt = "SELECT"
	}
	if dryRun {
		stats := map[string]any{
			"creationTime":        msString(now),
			"totalBytesProcessed": strconv.FormatInt(processed, 10),
			"query": map[string]any{
				"totalBytesProcessed":         strconv.FormatInt(processed, 10),
				"totalBytesProcessedAccuracy": "PRECISE",
				"totalBytesBilled":            "0",
				"cacheHit":                    cacheHit,
				"statementType":               stmt,
				"referencedTables":            tableRefs(q.ReferencedTables),
				"schema":                      schemaJSON(q.Schema),
			},
		}
		// A dry run creates no job; the reply carries no job id.
		return 200, map[string]any{
			"kind":          "bigquery#job",
			"etag":          etag(sql),
			"configuration": withJobType(cfg),
			"jobReference":  map[string]any{"projectId": project, "location": s.DataLocation},
			"statistics":    stats,
			"status":        map[string]any{"state": "DONE"},
			"user_email":    "fake-user@example.com",
		}
	}
	if jobID == "" {
		st, body, _ := s.reject("jobs.insert", []string{"jobReference.jobId: the engine must choose job ids itself"})
		return st, body
	}
	key := project + ":" + jobID
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[key] != nil {
		return 409, errorBody(Fault{Code: 409, Reason: "duplicate", Message: fmt.Sprintf("Already Exists: Job %s:%s.%s", project, s.DataLocation, jobID)})
	}
	j := &job{
		project: project, id: jobID, location: s.DataLocation,
		config: cfg, sql: sql, q: q, created: now,
		billed: billed, processed: processed, cacheHit: cacheHit,
	}
	s.jobCount[sql]++
	if q.JobError != nil && (q.FailJobs == 0 || s.jobCount[sql] <= q.FailJobs) {
		j.jobErr = q.JobError
	}
	if ms, ok := cfg["jobTimeoutMs"]; ok {
		n, _ := strconv.ParseInt(fmt.Sprint(ms), 10, 64)
		j.timeout = time.Duration(n) * time.Millisecond
	}
	if v, ok := qc["maximumBytesBilled"]; ok && !cacheHit && j.jobErr == nil {
		limit, _ := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if billed > limit {
			j.startErr = &Fault{Code: 400, Reason: "bytesBilledLimitExceeded", Location: "",
				Message: fmt.Sprintf("Query exceeded limit for bytes billed: %d. %d or higher required.", limit, billed)}
		}
	}
	s.jobs[key] = j
	return 200, s.jobJSON(j, now)
}

func (s *Server) jobJSON(j *job, now time.Time) map[string]any {
	state, ferr := j.state(now)
	status := map[string]any{"state": state}
	stats := map[string]any{"creationTime": msString(j.created)}
	if state != "PENDING" {
		stats["startTime"] = msString(j.created)
	}
	if state == "DONE" {
		stats["endTime"] = msString(j.doneAt())
		if ferr != nil {
			ep := errorProto(*ferr)
			status["errorResult"] = ep
			status["errors"] = []any{ep}
		}
		processed, billed := j.processed, j.billed
		if ferr != nil && ferr.Reason == "bytesBilledLimitExceeded" {
			processed, billed = 0, 0
		}
		stats["totalBytesProcessed"] = strconv.FormatInt(processed, 10)
		stats["totalSlotMs"] = strconv.FormatInt(j.q.SlotMillis, 10)
		stmt := j.q.StatementType
		if stmt == "" {
			stmt = "SELECT"
		}
		stats["query"] = map[string]any{
			"totalBytesProcessed": strconv.FormatInt(processed, 10),
			"totalBytesBilled":    strconv.FormatInt(billed, 10),
			"totalSlotMs":         strconv.FormatInt(j.q.SlotMillis, 10),
			"cacheHit":            j.cacheHit,
			"statementType":       stmt,
			"referencedTables":    tableRefs(j.q.ReferencedTables),
		}
	}
	return map[string]any{
		"kind":          "bigquery#job",
		"etag":          etag(j.id),
		"id":            fmt.Sprintf("%s:%s.%s", j.project, j.location, j.id),
		"selfLink":      s.Endpoint() + "projects/" + j.project + "/jobs/" + j.id + "?location=" + j.location,
		"user_email":    "fake-user@example.com",
		"configuration": withJobType(j.config),
		"jobReference":  map[string]any{"projectId": j.project, "jobId": j.id, "location": j.location},
		"statistics":    stats,
		"status":        status,
	}
}

// lookup finds a job as the real service does: the location parameter, when
// given, must be the job's.
func (s *Server) lookup(r *http.Request, params map[string]string) (*job, *Fault) {
	s.mu.Lock()
	j := s.jobs[params["projectId"]+":"+params["jobId"]]
	s.mu.Unlock()
	loc := r.URL.Query().Get("location")
	if j == nil || (loc != "" && !strings.EqualFold(loc, j.location)) {
		if loc == "" {
			loc = s.DataLocation
		}
		return nil, &Fault{Code: 404, Reason: "notFound", Message: fmt.Sprintf("Not found: Job %s:%s.%s", params["projectId"], loc, params["jobId"])}
	}
	return j, nil
}

func (s *Server) jobsGet(r *http.Request, params map[string]string) (int, any) {
	j, f := s.lookup(r, params)
	if f != nil {
		return f.Code, errorBody(*f)
	}
	s.mu.Lock()
	out := s.jobJSON(j, time.Now())
	s.mu.Unlock()
	return 200, project(out, r.URL.Query().Get("fields"))
}

func (s *Server) jobsCancel(r *http.Request, params map[string]string) (int, any) {
	j, f := s.lookup(r, params)
	if f != nil {
		return f.Code, errorBody(*f)
	}
	s.mu.Lock()
	now := time.Now()
	if st, _ := j.state(now); st != "DONE" {
		j.cancelled = true
		j.cancelledAt = now
	}
	out := map[string]any{"kind": "bigquery#jobCancelResponse", "job": s.jobJSON(j, now)}
	s.mu.Unlock()
	return 200, project(out, r.URL.Query().Get("fields"))
}

func (s *Server) jobsGetQueryResults(r *http.Request, params map[string]string) (int, any) {
	j, f := s.lookup(r, params)
	if f != nil {
		return f.Code, errorBody(*f)
	}
	q := r.URL.Query()
	wait := 10 * time.Second // the API's default timeoutMs
	if v := q.Get("timeoutMs"); v != "" {
		n, _ := strconv.Atoi(v)
		wait = time.Duration(n) * time.Millisecond
	}
	deadline := time.Now().Add(wait)
	var state string
	var ferr *Fault
	for {
		s.mu.Lock()
		state, ferr = j.state(time.Now())
		s.mu.Unlock()
		if state == "DONE" || !time.Now().Before(deadline) || r.Context().Err() != nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	ref := map[string]any{"projectId": j.project, "jobId": j.id, "location": j.location}
	if state != "DONE" {
		return 200, project(map[string]any{
			"kind": "bigquery#getQueryResultsResponse", "etag": etag(j.id),
			"jobReference": ref, "jobComplete": false,
		}, q.Get("fields"))
	}
	if ferr != nil {
		return faultCode(*ferr), errorBody(*ferr)
	}
	total := len(j.q.Rows)
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		n, ok := parsePageToken(tok, j.id)
		if !ok {
			return 400, errorBody(Fault{Code: 400, Reason: "invalid", Message: "Invalid page token"})
		}
		start = n
	} else if v := q.Get("startIndex"); v != "" {
		n, _ := strconv.Atoi(v)
		start = n
	}
	start = min(start, total)
	n := total - start
	if v := q.Get("maxResults"); v != "" {
		m, _ := strconv.Atoi(v)
		n = min(n, m)
	}
	if j.q.PageRows > 0 {
		n = min(n, j.q.PageRows)
	}
	int64TS := q.Get("formatOptions.useInt64Timestamp") == "true"
	out := map[string]any{
		"kind":                "bigquery#getQueryResultsResponse",
		"etag":                etag(j.id),
		"schema":              schemaJSON(j.q.Schema),
		"jobReference":        ref,
		"totalRows":           strconv.Itoa(total),
		"totalBytesProcessed": strconv.FormatInt(j.processed, 10),
		"jobComplete":         true,
		"cacheHit":            j.cacheHit,
	}
	if n > 0 {
		rows := make([]any, 0, n)
		for _, row := range j.q.Rows[start : start+n] {
			rows = append(rows, encodeRow(row, int64TS))
		}
		out["rows"] = rows
	}
	if start+n < total && q.Get("maxResults") != "0" {
		out["pageToken"] = fmt.Sprintf("%s~%d", j.id, start+n)
	}
	return 200, project(out, q.Get("fields"))
}

func parsePageToken(tok, jobID string) (int, bool) {
	id, off, ok := strings.Cut(tok, "~")
	if !ok || id != jobID {
		return 0, false
	}
	n, err := strconv.Atoi(off)
	return n, err == nil && n >= 0
}

func encodeRow(row []any, int64TS bool) map[string]any {
	cells := make([]any, len(row))
	for i, c := range row {
		cells[i] = map[string]any{"v": encodeCell(c, int64TS)}
	}
	return map[string]any{"f": cells}
}

func encodeCell(c any, int64TS bool) any {
	switch v := c.(type) {
	case nil:
		return nil
	case string:
		return v
	case Timestamp:
		t := time.Time(v)
		if int64TS {
			return strconv.FormatInt(t.UnixMicro(), 10)
		}
		return strconv.FormatFloat(float64(t.UnixMicro())/1e6, 'E', -1, 64)
	case Record:
		fs := make([]any, len(v))
		for i, x := range v {
			fs[i] = map[string]any{"v": encodeCell(x, int64TS)}
		}
		return map[string]any{"f": fs}
	case []any:
		vs := make([]any, len(v))
		for i, x := range v {
			vs[i] = map[string]any{"v": encodeCell(x, int64TS)}
		}
		return vs
	}
	panic(fmt.Sprintf("bqfake: cell of type %T; use a string in the API's text form", c))
}

func schemaJSON(fields []Field) map[string]any {
	return map[string]any{"fields": fieldsJSON(fields)}
}

func fieldsJSON(fields []Field) []any {
	out := make([]any, len(fields))
	for i, f := range fields {
		mode := f.Mode
		if mode == "" {
			mode = "NULLABLE"
		}
		m := map[string]any{"name": f.Name, "type": f.Type, "mode": mode}
		if len(f.Fields) > 0 {
			m["fields"] = fieldsJSON(f.Fields)
		}
		out[i] = m
	}
	return out
}

func tableRefs(tables []string) []any {
	out := []any{}
	for _, t := range tables {
		parts := strings.SplitN(t, ".", 3)
		if len(parts) != 3 {
			panic("bqfake: referenced table must be project.dataset.table: " + t)
		}
		out = append(out, map[string]any{"projectId": parts[0], "datasetId": parts[1], "tableId": parts[2]})
	}
	return out
}

func withJobType(cfg map[string]any) map[string]any {
	out := make(map[string]any, len(cfg)+1)
	for k, v := range cfg {
		out[k] = v
	}
	out["jobType"] = "QUERY"
	return out
}

// project applies a partial-response field selection (top-level names).
func project(m map[string]any, fields string) map[string]any {
	if fields == "" {
		return m
	}
	keep := map[string]bool{}
	for _, f := range strings.Split(fields, ",") {
		f = strings.TrimSpace(f)
		if i := strings.IndexAny(f, "/("); i >= 0 {
			f = f[:i]
		}
		keep[f] = true
	}
	out := map[string]any{}
	for k, v := range m {
		if keep[k] {
			out[k] = v
		}
	}
	return out
}

// sampleRows returns a reply with at most a few result rows, enough to
// check the rows' shape without re-decoding a large page.
func sampleRows(reply any) any {
	m, ok := reply.(map[string]any)
	if !ok {
		return reply
	}
	rows, ok := m["rows"].([]any)
	if !ok || len(rows) <= 3 {
		return reply
	}
	cp := make(map[string]any, len(m))
	for k, v := range m {
		cp[k] = v
	}
	cp["rows"] = rows[:3]
	return cp
}

func (s *Server) checkReply(method string, reply any) {
	m := s.doc.methods[method]
	if m == nil || m.Response == nil {
		return
	}
	out, err := json.Marshal(reply)
	if err != nil {
		s.violate("fake reply to %s: %v", method, err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		s.violate("fake reply to %s is not JSON: %v", method, err)
		return
	}
	for _, p := range s.doc.validate(m.Response, v, "reply") {
		s.violate("fake reply to %s: %s", method, p)
	}
}

func errorProto(f Fault) map[string]any {
	ep := map[string]any{"reason": f.Reason, "message": f.Message}
	if f.Location != "" {
		ep["location"] = f.Location
	}
	return ep
}

// errorBody is Google's JSON error envelope.
func errorBody(f Fault) map[string]any {
	code := faultCode(f)
	item := map[string]any{"message": f.Message, "domain": "global", "reason": f.Reason}
	if f.Location != "" {
		item["location"] = f.Location
		item["locationType"] = "other"
	}
	return map[string]any{"error": map[string]any{
		"code":    code,
		"message": f.Message,
		"errors":  []any{item},
		"status":  statusName(code),
	}}
}

func faultCode(f Fault) int {
	if f.Code != 0 {
		return f.Code
	}
	switch f.Reason {
	case "notFound":
		return 404
	case "duplicate":
		return 409
	case "rateLimitExceeded", "quotaExceeded", "accessDenied", "responseTooLarge", "billingNotEnabled":
		return 403
	case "backendError":
		return 503
	case "internalError":
		return 500
	}
	return 400
}

func statusName(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ALREADY_EXISTS"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "FAILED_PRECONDITION"
}

func msString(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

func etag(s string) string { return fmt.Sprintf("%08x", len(s)*2654435761%(1<<32)) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// WaitCancelled blocks until jobs.cancel has been received for a job, or ctx
// is done. It reports whether the cancel arrived.
func (s *Server) WaitCancelled(ctx context.Context, project, jobID string) bool {
	for {
		if _, cancelled, _ := s.JobState(project, jobID); cancelled {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// BodyAt walks a decoded JSON body, BodyAt(r.Body, "configuration", "query",
// "query"), and returns nil where the path leaves the body: tests check what
// the client sent without a type assertion at every level.
func BodyAt(body map[string]any, path ...string) any {
	var cur any = body
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}
