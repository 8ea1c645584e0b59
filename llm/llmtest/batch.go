package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// BatchScript is how one batch of the fake batch API behaves.
type BatchScript struct {
	// Steps are the statuses that successive retrieves of the batch report
	// (the create reply says "validating"); the last one stays. The batch's
	// requests are answered, through the server's handler, when a retrieve
	// first reports a terminal status (completed, expired, failed,
	// cancelled). Empty: in_progress, finalizing, completed.
	Steps []string
	// Answered is, for a batch that ends expired or cancelled, how many of
	// its requests (in file order) were answered before; the others get
	// batch_expired or batch_cancelled in the error file, or, with
	// Unlisted, no line at all (and are not counted as failed: a provider
	// that lists only the requests it ran).
	Answered int
	Unlisted bool
	// FailCode is the error of a batch that ends failed (default
	// "invalid_request").
	FailCode string
	// Results, if set, rewrites the batch's result lines before they are
	// written (fault injection: a provider that alters custom_ids, drops
	// lines or repeats them; see [AlterCustomIDs], [DropResults],
	// [RepeatResults]). Lines with status 200 go to the output file, the
	// others to the error file. The requests were run, and billed (see
	// [Server.Billed]), whatever becomes of their lines.
	Results func(lines []ResultLine) []ResultLine
}

// ResultLine is one line of a batch's output or error file.
type ResultLine struct {
	ID       string          `json:"id"`
	CustomID string          `json:"custom_id"`
	Response *ResultResponse `json:"response"`
	Error    *BatchError     `json:"error"`
}

// ResultResponse is a result line's response: the status and body the
// request would have had online.
type ResultResponse struct {
	StatusCode int             `json:"status_code"`
	RequestID  string          `json:"request_id"`
	Body       json.RawMessage `json:"body"`
}

// BatchError is the error of a result line for a request that did not
// run (batch_expired, batch_cancelled).
type BatchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// AlterCustomIDs gives every line a custom_id the batch did not hold, as
// a provider (or a proxy) that garbles them.
func AlterCustomIDs(lines []ResultLine) []ResultLine {
	out := make([]ResultLine, len(lines))
	for i, l := range lines {
		l.CustomID = "altered-" + l.CustomID
		out[i] = l
	}
	return out
}

// DropResults keeps the lines for which keep is true (i counts from 0 in
// file order).
func DropResults(keep func(i int, l ResultLine) bool) func([]ResultLine) []ResultLine {
	return func(lines []ResultLine) []ResultLine {
		var out []ResultLine
		for i, l := range lines {
			if keep(i, l) {
				out = append(out, l)
			}
		}
		return out
	}
}

// RepeatResults follows every line for which pick is true with a second
// line for the same custom_id: change(line), or the line itself when
// change is nil.
func RepeatResults(pick func(l ResultLine) bool, change func(l ResultLine) ResultLine) func([]ResultLine) []ResultLine {
	return func(lines []ResultLine) []ResultLine {
		var out []ResultLine
		for _, l := range lines {
			out = append(out, l)
			if pick != nil && !pick(l) {
				continue
			}
			d := l
			if change != nil {
				d = change(l)
			}
			out = append(out, d)
		}
		return out
	}
}

// Content reads the completion text of a result line ("" if it has
// none).
func (l ResultLine) Content() string {
	if l.Response == nil {
		return ""
	}
	var body struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(l.Response.Body, &body) != nil || len(body.Choices) == 0 {
		return ""
	}
	return body.Choices[0].Message.Content
}

// WithContent is l with its completion's text replaced by content (a
// second, different answer to the same request).
func (l ResultLine) WithContent(content string) ResultLine {
	if l.Response == nil {
		return l
	}
	var body map[string]any
	if json.Unmarshal(l.Response.Body, &body) != nil {
		return l
	}
	if ch, ok := body["choices"].([]any); ok && len(ch) > 0 {
		if c0, ok := ch[0].(map[string]any); ok {
			if msg, ok := c0["message"].(map[string]any); ok {
				msg["content"] = content
			}
		}
	}
	r := *l.Response
	r.Body, _ = json.Marshal(body)
	l.Response = &r
	return l
}

// DefaultBatchSteps is the life of a batch without a script.
var DefaultBatchSteps = []string{"in_progress", "finalizing", "completed"}

