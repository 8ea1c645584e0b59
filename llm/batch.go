package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clinsql/clinsql/internal/safefile"
	"github.com/clinsql/clinsql/llm/llmfmt"
)

// BatchOptions configure a client whose endpoint is in mode batch.
type BatchOptions struct {
	// Dir is the folder the batches are recorded in (the output folder):
	// [BatchJournalName] there, locked while the client is open.
	Dir string
	// Wait bounds how long requests wait for their batches, from the
	// client's first request (0: until they finish), on the client's
	// clock (Options.Now: a test moves it past the wait on an event).
	// When it runs out, every request still waiting fails with
	// [KindBatchPending]; submitted batches stay recorded and a later
	// client resumes them.
	Wait time.Duration
	// Progress, if set, is called after every change of the batches'
	// states. It must be quick.
	Progress func(BatchProgress)
	// Step, if set, is called at each point where a killed process would
	// leave the folder in a different state: "prepare" (the batch's
	// requests are booked in the spending file, the batch not recorded),
	// "upload" (the batch's requests are recorded, the file not uploaded), "uploaded" (uploaded,
	// not recorded), "create" (the upload recorded, the batch not
	// created), "created" (created, not recorded), "poll" (recorded, not
	// polled), "download" (its final state recorded, the results not
	// downloaded), "downloaded" (the results downloaded, none read),
	// "resolved" (the first result read and cached, the batch not marked
	// done). An error abandons the client there, as a kill -9 would
	// (tests).
	Step func(step string) error
}

// BatchProgress is where a client's batches stand.
type BatchProgress struct {
	Submitted  int // batches created with the provider by this client, resumed ones included
	InProgress int // of which not finished
	Done       int // of which finished and read
	Requests   int // requests in those batches
	Answered   int // requests with a result (a reply or a final error)
	CostUSD    float64
}

