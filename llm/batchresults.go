package llm

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	openai "github.com/sashabaranov/go-openai"
)

// A finished batch's result files are read in two passes over copies
// spooled on disk (the folder's disk, no name: see safefile.Dir.Spool),
// one line in memory at a time. The first pass, as each file arrives,
// checks that every line parses and indexes what the lines say per
// request of the batch; only once every file has arrived whole does the
// second pass give each request its outcome. So memory is one line plus
// one small entry per request, whatever the file's size, and a file
// garbled on the way is fetched again before any of it is used.

// maxResultLine bounds one line of a result file: a reply (at most
// maxReplyBytes) in its envelope.
const maxResultLine = maxReplyBytes + 64<<10

// resultIndex is what a batch's result files say, per request of the
// batch.
type resultIndex struct {
	byID map[string]*resultEntry
	// unmatched counts the lines whose custom_id the batch did not hold;
	// unmatchedUsage is the usage they report.
	unmatched      int
	unmatchedUsage Usage
}

// resultEntry is what the lines for one request say.
type resultEntry struct {
	lines int
	// meaning is a digest of what the first line answers (status, text,
	// finish reason, log-probabilities, error); conflict is set when a
	// later line answers something else.
	meaning  [32]byte
	conflict bool
	// bodies are the distinct response bodies (each a run of the request
	// the provider bills) and their usage; usage is the sum.
	bodies map[[32]byte]Usage
	usage  Usage
	done   bool // given to the request (second pass)
}

func newResultIndex() *resultIndex { return &resultIndex{byID: map[string]*resultEntry{}} }

// add indexes one line; ours says whether the batch holds its custom_id.
func (x *resultIndex) add(l resultLine, ours bool) {
	u := lineUsage(l)
	if !ours {
		x.unmatched++
		x.unmatchedUsage = x.unmatchedUsage.Add(u)
		return
	}
	m := lineMeaning(l)
	e := x.byID[l.CustomID]
	if e == nil {
		e = &resultEntry{meaning: m, bodies: map[[32]byte]Usage{}}
		x.byID[l.CustomID] = e
	}
	e.lines++
	if m != e.meaning {
		e.conflict = true
	}
	if l.Response != nil {
		d := sha256.Sum256(compactJSON(l.Response.Body))
		if _, seen := e.bodies[d]; !seen {
			e.bodies[d] = u
			e.usage = e.usage.Add(u)
		}
	}
}

// merge adds the index of another file of the same batch.
func (x *resultIndex) merge(o *resultIndex) {
	x.unmatched += o.unmatched
	x.unmatchedUsage = x.unmatchedUsage.Add(o.unmatchedUsage)
	for id, oe := range o.byID {
		e := x.byID[id]
		if e == nil {
			x.byID[id] = oe
			continue
		}
		e.lines += oe.lines
		e.conflict = e.conflict || oe.conflict || e.meaning != oe.meaning
		for d, u := range oe.bodies {
			if _, seen := e.bodies[d]; !seen {
				e.bodies[d] = u
				e.usage = e.usage.Add(u)
			}
		}
	}
}

// conflicting is the outcome of a request whose lines disagree: no reply
// (taking either would choose a verdict), retried as a bad reply is, and
// charged at its reservation or at the usage its lines report if that is
// more (the provider ran it, maybe more than once).
func (e *resultEntry) conflicting(batch, id string) outcome {
	return outcome{kind: KindMalformed, sent: true, billing: usageUnknown, usage: e.usage,
		msg: fmt.Sprintf("batch %s returned %d result lines for the request (custom_id %.12s...) that disagree; none of them is used", batch, e.lines, id)}
}

// missingResult is the outcome of a request a finished batch has no line
// for; matched counts the batch's requests that have one. A failed batch
// ran nothing (batchFailure). An expired or cancelled batch stopped before
// running some requests, which may have no line: when every line names a
// request of the batch and they are at least as many as the requests the
// batch reports run (request_counts completed + failed), those without a
// line did not run and cost nothing. Otherwise, and for a completed batch
// (which ran every request), a request without a line was sent and its
// reply lost (its custom_id altered, its line dropped): it is charged at
// its reservation and sent again only as the retry rules and the budget
// allow, never as if it had cost nothing.
func missingResult(resp openai.BatchResponse, unmatched, matched int) outcome {
	if resp.Status == "failed" {
		return batchFailure(resp)
	}
	kind := KindMalformed
	switch resp.Status {
	case "expired":
		kind = KindTimeout
	case "cancelled":
		kind = KindServer
	}
	ran := resp.RequestCounts.Completed + resp.RequestCounts.Failed
	if kind != KindMalformed && unmatched == 0 && matched >= ran {
		return outcome{kind: kind, msg: fmt.Sprintf("batch %s %s before the request ran", resp.ID, resp.Status), billing: usageNone}
	}
	msg := fmt.Sprintf("batch %s %s without a result line for the request", resp.ID, resp.Status)
	if unmatched > 0 {
		msg += fmt.Sprintf(" (%d of its result lines name requests it did not hold)", unmatched)
	}
	msg += "; charged at its reservation, as the provider may have run it"
	return outcome{kind: kind, msg: msg, sent: true, billing: usageUnknown}
}