type fakeFile struct {
	id, name, purpose string
	data              []byte
	created           int64
}

type fakeBatch struct {
	ID               string         `json:"id"`
	Object           string         `json:"object"`
	Endpoint         string         `json:"endpoint"`
	Errors           *batchErrors   `json:"errors"`
	InputFileID      string         `json:"input_file_id"`
	CompletionWindow string         `json:"completion_window"`
	Status           string         `json:"status"`
	OutputFileID     *string        `json:"output_file_id"`
	ErrorFileID      *string        `json:"error_file_id"`
	CreatedAt        int64          `json:"created_at"`
	InProgressAt     *int64         `json:"in_progress_at"`
	ExpiresAt        *int64         `json:"expires_at"`
	FinalizingAt     *int64         `json:"finalizing_at"`
	CompletedAt      *int64         `json:"completed_at"`
	FailedAt         *int64         `json:"failed_at"`
	ExpiredAt        *int64         `json:"expired_at"`
	CancellingAt     *int64         `json:"cancelling_at"`
	CancelledAt      *int64         `json:"cancelled_at"`
	RequestCounts    requestCounts  `json:"request_counts"`
	Metadata         map[string]any `json:"metadata"`

	script    BatchScript
	retrieves int
	lines     []batchInputLine
	azure     bool
	apiVer    string
	deploy    string
}

type batchErrors struct {
	Object string       `json:"object"`
	Data   []BatchError `json:"data"`
}

type requestCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

type batchInputLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

var (
	filesPath   = regexp.MustCompile(`^/(?:v1|openai)/files$`)
	contentPath = regexp.MustCompile(`^/(?:v1|openai)/files/([^/]+)/content$`)
	batchesPath = regexp.MustCompile(`^/(?:v1|openai)/batches$`)
	batchPath   = regexp.MustCompile(`^/(?:v1|openai)/batches/([^/]+)$`)
	cancelPath  = regexp.MustCompile(`^/(?:v1|openai)/batches/([^/]+)/cancel$`)
)