// BatchJournalName is the file in BatchOptions.Dir recording ep's batches.
func BatchJournalName(ep Endpoint) string {
	return "batches-" + unsafeName.ReplaceAllString(ep.Name, "_") + ".jsonl"
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// The batch API's terminal states.
var batchFinal = map[string]bool{"completed": true, "expired": true, "failed": true, "cancelled": true}

// journalRec is one line of a batch journal. "prepare" is written and
// fsynced before the file is uploaded (the requests and their custom_ids),
// "uploaded" after the upload (the file id), "created" after the batch is
// created (its id), "state" after a poll that changed its status, "done"
// once every result was read, "dropped" for a batch that was never created.
type journalRec struct {
	Op       string       `json:"op"`
	Batch    string       `json:"batch"` // the local id, also the batch's metadata clinsql_batch
	Time     time.Time    `json:"time"`
	Requests []journalReq `json:"requests,omitempty"`
	Bytes    int          `json:"bytes,omitempty"`
	FileID   string       `json:"file_id,omitempty"`
	BatchID  string       `json:"batch_id,omitempty"`
	Status   string       `json:"status,omitempty"`
	Counts   *batchCounts `json:"request_counts,omitempty"`
	Output   string       `json:"output_file_id,omitempty"`
	Errors   string       `json:"error_file_id,omitempty"`
	Why      string       `json:"why,omitempty"`
	// Meter (op "open", written when a client opens the journal) is the
	// token of the meter whose reservations the client's batches book:
	// proof that a reservation of that meter which no batch lists was
	// booked for this journal and never recorded (see replay).
	Meter string `json:"meter,omitempty"`
}

type journalReq struct {
	ID      string `json:"custom_id"` // the request's cache key
	Tag     string `json:"tag,omitempty"`
	Attempt int    `json:"attempt"` // 1 for its first batch
	// Reservation is the id of the request's reservation in the folder's
	// spending file (absent without a meter recording one): a later
	// process that reads the request's result settles it.
	Reservation string `json:"reservation,omitempty"`
}

type batchCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

// maxJournalLine bounds one journal line: a prepare line lists at most
// 50,000 requests of about 120 bytes.
const maxJournalLine = 16 << 20

// maxBatchFileBytes bounds a downloaded result file.
const maxBatchFileBytes = 1 << 30

// batchLine is one line of a batch input file.
type batchLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// resultLine is one line of a batch output or error file.
type resultLine struct {
	ID       string `json:"id"`
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// breq is one request known to the batcher: waiting to be sent, or in a
// batch.
type breq struct {
	key, tag string
	body     json.RawMessage // nil for a request resumed from the journal no caller has asked for yet
	worst    Usage
	validate func(string, *llmfmt.Logprobs) error
	sent     int // batches it was sent in, earlier processes included
	used     Usage
	res      *reservation // this process's reservation while it is in a batch
	orphan   string       // the reservation of a killed process's batch it is in (journalReq.Reservation)
	batch    *bbatch
	waiters  []chan batchResult
	start    time.Time
}

type batchResult struct {
	resp Response
	err  error
}

// bbatch is one batch: prepared, uploaded, created, polled.
type bbatch struct {
	local, fileID, id, status string
	reqs                      map[string]*breq
	counts                    batchCounts
	polled                    time.Time
	counted                   bool // in the progress counts
	// unreadable counts the downloads of its results that did not parse
	// (see poll).
	unreadable int
}

// batcher sends a client's requests through the batch API. Callers of
// Complete block in complete; one goroutine (run) collects their requests
// into batches, sends, polls and reads the results back.
type batcher struct {
	c      *Client
	opts   BatchOptions
	lim    BatchLimits
	url    string // the url of each input line and the batch's endpoint
	dir    *safefile.Dir
	jf     *os.File
	jpath  string
	jname  string // the journal as the meter's reservations name it (Meter.journalName)
	token  string
	cancel context.CancelFunc
	done   chan struct{}
	kick   chan struct{}

	mu       sync.Mutex
	queue    []*breq
	byKey    map[string]*breq
	batches  []*bbatch // created or being created, not done
	attempts map[string]int
	finished map[string]cachedReply // replies of resumed requests no caller waited for
	first    time.Time
	lastAdd  time.Time
	expect   int // units of work announced with Client.Expect
	expired  bool
	down     string // the endpoint was declared down (Client.health): the reason
	dead     error
	seq      int
	prog     BatchProgress
}

func openBatcher(c *Client, opts BatchOptions) (*batcher, error) {
	dir, err := safefile.MkdirAll(opts.Dir)
	if err != nil {
		return nil, err
	}
	b := &batcher{c: c, opts: opts, lim: c.ep.Batch, dir: dir, jpath: filepath.Join(opts.Dir, BatchJournalName(c.ep)),
		token: newToken(), kick: make(chan struct{}, 1), done: make(chan struct{}),
		byKey: map[string]*breq{}, attempts: map[string]int{}, finished: map[string]cachedReply{}}
	b.url = "/v1/chat/completions"
	if c.ep.Kind == KindAzure {
		b.url = "/chat/completions"
	}
	if c.meter != nil {
		b.jname = c.meter.journalName(b.jpath)
	}
	if err := b.openJournal(); err != nil {
		dir.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	go b.run(ctx)
	return b, nil
}

// openJournal opens and locks the journal (with package safefile: a link
// or a FIFO in its place is refused), replays it and drops a torn last
// line (a write the killed process did not finish: the step after it
// never happened), saying so in the log.
func (b *batcher) openJournal() error {
	f, err := b.dir.OpenFile(BatchJournalName(b.c.ep), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%s is in use by another process: one process at a time may send batches from a folder", b.jpath)
		}
		return fmt.Errorf("lock %s: %w", b.jpath, err)
	}
	valid, err := b.replay(f)
	if err == nil {
		var end int64
		if end, err = f.Seek(0, io.SeekEnd); err == nil && end > valid {
			b.c.log.Warn("llm batch journal: its last line is cut short (a write a crash interrupted) and was dropped: the step it recorded is taken as not done",
				"journal", b.jpath, "at_byte", valid, "bytes", end-valid)
			err = f.Truncate(valid)
		}
	}
	if err != nil {
		f.Close()
		return err
	}
	b.jf = f
	if m := b.c.meter; m != nil {
		if err := b.write(journalRec{Op: "open", Meter: m.token}); err != nil {
			f.Close()
			b.jf = nil
			return err
		}
	}
	return nil
}

func (b *batcher) replay(r io.Reader) (int64, error) {
	open := map[string]*bbatch{}
	prepared := map[string]bool{} // reservations some batch of the journal lists
	meters := map[string]bool{}   // meters of the clients that opened the journal
	var order []string
	br := bufio.NewReaderSize(r, 64<<10)
	var valid int64
	for line := 1; ; line++ {
		raw, err := readLine(br, maxJournalLine)
		if err == io.EOF {
			break // a torn or empty tail
		}
		if err != nil {
			return valid, fmt.Errorf("%s: line %d: %w", b.jpath, line, err)
		}
		var rec journalRec
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return valid, fmt.Errorf("%s: line %d: %v", b.jpath, line, err)
		}
		if rec.Op == "open" {
			if rec.Meter != "" {
				meters[rec.Meter] = true
			}
			valid += int64(len(raw))
			continue
		}
		bt := open[rec.Batch]
		if rec.Op != "prepare" && bt == nil {
			return valid, fmt.Errorf("%s: line %d: %s of batch %q, which was not prepared", b.jpath, line, rec.Op, rec.Batch)
		}
		switch rec.Op {
		case "prepare":
			if bt != nil || rec.Batch == "" {
				return valid, fmt.Errorf("%s: line %d: batch id %q is empty or used twice", b.jpath, line, rec.Batch)
			}
			bt = &bbatch{local: rec.Batch, reqs: map[string]*breq{}}
			for _, q := range rec.Requests {
				bt.reqs[q.ID] = &breq{key: q.ID, tag: q.Tag, sent: q.Attempt, orphan: q.Reservation}
				if q.Reservation != "" {
					prepared[q.Reservation] = true
				}
			}
			open[rec.Batch] = bt
			order = append(order, rec.Batch)
		case "uploaded":
			bt.fileID = rec.FileID
			// Sent: the attempt counts toward the retry limit for good.
			for k, q := range bt.reqs {
				b.attempts[k] = max(b.attempts[k], q.sent)
			}
		case "created":
			bt.id, bt.status = rec.BatchID, "validating"
		case "state":
			bt.status = rec.Status
			if rec.Counts != nil {
				bt.counts = *rec.Counts
			}
		case "done", "dropped":
			delete(open, rec.Batch)
		default:
			return valid, fmt.Errorf("%s: line %d: unknown op %q", b.jpath, line, rec.Op)
		}
		valid += int64(len(raw))
	}
	for _, id := range order {
		bt := open[id]
		if bt == nil {
			continue
		}
		if bt.fileID == "" {
			// Killed before (or during) the upload: nothing was created, so
			// nothing will run; the requests go out again when asked for.
			// An uploaded file that was not recorded is never used: a
			// batch is created only after its upload is recorded, so the
			// killed process's reservations are settled at nothing.
			for _, q := range bt.reqs {
				b.settleOrphan(q, outcome{billing: usageNone})
			}
			continue
		}
		b.batches = append(b.batches, bt)
		for k, q := range bt.reqs {
			q.batch = bt
			b.byKey[k] = q
		}
		bt.counted = true
		b.prog.Submitted++
		b.prog.InProgress++
		b.prog.Requests += len(bt.reqs)
	}
	if m := b.c.meter; m != nil {
		// A process killed after booking a batch's requests and before
		// recording the batch left reservations no batch lists: it never
		// uploaded them (the upload follows the record), so the provider
		// billed nothing. Without this they would count in full for ever.
		// Only a meter the journal says opened it: if the journal was
		// deleted, its batches are unknown, and their reservations stay.
		unprepared := func(id string) bool {
			token, _, _ := strings.Cut(id, "-")
			return meters[token] && !prepared[id]
		}
		if n, usd := m.releaseUnprepared(b.jname, unprepared); n > 0 {
			b.c.log.Info("llm batch: released the reservations of requests a killed process booked but never recorded in a batch (never sent)",
				"endpoint", b.c.ep.Name, "requests", n, "usd", usd, "journal", b.jpath)
		}
	}
	return valid, nil
}

// readLine reads one '\n'-terminated line of at most limit bytes; a last
// line without its newline comes with io.EOF (a journal's is torn, a
// result file's may be whole).
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > limit {
			return nil, fmt.Errorf("longer than %d bytes", limit)
		}
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return out, err
		}
	}
}