// lineMeaning digests what a line answers: two lines with the same
// meaning give the same reply (whatever their ids, request ids or
// usage), two with different meanings give different ones.
func lineMeaning(l resultLine) [32]byte {
	h := sha256.New()
	switch {
	case l.Response != nil:
		fmt.Fprintf(h, "status %d\n", l.Response.StatusCode)
		var body struct {
			Choices []struct {
				Message struct {
					Content   string          `json:"content"`
					Refusal   string          `json:"refusal"`
					ToolCalls json.RawMessage `json:"tool_calls"`
				} `json:"message"`
				FinishReason string          `json:"finish_reason"`
				Logprobs     json.RawMessage `json:"logprobs"`
			} `json:"choices"`
		}
		if l.Response.StatusCode/100 == 2 && json.Unmarshal(l.Response.Body, &body) == nil {
			enc, _ := json.Marshal(body.Choices) // RawMessages compacted
			h.Write(enc)
		} else {
			h.Write(compactJSON(l.Response.Body))
		}
	case l.Error != nil:
		fmt.Fprintf(h, "error %q %q", l.Error.Code, l.Error.Message)
	default:
		h.Write([]byte("neither"))
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// lineUsage is the usage a successful line reports.
func lineUsage(l resultLine) Usage {
	if l.Response == nil || l.Response.StatusCode/100 != 2 {
		return Usage{}
	}
	var body struct {
		Usage Usage `json:"usage"`
	}
	if json.Unmarshal(l.Response.Body, &body) != nil || body.Usage.PromptTokens < 0 || body.Usage.CompletionTokens < 0 {
		return Usage{}
	}
	return body.Usage
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// errStepAbandoned stops a scan when a Step hook abandoned the client.
var errStepAbandoned = errors.New("abandoned at a step")

// scanResults calls fn with every line of the result file f, from its
// start, one line in memory at a time (each at most maxResultLine bytes);
// blank lines are skipped. It stops at fn's first error, or at a line that
// does not parse (the error names it).
func scanResults(f *os.File, fn func(line int, l resultLine) error) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		raw, err := readLine(br, maxResultLine)
		if err == io.EOF && len(bytes.TrimSpace(raw)) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l resultLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		if err := fn(n, l); err != nil {
			return err
		}
		if err == io.EOF {
			return nil
		}
	}
}

// download fetches the result file id of bt into a spool file and adds
// its lines to x once the whole file has arrived and parsed. unparsable
// reports a file that arrived but does not parse (garbled on the way).
func (b *batcher) download(ctx context.Context, id string, bt *bbatch, x *resultIndex) (f *os.File, unparsable bool, err error) {
	f, err = b.dir.Spool(BatchJournalName(b.c.ep) + ".results")
	if err != nil {
		return nil, false, fmt.Errorf("spool batch results in %s: %w", b.dir.Path(), err)
	}
	var local *resultIndex
	_, err = b.c.control(ctx, "download batch results", maxBatchFileBytes, func(ctx context.Context) error {
		if err := f.Truncate(0); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if ex, ok := ctx.Value(exchangeKey{}).(*exchange); ok {
			ex.sink = f
		}
		raw, err := b.c.api.GetFileContent(ctx, id)
		if err != nil {
			return err
		}
		raw.Close() // empty: the body went to f
		local = newResultIndex()
		if err := scanResults(f, func(_ int, l resultLine) error {
			local.add(l, bt.reqs[l.CustomID] != nil)
			return nil
		}); err != nil {
			unparsable = true
			return fmt.Errorf("result file %s unreadable: %w", id, err)
		}
		return nil
	})
	if err != nil {
		f.Close()
		return nil, unparsable, err
	}
	x.merge(local)
	return f, false, nil
}