// batchAPI serves /v1/files and /v1/batches (and Azure's /openai/files and
// /openai/batches); it reports whether the request was one of them.
func (s *Server) batchAPI(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/v1/files") && !strings.HasPrefix(p, "/v1/batches") &&
		!strings.HasPrefix(p, "/openai/files") && !strings.HasPrefix(p, "/openai/batches") {
		return false
	}
	azure := strings.HasPrefix(p, "/openai/")
	fail := func(status int, msg string) {
		s.mu.Lock()
		s.problems = append(s.problems, fmt.Sprintf("%s %s: HTTP %d: %s", r.Method, p, status, msg))
		s.mu.Unlock()
		writeError(w, status, APIError{Message: msg}, nil)
	}
	key := ""
	if azure {
		if r.URL.Query().Get("api-version") == "" {
			fail(http.StatusNotFound, "Resource not found (the api-version query parameter is missing)")
			return true
		}
		key = r.Header.Get("api-key")
	} else if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
		key = strings.TrimSpace(strings.TrimPrefix(auth, "Bearer "))
	}
	if key == "" || (s.opts.APIKey != "" && key != s.opts.APIKey) {
		fail(http.StatusUnauthorized, "missing or incorrect API key")
		return true
	}
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if s.files == nil {
		s.files = map[string]*fakeFile{}
		s.faulted = map[string]int{}
	}
	// fault reports whether this call of op fails (after doing its work,
	// for a create).
	fault := func(op string) bool {
		if s.faulted[op] >= s.opts.BatchFaults[op] {
			return false
		}
		s.faulted[op]++
		return true
	}
	serverError := func() {
		writeError(w, http.StatusInternalServerError, APIError{Message: "llmtest: scripted batch API fault"}, nil)
	}
	switch {
	case r.Method == http.MethodPost && filesPath.MatchString(p) && fault("upload"),
		r.Method == http.MethodGet && contentPath.MatchString(p) && fault("content"),
		r.Method == http.MethodGet && batchPath.MatchString(p) && fault("retrieve"):
		serverError()
		return true
	case r.Method == http.MethodGet && contentPath.MatchString(p) && fault("content-garbled"):
		// A 200 whose body is not the file: a proxy's error page.
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>\n")
		return true
	case r.Method == http.MethodPost && batchesPath.MatchString(p) && s.opts.BatchFaults["create"] > s.faulted["create"]:
		s.faulted["create"]++
		s.createBatch(httptest.NewRecorder(), r, azure, fail)
		serverError()
		return true
	}
	switch {
	case r.Method == http.MethodPost && filesPath.MatchString(p):
		s.upload(w, r, azure, fail)
	case r.Method == http.MethodGet && contentPath.MatchString(p):
		f := s.files[contentPath.FindStringSubmatch(p)[1]]
		if f == nil {
			fail(http.StatusNotFound, "No such File object")
			return true
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
		_, _ = w.Write(f.data)
	case r.Method == http.MethodPost && batchesPath.MatchString(p):
		s.createBatch(w, r, azure, fail)
	case r.Method == http.MethodGet && batchesPath.MatchString(p):
		s.listBatches(w, r)
	case r.Method == http.MethodGet && batchPath.MatchString(p):
		b := s.batch(batchPath.FindStringSubmatch(p)[1])
		if b == nil {
			fail(http.StatusNotFound, "No such Batch object")
			return true
		}
		s.advance(b)
		writeJSON(w, b)
	case r.Method == http.MethodPost && cancelPath.MatchString(p):
		b := s.batch(cancelPath.FindStringSubmatch(p)[1])
		if b == nil {
			fail(http.StatusNotFound, "No such Batch object")
			return true
		}
		switch b.Status {
		case "validating", "in_progress", "finalizing":
			now := time.Now().Unix()
			b.Status, b.CancellingAt = "cancelling", &now
			b.script.Steps = []string{"cancelled"}
			b.retrieves = 0
		default:
			fail(http.StatusBadRequest, "Cannot cancel a batch with status "+b.Status)
			return true
		}
		writeJSON(w, b)
	default:
		fail(http.StatusNotFound, "Invalid URL ("+r.Method+" "+p+")")
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (s *Server) batch(id string) *fakeBatch {
	for _, b := range s.batches {
		if b.ID == id {
			return b
		}
	}
	return nil
}

func (s *Server) addFile(name, purpose string, data []byte) *fakeFile {
	f := &fakeFile{id: fmt.Sprintf("file-llmtest-%d", len(s.files)+1), name: name, purpose: purpose, data: data, created: time.Now().Unix()}
	s.files[f.id] = f
	return f
}

// upload takes a multipart upload and checks a batch file line by line as
// the API does: JSONL of {custom_id, method, url, body}, custom_ids
// unique, the url the endpoint's, each body a valid chat completion.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, azure bool, fail func(int, string)) {
	if err := r.ParseMultipartForm(256 << 20); err != nil {
		fail(http.StatusBadRequest, "not a multipart upload: "+err.Error())
		return
	}
	purpose := r.FormValue("purpose")
	file, hdr, err := r.FormFile("file")
	if err != nil {
		fail(http.StatusBadRequest, "no file: "+err.Error())
		return
	}
	data, err := io.ReadAll(file)
	file.Close()
	if err != nil {
		fail(http.StatusBadRequest, err.Error())
		return
	}
	if purpose != "batch" {
		fail(http.StatusBadRequest, fmt.Sprintf("purpose %q: batch input files are uploaded with purpose batch", purpose))
		return
	}
	want := "/v1/chat/completions"
	if azure {
		want = "/chat/completions"
	}
	seen := map[string]bool{}
	for i, raw := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
		var l batchInputLine
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			fail(http.StatusBadRequest, fmt.Sprintf("line %d: %v", i+1, err))
			return
		}
		var c Call
		switch {
		case l.CustomID == "" || seen[l.CustomID]:
			fail(http.StatusBadRequest, fmt.Sprintf("line %d: custom_id %q is empty or used twice", i+1, l.CustomID))
			return
		case l.Method != http.MethodPost:
			fail(http.StatusBadRequest, fmt.Sprintf("line %d: method %q is not POST", i+1, l.Method))
			return
		case l.URL != want:
			fail(http.StatusBadRequest, fmt.Sprintf("line %d: url %q is not %s", i+1, l.URL, want))
			return
		}
		seen[l.CustomID] = true
		if _, apiErr := checkBody(&c, l.Body); apiErr != nil {
			fail(http.StatusBadRequest, fmt.Sprintf("line %d: %s", i+1, apiErr.Message))
			return
		}
		if c.Request.Model == "" {
			fail(http.StatusBadRequest, fmt.Sprintf("line %d: the body has no model (the deployment name on Azure)", i+1))
			return
		}
	}
	f := s.addFile(hdr.Filename, purpose, data)
	writeJSON(w, map[string]any{"id": f.id, "object": "file", "bytes": len(data), "created_at": f.created,
		"filename": f.name, "purpose": f.purpose, "status": "processed"})
}