// write appends rec as one line and syncs it.
func (b *batcher) write(rec journalRec) error {
	rec.Time = time.Now().UTC()
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := b.jf.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("record batch in %s: %w", b.jpath, err)
	}
	if err := b.jf.Sync(); err != nil {
		return fmt.Errorf("record batch in %s: %w", b.jpath, err)
	}
	return nil
}

func (b *batcher) close() {
	b.cancel()
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failAll(&Error{Kind: KindCanceled, Endpoint: b.c.ep.Name, Message: "the client was closed"})
	if b.jf != nil {
		b.jf.Close()
		b.jf = nil
		b.dir.Close()
	}
}

func (b *batcher) signal() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// complete is Client.Complete for a request not in the cache.
func (b *batcher) complete(ctx context.Context, tag, key string, oreq openai.ChatCompletionRequest, patch map[string]any, worst Usage, validate func(string, *llmfmt.Logprobs) error, start time.Time) (Response, error) {
	fail := func(kind ErrorKind, msg string) (Response, error) {
		return Response{}, &Error{Kind: kind, Endpoint: b.c.ep.Name, Tag: tag, Message: msg}
	}
	if b.c.ep.Kind == KindAzure {
		oreq.Model = b.c.ep.Deployment // a batch line names the deployment in its body
	}
	body, err := requestBody(oreq, patch)
	if err != nil {
		return fail(KindBadRequest, err.Error())
	}
	b.mu.Lock()
	switch {
	case b.dead != nil:
		b.mu.Unlock()
		return fail(KindCanceled, b.dead.Error())
	case b.expired:
		b.mu.Unlock()
		return fail(KindBatchPending, "the batch wait ran out; the request was not sent: run again")
	case b.goneDown():
		b.mu.Unlock()
		return fail(KindBatchPending, b.downMessage())
	}
	if hit, ok := b.finished[key]; ok && validate(hit.Text, hit.Logprobs) == nil {
		b.mu.Unlock()
		return Response{Text: hit.Text, FinishReason: hit.FinishReason, FromCache: true, ReplyCostUSD: b.c.boughtFor(hit),
			Latency: time.Since(start), CacheKey: key, Logprobs: deref(hit.Logprobs)}, nil
	}
	if b.first.IsZero() {
		b.first = b.c.now()
	}
	q := b.byKey[key]
	if q == nil {
		q = &breq{key: key, sent: b.attempts[key]}
		b.byKey[key] = q
		b.queue = append(b.queue, q)
		b.lastAdd = time.Now()
	}
	if q.body == nil || q.validate == nil {
		// New, or resumed from the journal: now known in full.
		q.body, q.tag, q.worst, q.validate, q.start = body, tag, worst, validate, start
	}
	ch := make(chan batchResult, 1)
	q.waiters = append(q.waiters, ch)
	b.mu.Unlock()
	b.signal()
	select {
	case r := <-ch:
		if r.err == nil {
			r.resp.Latency = time.Since(start)
		}
		return r.resp, r.err
	case <-ctx.Done():
		b.mu.Lock()
		if i := slices.Index(q.waiters, ch); i >= 0 {
			q.waiters = slices.Delete(q.waiters, i, i+1)
		}
		b.mu.Unlock()
		return Response{}, &Error{Kind: KindCanceled, Endpoint: b.c.ep.Name, Tag: tag, Message: ctx.Err().Error(), cause: ctx.Err()}
	}
}

// requestBody is the JSON body an online call would send: go-openai's
// encoding with the patched fields (see Client.build).
func requestBody(oreq openai.ChatCompletionRequest, patch map[string]any) (json.RawMessage, error) {
	raw, err := json.Marshal(oreq)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	for k, v := range patch {
		if fields[k], err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(fields)
}

// run is the batcher's loop: send what was collected, poll what is out,
// enforce the wait.
func (b *batcher) run(ctx context.Context) {
	defer close(b.done)
	tick := max(time.Millisecond, min(b.lim.Collect, b.lim.Poll)/4)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
		case <-t.C:
		}
		b.mu.Lock()
		if b.dead != nil {
			b.mu.Unlock()
			continue
		}
		if b.opts.Wait > 0 && !b.first.IsZero() && !b.expired && b.c.now().Sub(b.first) > b.opts.Wait {
			b.expired = true
			b.queue = nil
			b.failAll(&Error{Kind: KindBatchPending, Endpoint: b.c.ep.Name,
				Message: fmt.Sprintf("the batch wait of %s ran out; the submitted batches are recorded in %s: run again to resume", b.opts.Wait, b.jpath)})
		}
		down := b.goneDown()
		flush := !down && len(b.queue) > 0 && (b.collected() || len(b.queue) >= b.lim.MaxRequests)
		b.mu.Unlock()
		if flush {
			b.submit(ctx)
		}
		if !down {
			b.pollDue(ctx)
		}
	}
}