func (s *Server) createBatch(w http.ResponseWriter, r *http.Request, azure bool, fail func(int, string)) {
	var req struct {
		InputFileID      string         `json:"input_file_id"`
		Endpoint         string         `json:"endpoint"`
		CompletionWindow string         `json:"completion_window"`
		Metadata         map[string]any `json:"metadata"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		fail(http.StatusBadRequest, err.Error())
		return
	}
	want := "/v1/chat/completions"
	if azure {
		want = "/chat/completions"
	}
	f := s.files[req.InputFileID]
	switch {
	case f == nil || f.purpose != "batch":
		fail(http.StatusBadRequest, fmt.Sprintf("input_file_id %q is not a batch file", req.InputFileID))
		return
	case req.Endpoint != want:
		fail(http.StatusBadRequest, fmt.Sprintf("endpoint %q is not %s", req.Endpoint, want))
		return
	case req.CompletionWindow != "24h":
		fail(http.StatusBadRequest, "completion_window must be 24h")
		return
	case len(req.Metadata) > 16:
		fail(http.StatusBadRequest, "metadata has more than 16 keys")
		return
	}
	var lines []batchInputLine
	for _, raw := range bytes.Split(bytes.TrimRight(f.data, "\n"), []byte("\n")) {
		var l batchInputLine
		_ = json.Unmarshal(raw, &l) // checked at upload
		lines = append(lines, l)
	}
	now := time.Now().Unix()
	exp := now + 24*3600
	b := &fakeBatch{ID: fmt.Sprintf("batch_llmtest_%d", len(s.batches)+1), Object: "batch", Endpoint: req.Endpoint,
		InputFileID: f.id, CompletionWindow: "24h", Status: "validating", CreatedAt: now, ExpiresAt: &exp,
		RequestCounts: requestCounts{Total: len(lines)}, Metadata: req.Metadata, lines: lines, azure: azure}
	if s.opts.Batches != nil {
		b.script = s.opts.Batches(len(s.batches), len(lines))
	}
	if len(b.script.Steps) == 0 {
		b.script.Steps = DefaultBatchSteps
	}
	s.batches = append(s.batches, b)
	writeJSON(w, b)
}

func (s *Server) listBatches(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && v > 0 && v <= 100 {
		limit = v
	}
	after := r.URL.Query().Get("after")
	var data []*fakeBatch
	started := after == ""
	for i := len(s.batches) - 1; i >= 0; i-- { // newest first
		b := s.batches[i]
		if !started {
			started = b.ID == after
			continue
		}
		data = append(data, b)
	}
	more := len(data) > limit
	if more {
		data = data[:limit]
	}
	out := map[string]any{"object": "list", "data": data, "has_more": more}
	if len(data) > 0 {
		out["first_id"], out["last_id"] = data[0].ID, data[len(data)-1].ID
	}
	if data == nil {
		out["data"] = []*fakeBatch{}
	}
	writeJSON(w, out)
}

// advance moves b to its next scripted status and, at a terminal one,
// answers its requests.
func (s *Server) advance(b *fakeBatch) {
	switch b.Status {
	case "completed", "expired", "failed", "cancelled":
		return
	}
	st := b.script.Steps[min(b.retrieves, len(b.script.Steps)-1)]
	b.retrieves++
	now := time.Now().Unix()
	b.Status = st
	switch st {
	case "in_progress":
		b.InProgressAt = &now
	case "finalizing":
		b.FinalizingAt = &now
	case "cancelling":
		b.CancellingAt = &now
	case "completed":
		b.CompletedAt = &now
		s.finish(b, len(b.lines), "")
	case "expired":
		b.ExpiredAt = &now
		s.finish(b, b.script.Answered, "batch_expired")
	case "cancelled":
		b.CancelledAt = &now
		s.finish(b, b.script.Answered, "batch_cancelled")
	case "failed":
		b.FailedAt = &now
		code := b.script.FailCode
		if code == "" {
			code = "invalid_request"
		}
		b.Errors = &batchErrors{Object: "list", Data: []BatchError{{Code: code, Message: "llmtest: scripted batch failure"}}}
	}
}

// finish answers the first answered requests of b through the handler and
// gives the rest the error code, then writes the output and error files.
func (s *Server) finish(b *fakeBatch, answered int, code string) {
	var lines []ResultLine
	for i, l := range b.lines {
		line := ResultLine{ID: fmt.Sprintf("batch_req_%s_%d", b.ID, i+1), CustomID: l.CustomID}
		if i >= answered && b.script.Unlisted {
			continue
		}
		if i >= answered {
			msg := "This request could not be executed before the completion window expired."
			if code == "batch_cancelled" {
				msg = "This request was not executed because the batch was cancelled."
			}
			line.Error = &BatchError{Code: code, Message: msg}
			b.RequestCounts.Failed++
			lines = append(lines, line)
			continue
		}
		seq := int(s.seq.Add(1))
		c := Call{Seq: seq, Path: l.URL, Batch: b.ID, CustomID: l.CustomID, Azure: b.azure}
		_, _ = checkBody(&c, l.Body)
		if b.azure {
			c.Deployment = c.Request.Model
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.mu.Unlock()
		reply := s.h(&c)
		resp := &ResultResponse{StatusCode: http.StatusOK, RequestID: fmt.Sprintf("req_llmtest_%d", seq)}
		switch {
		case reply.Status != 0 && reply.Status != http.StatusOK:
			e := reply.Error
			if e.Message == "" {
				e.Message = http.StatusText(reply.Status)
			}
			resp.StatusCode = reply.Status
			resp.Body, _ = json.Marshal(struct {
				Error APIError `json:"error"`
			}{e})
		case reply.Fault != NoFault && reply.Fault != NoChoices:
			// A body broken on the wire has no batch equivalent: the
			// provider reports a server error for the request.
			resp.StatusCode = http.StatusInternalServerError
			resp.Body = json.RawMessage(`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`)
		default:
			pt, ct := reply.usage(&c)
			s.billedPrompt.Add(int64(pt))
			s.billedCompletion.Add(int64(ct))
			resp.Body = completionBody(&c, reply)
		}
		line.Response = resp
		if resp.StatusCode == http.StatusOK {
			b.RequestCounts.Completed++
		} else {
			b.RequestCounts.Failed++
		}
		lines = append(lines, line)
	}
	if b.script.Results != nil {
		lines = b.script.Results(lines)
	}
	var out, errs bytes.Buffer
	for _, line := range lines {
		enc, _ := json.Marshal(line)
		if line.Response != nil && line.Response.StatusCode == http.StatusOK {
			out.Write(append(enc, '\n'))
		} else {
			errs.Write(append(enc, '\n'))
		}
	}
	if out.Len() > 0 {
		id := s.addFile(b.ID+"_output.jsonl", "batch_output", out.Bytes()).id
		b.OutputFileID = &id
	}
	if errs.Len() > 0 {
		id := s.addFile(b.ID+"_error.jsonl", "batch_output", errs.Bytes()).id
		b.ErrorFileID = &id
	}
}

// BatchesCreated is the number of batches created.
func (s *Server) BatchesCreated() int {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	return len(s.batches)
}

// BatchSizes is the number of requests of each batch created, in order.
func (s *Server) BatchSizes() []int {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	out := make([]int, len(s.batches))
	for i, b := range s.batches {
		out[i] = len(b.lines)
	}
	return out
}

// Submitted counts, per custom_id, the batches created with it: a request
// submitted twice has 2.
func (s *Server) Submitted() map[string]int {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	out := map[string]int{}
	for _, b := range s.batches {
		for _, l := range b.lines {
			out[l.CustomID]++
		}
	}
	return out
}

// Uploads is the number of files uploaded.
func (s *Server) Uploads() int {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	n := 0
	for _, f := range s.files {
		if f.purpose == "batch" {
			n++
		}
	}
	return n
}

// CompleteBatches makes every batch not yet finished complete at its next
// retrieve, whatever its script said (a provider that caught up).
func (s *Server) CompleteBatches() {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	for _, b := range s.batches {
		switch b.Status {
		case "completed", "expired", "failed", "cancelled":
			continue
		}
		b.script.Steps, b.retrieves = []string{"completed"}, 0
	}
}