// collected reports whether the queue is complete enough to send: every
// unit of work the callers announced (Client.Expect) waits on a request,
// or no request came in for batch.collect (ten times that while announced
// units are still working: an engine query may take a while). Under b.mu.
func (b *batcher) collected() bool {
	idle := time.Since(b.lastAdd)
	if b.expect <= 0 {
		return idle >= b.lim.Collect
	}
	waiting := 0
	for _, q := range b.byKey {
		waiting += len(q.waiters)
	}
	return waiting >= b.expect || idle >= 10*b.lim.Collect
}

// Expect tells a client in batch mode that n more units of work (tasks
// that wait on at most one request at a time) are under way, or with n < 0
// that they ended. While any are announced, a batch is sent as soon as
// every one of them waits on a request, rather than after a quiet
// batch.collect: a round of generation whose engine queries take long is
// still one batch. It does nothing online.
func (c *Client) Expect(n int) {
	if c.batch == nil {
		return
	}
	c.batch.mu.Lock()
	c.batch.expect += n
	c.batch.mu.Unlock()
	c.batch.signal()
}

// failAll fails every waiting request with err and forgets the requests
// not in a batch; under b.mu.
func (b *batcher) failAll(err *Error) {
	for k, q := range b.byKey {
		for _, ch := range q.waiters {
			e := *err
			e.Tag = q.tag
			ch <- batchResult{err: &e}
		}
		q.waiters = nil
		if q.batch == nil {
			delete(b.byKey, k)
		}
	}
}

// goneDown reports whether the endpoint was declared down (Client.health:
// the batch API's calls failed for retry.down_after with no success, as
// online calls are judged). The first time it says so, every waiting
// request fails with [KindBatchPending] and the reason, and nothing more is
// sent or polled: the journal keeps every batch where it stands (prepared,
// uploaded, created, polled), so a later client finds an uploaded batch by
// its metadata or creates it, polls a created one by its id, and never
// submits a request twice. Pending rather than an endpoint-down kind: such
// a request is not failed, only not collected yet; a judge would record an
// endpoint-down failure as an invalid vote, and a rerun would then not ask
// for the reply its batch holds. Under b.mu.
func (b *batcher) goneDown() bool {
	if b.down != "" {
		return true
	}
	reason := b.c.health.downReason()
	if reason == "" {
		return false
	}
	b.down = reason
	b.queue = nil
	b.c.log.Warn("llm batch endpoint down; the batches stay recorded", "endpoint", b.c.ep.Name, "reason", reason, "journal", b.jpath)
	b.failAll(&Error{Kind: KindBatchPending, Endpoint: b.c.ep.Name, Message: b.downMessage()})
	return true
}

// stopPending ends the wait of every request for a reason polling again
// will not heal (a refused poll, results that never parse): they fail
// pending, as when the endpoint is down, and the journal keeps every
// batch where it stands for a rerun. reason completes "the endpoint was".
func (b *batcher) stopPending(reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.down != "" {
		return
	}
	b.down = reason
	b.queue = nil
	b.c.log.Warn("llm batch stopped; the batches stay recorded", "endpoint", b.c.ep.Name, "reason", reason, "journal", b.jpath)
	b.failAll(&Error{Kind: KindBatchPending, Endpoint: b.c.ep.Name, Message: b.downMessage()})
}

func (b *batcher) downMessage() string {
	return fmt.Sprintf("the endpoint was %s; the submitted batches are recorded in %s: run again to resume once it answers", b.down, b.jpath)
}

// die abandons the batcher (a Step hook said so, or the journal cannot be
// written): nothing more is written or sent.
func (b *batcher) die(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead == nil {
		b.dead = err
		b.failAll(&Error{Kind: KindCanceled, Endpoint: b.c.ep.Name, Message: "batches abandoned: " + err.Error()})
	}
}

func (b *batcher) step(name string) bool {
	if b.opts.Step == nil {
		return true
	}
	if err := b.opts.Step(name); err != nil {
		b.die(err)
		return false
	}
	return true
}

// submit sends the queue as batches within the limits.
func (b *batcher) submit(ctx context.Context) {
	for {
		b.mu.Lock()
		if b.dead != nil || b.expired || b.goneDown() {
			b.mu.Unlock()
			return
		}
		var chunk []*breq
		var lines [][]byte
		size := 0
		rest := b.queue[:0:0]
		full := false
		for _, q := range b.queue {
			if len(q.waiters) == 0 {
				delete(b.byKey, q.key) // its caller gave up
				continue
			}
			if full {
				rest = append(rest, q)
				continue
			}
			line, err := json.Marshal(batchLine{CustomID: q.key, Method: "POST", URL: b.url, Body: q.body})
			if err == nil && int64(len(line)+1) > b.lim.MaxBytes {
				err = fmt.Errorf("the request is %d bytes, more than a batch file may hold (batch.max_bytes %d)", len(line)+1, b.lim.MaxBytes)
			}
			if err != nil {
				b.resolveLocked(q, outcome{kind: KindBadRequest, msg: err.Error()})
				continue
			}
			if len(chunk) >= b.lim.MaxRequests || int64(size+len(line)+1) > b.lim.MaxBytes {
				full = true
				rest = append(rest, q)
				continue
			}
			// The worst case is booked when the request is submitted; a
			// resumed folder's spending counts (OpenMeter).
			if m := b.c.meter; m != nil {
				r, err := m.book(ctx, b.c.ep.Name, b.c.ep.Model, q.worst, b.jname, false)
				if errors.Is(err, errNoRoom) {
					full = true // room comes back as results are settled
					rest = append(rest, q)
					continue
				}
				if err != nil {
					b.resolveLocked(q, outcome{kind: KindBudget, msg: err.Error(), live: liveText(err)})
					continue
				}
				q.res = r
			}
			chunk = append(chunk, q)
			lines = append(lines, line)
			size += len(line) + 1
		}
		b.queue = rest
		if len(chunk) == 0 {
			b.mu.Unlock()
			return
		}
		b.seq++
		bt := &bbatch{local: fmt.Sprintf("%s-%d", b.token, b.seq), reqs: map[string]*breq{}}
		rec := journalRec{Op: "prepare", Batch: bt.local, Bytes: size}
		for _, q := range chunk {
			q.sent++
			b.attempts[q.key] = q.sent
			q.batch = bt
			bt.reqs[q.key] = q
			jq := journalReq{ID: q.key, Tag: q.tag, Attempt: q.sent}
			if q.res != nil {
				jq.Reservation = q.res.id
			}
			rec.Requests = append(rec.Requests, jq)
		}
		b.batches = append(b.batches, bt)
		b.mu.Unlock()
		if !b.send(ctx, bt, rec, bytes.Join(lines, []byte("\n"))) {
			return
		}
	}
}

// send records, uploads and creates one batch.
func (b *batcher) send(ctx context.Context, bt *bbatch, rec journalRec, data []byte) bool {
	if !b.step("prepare") {
		return false
	}
	if err := b.write(rec); err != nil {
		b.die(err)
		return false
	}
	if !b.step("upload") {
		return false
	}
	var file openai.File
	_, err := b.c.control(ctx, "upload batch file", 0, func(ctx context.Context) (err error) {
		file, err = b.c.api.CreateFileBytes(ctx, openai.FileBytesRequest{Name: bt.local + ".jsonl", Bytes: data, Purpose: openai.PurposeBatch})
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return false // shutting down: the batch stays prepared, never created
		}
		b.drop(bt, err) // no file id: nothing can be created from it
		return true
	}
	if !b.step("uploaded") {
		return false
	}
	bt.fileID = file.ID
	if err := b.write(journalRec{Op: "uploaded", Batch: bt.local, FileID: file.ID}); err != nil {
		b.die(err)
		return false
	}
	if !b.step("create") {
		return false
	}
	return b.create(ctx, bt)
}

// create creates the batch of an uploaded file, unless one was created
// for it already (found by its metadata: a process killed after the
// create call and before recording it).
func (b *batcher) create(ctx context.Context, bt *bbatch) bool {
	// A create is never simply retried: one whose reply was lost may have
	// created the batch, so each try first looks for it.
	var found *openai.Batch
	var err error
	for try := 1; ; try++ {
		if found, err = b.find(ctx, bt); err != nil || found != nil {
			break
		}
		var resp openai.BatchResponse
		_, err = b.c.controlN(ctx, "create batch", 0, 1, func(ctx context.Context) (err error) {
			resp, err = b.c.api.CreateBatch(ctx, openai.CreateBatchRequest{InputFileID: bt.fileID, Endpoint: openai.BatchEndpoint(b.url),
				CompletionWindow: "24h", Metadata: map[string]any{"clinsql_batch": bt.local}})
			return err
		})
		if err == nil {
			found = &resp.Batch
			break
		}
		if !KindOf(err).Retryable() || try >= b.c.ep.Retry.MaxAttempts || ctx.Err() != nil || b.c.health.downReason() != "" {
			break
		}
		if serr := b.c.sleep(ctx, backoff(try, b.c.ep.Retry.BaseDelay, b.c.ep.Retry.MaxDelay, 0)); serr != nil {
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		// Shutting down: the create may have gone through; a later client
		// looks for it by its metadata.
		return false
	case err != nil && KindOf(err).Retryable():
		// The provider may have created it all the same, or may be down:
		// the batch stays uploaded but not created, and the next poll (of
		// this client, or of a later one once the endpoint is declared
		// down) looks for it, then creates it.
		b.c.log.Warn("llm batch create failed; will look again", "endpoint", b.c.ep.Name, "batch", bt.local, "error", err)
		bt.polled = time.Now()
		return true
	case err != nil:
		b.drop(bt, err) // refused: nothing was created
		return true
	}
	if !b.step("created") {
		return false
	}
	bt.id, bt.status = found.ID, "validating"
	if err := b.write(journalRec{Op: "created", Batch: bt.local, BatchID: found.ID}); err != nil {
		b.die(err)
		return false
	}
	b.mu.Lock()
	if !bt.counted {
		bt.counted = true
		b.prog.Submitted++
		b.prog.InProgress++
		b.prog.Requests += len(bt.reqs)
	}
	b.mu.Unlock()
	b.progress()
	return b.step("poll")
}

// find looks for the batch created for bt's local id among the account's
// recent batches.
func (b *batcher) find(ctx context.Context, bt *bbatch) (*openai.Batch, error) {
	var after *string
	limit := 100
	for page := 0; page < 20; page++ {
		var resp openai.ListBatchResponse
		_, err := b.c.control(ctx, "list batches", 0, func(ctx context.Context) (err error) {
			resp, err = b.c.api.ListBatch(ctx, after, &limit)
			return err
		})
		if err != nil {
			return nil, err
		}
		for i := range resp.Data {
			if v, _ := resp.Data[i].Metadata["clinsql_batch"].(string); v == bt.local {
				return &resp.Data[i], nil
			}
		}
		if !resp.HasMore || len(resp.Data) == 0 {
			return nil, nil
		}
		last := resp.Data[len(resp.Data)-1].ID
		after = &last
	}
	return nil, nil
}

// drop gives up a batch that was never created: its requests fail with
// err's kind or go back to the queue under the retry rules.
func (b *batcher) drop(bt *bbatch, err error) {
	_ = b.write(journalRec{Op: "dropped", Batch: bt.local, Why: err.Error()})
	kind := KindOf(err)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.removeBatch(bt)
	for _, q := range bt.reqs {
		// Nothing ran: the reservation is released. A killed process's
		// reservation (a resumed batch whose create was refused) stays
		// open: if the look-up before the create was refused too, that
		// process's create may have gone through unseen.
		q.orphan = ""
		b.resolveLocked(q, outcome{kind: kind, msg: err.Error(), billing: usageNone})
	}
}

func (b *batcher) removeBatch(bt *bbatch) {
	if i := slices.Index(b.batches, bt); i >= 0 {
		b.batches = slices.Delete(b.batches, i, i+1)
	}
}

// pollDue polls every batch someone waits for whose poll interval passed,
// and, with the first poll of a resumed batch, creates it if its process
// died between upload and create.
func (b *batcher) pollDue(ctx context.Context) {
	b.mu.Lock()
	var due []*bbatch
	for _, bt := range b.batches {
		waited := false
		for _, q := range bt.reqs {
			if len(q.waiters) > 0 {
				waited = true
				break
			}
		}
		if waited && bt.fileID != "" && time.Since(bt.polled) >= b.lim.Poll {
			due = append(due, bt)
		}
	}
	b.mu.Unlock()
	for _, bt := range due {
		if ctx.Err() != nil || !b.poll(ctx, bt) || b.c.health.downReason() != "" {
			return
		}
	}
}

func (b *batcher) poll(ctx context.Context, bt *bbatch) bool {
	if bt.id == "" {
		if !b.create(ctx, bt) {
			return false
		}
		if bt.id == "" {
			return true // not created yet: tried again at the next poll
		}
	}
	bt.polled = time.Now()
	var resp openai.BatchResponse
	_, err := b.c.control(ctx, "retrieve batch", 0, func(ctx context.Context) (err error) {
		resp, err = b.c.api.RetrieveBatch(ctx, bt.id)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		if !KindOf(err).Retryable() {
			// Refused (a revoked key, an unknown batch): polling again
			// will not heal it, so waiting on would be for ever. The
			// waiting requests end pending, as when the endpoint is
			// down; the journal keeps the batch, which a rerun (with
			// the key fixed) polls by its id.
			b.stopPending(fmt.Sprintf("refusing to report batch %s (%v)", bt.id, err))
			return false
		}
		// Polling failed after its retries; the batch runs on regardless
		// (the down rule ends the wait if the endpoint stays unreachable).
		b.c.log.Warn("llm batch poll failed", "endpoint", b.c.ep.Name, "batch", bt.id, "error", err)
		return true
	}
	counts := batchCounts{Total: resp.RequestCounts.Total, Completed: resp.RequestCounts.Completed, Failed: resp.RequestCounts.Failed}
	if resp.Status != bt.status || counts != bt.counts {
		bt.status, bt.counts = resp.Status, counts
		if err := b.write(journalRec{Op: "state", Batch: bt.local, Status: resp.Status, Counts: &counts}); err != nil {
			b.die(err)
			return false
		}
		b.progress()
	}
	if !batchFinal[resp.Status] {
		return true
	}
	if !b.step("download") {
		return false
	}
	// Each file is spooled to disk and checked whole before any line is
	// used: a file that does not parse was garbled on the way (a proxy's
	// error page, a cut-off body), and reading what parses and sending
	// the rest again would pay twice for requests that ran. It is
	// downloaded again, under the down rule.
	x := newResultIndex()
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, id := range []*string{resp.OutputFileID, resp.ErrorFileID} {
		if id == nil || *id == "" {
			continue
		}
		f, unparsable, err := b.download(ctx, *id, bt, x)
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			// Try again at the next poll; the file stays on the provider.
			// A file that arrives but never parses, while the provider
			// answers every poll, would be fetched for ever: after
			// retry.max_attempts such downloads the wait ends pending.
			b.c.log.Warn("llm batch download failed", "endpoint", b.c.ep.Name, "batch", bt.id, "error", err)
			if unparsable || !KindOf(err).Retryable() {
				if bt.unreadable++; bt.unreadable >= b.c.ep.Retry.MaxAttempts {
					b.stopPending(fmt.Sprintf("giving batch %s's results unreadable %d times (%v)", bt.id, bt.unreadable, err))
					return false
				}
			}
			return true
		}
		files = append(files, f)
	}
	if !b.step("downloaded") {
		return false
	}
	if x.unmatched > 0 {
		b.c.log.Warn("llm batch: result lines name requests the batch did not hold; the requests without a line are charged at their reservation",
			"endpoint", b.c.ep.Name, "batch", bt.id, "lines", x.unmatched, "their_prompt_tokens", x.unmatchedUsage.PromptTokens,
			"their_completion_tokens", x.unmatchedUsage.CompletionTokens)
	}
	first := true
	for _, f := range files {
		err := scanResults(f, func(_ int, l resultLine) error {
			q, e := bt.reqs[l.CustomID], x.byID[l.CustomID]
			if q == nil || e == nil || e.done {
				return nil // not ours, or read already
			}
			e.done = true
			b.mu.Lock() // q's caller fills in its validation
			var o outcome
			if e.conflict {
				o = e.conflicting(resp.ID, l.CustomID)
				b.c.log.Warn("llm batch: conflicting result lines for one request; none is used", "endpoint", b.c.ep.Name,
					"batch", resp.ID, "tag", q.tag, "lines", e.lines)
			} else {
				o = b.read(l, q)
				if len(e.bodies) > 1 && o.billing != usageNone {
					o.usage = e.usage // the same answer run more than once: each run is billed
				}
			}
			b.resolveLocked(q, o)
			b.mu.Unlock()
			if first {
				first = false
				if !b.step("resolved") {
					return errStepAbandoned
				}
			}
			return nil
		})
		if errors.Is(err, errStepAbandoned) {
			return false
		}
		if err != nil {
			b.die(fmt.Errorf("batch %s: reading its spooled results: %w", bt.id, err))
			return false
		}
	}
	missing := missingResult(resp, x.unmatched, len(x.byID))
	b.mu.Lock()
	for k, q := range bt.reqs {
		if e := x.byID[k]; e == nil || !e.done {
			b.resolveLocked(q, missing)
		}
	}
	b.removeBatch(bt)
	b.prog.InProgress--
	b.prog.Done++
	b.mu.Unlock()
	if err := b.write(journalRec{Op: "done", Batch: bt.local, Status: resp.Status, Output: deref0(resp.OutputFileID), Errors: deref0(resp.ErrorFileID)}); err != nil {
		b.die(err)
		return false
	}
	b.progress()
	return true
}

func deref0(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// batchFailure is the outcome of the requests of a batch that failed: its
// input was refused (or the provider's queue of tokens was full) and
// nothing ran, so nothing was billed.
func batchFailure(resp openai.BatchResponse) outcome {
	msg := "batch " + resp.ID + " " + resp.Status + " without a result for the request"
	kind := KindServer
	if resp.Status == "expired" {
		kind = KindTimeout
	}
	if resp.Status == "failed" && resp.Errors != nil && len(resp.Errors.Data) > 0 {
		e := resp.Errors.Data[0]
		msg = fmt.Sprintf("batch %s failed: %s: %s", resp.ID, e.Code, e.Message)
		if e.Code != "token_limit_exceeded" {
			// The input was refused: sending it again fails the same way.
			kind = KindBadRequest
		}
	}
	return outcome{kind: kind, msg: msg, billing: usageNone}
}

// read classifies one result line exactly as an online reply: the status,
// the error envelope, the completion and its validation.
func (b *batcher) read(l resultLine, q *breq) outcome {
	c := b.c
	o := outcome{billing: usageNone, sent: true}
	switch {
	case l.Response == nil && l.Error != nil:
		o.kind, o.msg = KindServer, l.Error.Code+": "+l.Error.Message
		switch l.Error.Code {
		case "batch_expired", "request_timeout":
			o.kind = KindTimeout
		}
		return o
	case l.Response == nil:
		o.kind, o.msg = KindMalformed, "result line has neither response nor error"
		return o
	}
	o.status = l.Response.StatusCode
	if o.status < 200 || o.status > 299 {
		o.kind, o.msg = classifyStatus(o.status, l.Response.Body, c.redact)
		return o
	}
	var resp openai.ChatCompletionResponse
	if err := json.Unmarshal(l.Response.Body, &resp); err != nil {
		o.kind, o.msg, o.billing, o.transport = KindMalformed, "reply body is not valid JSON: "+err.Error(), usageUnknown, true
		return o
	}
	validate := q.validate
	if validate == nil {
		validate = func(string, *llmfmt.Logprobs) error { return nil } // checked when a caller reads it from the cache
	}
	return c.completion(o, resp, validate)
}

// resolveLocked settles one request's outcome: a reply is cached and
// given to its callers; a retryable failure goes back to the queue while
// attempts are left; any other failure is given to its callers. Under b.mu.
func (b *batcher) resolveLocked(q *breq, o outcome) {
	c := b.c
	q.batch = nil
	if q.res != nil {
		c.meter.settle(q.res, o.usage, o.billing)
		q.res = nil
	}
	b.settleOrphan(q, o)
	q.used = q.used.Add(o.usage)
	if o.kind == "" {
		reply := cachedReply{Text: o.text, FinishReason: o.finish, Usage: o.usage, Logprobs: o.logprobs, Batch: true}
		if c.cache != nil {
			if err := c.cache.put(q.key, reply); err != nil {
				c.log.Warn("llm cache write failed", "endpoint", c.ep.Name, "error", err)
			}
		}
		var cost float64
		if c.meter != nil {
			cost = c.meter.countIn(c.ep.Name, c.ep.Model, Tally{Calls: 1, Attempts: q.sent}, q.used, true)
		}
		b.prog.Answered++
		b.prog.CostUSD += cost
		if len(q.waiters) == 0 {
			b.finished[q.key] = reply
		}
		for i, ch := range q.waiters {
			r := Response{Text: o.text, FinishReason: o.finish, Usage: q.used, CostUSD: cost, ReplyCostUSD: cost, Attempts: q.sent, CacheKey: q.key, Logprobs: deref(o.logprobs)}
			if i > 0 {
				r.Usage, r.CostUSD, r.ReplyCostUSD = Usage{}, 0, 0 // the first caller carries the call
			}
			ch <- batchResult{resp: r}
		}
		q.waiters = nil
		delete(b.byKey, q.key)
		return
	}
	if o.kind.Retryable() && b.goneDown() {
		// Its batch was never created (an upload that failed as the
		// endpoint went down): nothing ran, nothing is lost; its callers
		// were failed as pending and it goes out again when asked for.
		for _, ch := range q.waiters {
			ch <- batchResult{err: &Error{Kind: KindBatchPending, Endpoint: c.ep.Name, Tag: q.tag, Message: b.downMessage()}}
		}
		q.waiters = nil
		delete(b.byKey, q.key)
		return
	}
	if o.kind.Retryable() && q.sent < c.ep.Retry.MaxAttempts && !b.expired && b.dead == nil && len(q.waiters) > 0 && q.body != nil {
		c.log.LogAttrs(context.Background(), slog.LevelInfo, "llm batch retry", slog.String("endpoint", c.ep.Name),
			slog.String("tag", q.tag), slog.Int("attempt", q.sent), slog.String("kind", string(o.kind)), slog.String("error", c.redact.apply(o.msg)))
		b.queue = append(b.queue, q)
		b.lastAdd = time.Now()
		return
	}
	if c.meter != nil {
		c.meter.countIn(c.ep.Name, c.ep.Model, Tally{Failures: 1, Attempts: q.sent}, q.used, true)
	}
	b.prog.Answered++
	if o.kind.Retryable() && q.body == nil {
		// A resumed request nobody asked for: forgotten; asked for later,
		// it is sent again with its attempts counted.
		delete(b.byKey, q.key)
		return
	}
	for _, ch := range q.waiters {
		ch <- batchResult{err: &Error{Kind: o.kind, Endpoint: c.ep.Name, Tag: q.tag, Status: o.status, Attempts: q.sent,
			Usage: q.used, Message: c.redact.apply(o.msg), Transport: o.transport, live: o.live}}
	}
	q.waiters = nil
	delete(b.byKey, q.key)
}

// settleOrphan settles the reservation a killed process booked for q's
// batch, now that its outcome is known: what the provider reported for a
// reply (at the batch price, what it bills), nothing for an error line or
// a request its finished batch did not run (the provider bills neither,
// and this process settles its own reservations alike), the reservation
// itself for a reply whose usage is unknown. Without it the reservation
// would count at its worst case for ever. The folder's record never drops
// below the bill: the charge is the online rule's for the same outcome,
// and a reservation is settled once (Meter.settleOrphan), only by the
// process that read its request's result, which the journal ties to
// exactly one submission of the request.
func (b *batcher) settleOrphan(q *breq, o outcome) {
	if q.orphan == "" || b.c.meter == nil {
		return
	}
	b.c.meter.settleOrphan(q.orphan, o.usage, o.billing)
	q.orphan = ""
}

func (b *batcher) progress() {
	if b.opts.Progress == nil {
		return
	}
	b.mu.Lock()
	p := b.prog
	b.mu.Unlock()
	b.opts.Progress(p)
}

// control makes one call of the batch API (files, batches) with the
// endpoint's retry rules, and returns the reply body (at most limit bytes;
// 0: maxReplyBytes).
func (c *Client) control(ctx context.Context, what string, limit int64, call func(context.Context) error) ([]byte, error) {
	return c.controlN(ctx, what, limit, c.ep.Retry.MaxAttempts, call)
}

// controlN is control with at most attempts attempts. The calls follow
// the online down rule (Client.health, retry.down_after): each attempt's
// outcome is recorded, an attempt is cut at the end of the down window
// once the endpoint is failing, no retry is made past it, and once the
// endpoint is declared down every call fails at once with the reason. A
// 2xx reply the client cannot read (not the JSON the API sends, a result
// file that does not parse: check) is garbled on the wire and counts as a
// dead proxy does.
func (c *Client) controlN(ctx context.Context, what string, limit int64, attempts int, call func(context.Context) error) ([]byte, error) {
	for try := 1; ; try++ {
		if reason := c.health.downReason(); reason != "" {
			return nil, &Error{Kind: KindNetwork, Endpoint: c.ep.Name, Attempts: try - 1, Message: c.redact.apply(what + ": " + reason)}
		}
		started := c.now()
		timeout := c.health.attemptTimeout(started, c.ep.Limits.Timeout, c.ep.Retry.DownAfter)
		ex := &exchange{limit: limit}
		var actx context.Context
		var cancel context.CancelFunc
		unhang := func() bool { return false }
		if limit > maxReplyBytes {
			// A large result file may take minutes to arrive, but its
			// headers come as soon as any reply's: a provider that sends
			// none within the attempt timeout is as hung as one that
			// never answers a call.
			actx, cancel = c.within(ctx, c.health.attemptTimeout(started, max(c.ep.Limits.Timeout, 10*time.Minute), c.ep.Retry.DownAfter))
			hung := time.AfterFunc(timeout, func() {
				if !ex.answered.Load() {
					cancel()
				}
			})
			unhang = hung.Stop
		} else {
			actx, cancel = c.within(ctx, timeout)
		}
		err := call(withExchange(actx, ex))
		unhang()
		var o outcome
		switch {
		case !ex.sent:
			o.kind, o.msg = KindBadRequest, fmt.Sprint(err)
			if ctx.Err() != nil {
				o.kind = KindCanceled
			}
		case ex.sendErr != nil && ex.status == 0:
			o.kind, o.msg = classifyTransport(ctx, actx, ex.sendErr), ex.sendErr.Error()
		case ex.status < 200 || ex.status > 299:
			o.kind, o.msg = classifyStatus(ex.status, ex.body, c.redact)
			o.retryAfter = retryAfter(ex.header, c.now())
		case ex.sendErr != nil:
			o.kind, o.msg = KindNetwork, "reply cut off: "+ex.sendErr.Error()
		case limit > 0 && (int64(len(ex.body)) > limit || ex.streamed > limit) || limit == 0 && len(ex.body) > maxReplyBytes:
			o.kind, o.msg, o.transport = KindMalformed, "reply larger than its limit", true
		case err != nil:
			o.kind, o.msg, o.transport = KindMalformed, err.Error(), true
		}
		cancel()
		if o.kind == "" {
			c.health.record(c.now(), started, "", false, "", 0, 0) // it answers
			return ex.body, nil
		}
		fail := func(msg string) ([]byte, error) {
			return nil, &Error{Kind: o.kind, Endpoint: c.ep.Name, Status: ex.status, Attempts: try, Message: c.redact.apply(what + ": " + msg), Transport: o.transport}
		}
		delay := backoff(try, c.ep.Retry.BaseDelay, c.ep.Retry.MaxDelay, o.retryAfter)
		if ctx.Err() == nil {
			if down := c.health.record(c.now(), started, o.kind, o.transport, c.redact.apply(what+": "+o.msg), delay, c.ep.Retry.DownAfter); down != "" {
				return fail(down)
			}
		}
		if !o.kind.Retryable() || try >= attempts || ctx.Err() != nil {
			return fail(o.msg)
		}
		if err := c.sleep(ctx, delay); err != nil {
			return nil, &Error{Kind: KindCanceled, Endpoint: c.ep.Name, Message: what + ": " + err.Error(), cause: err}
		}
	}
}
