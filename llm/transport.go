package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// maxReplyBytes bounds a reply body; a larger one is treated as malformed.
const maxReplyBytes = 32 << 20

// exchange records what happened on the wire during one attempt. go-openai
// hides the status and headers of failed requests and decodes bodies with a
// streaming decoder; the client needs Retry-After and the exact body to
// classify a failure, so the HTTP doer fills this in.
type exchange struct {
	// patch holds top-level body fields to set before sending: go-openai
	// drops zero-valued sampling fields (omitempty), so an explicit
	// temperature 0 is written into the body here.
	patch map[string]any

	sent bool // the request went to the transport
	// wrote: the whole request was written to the connection, so the
	// provider may have processed (and billed) it even if no reply came.
	wrote atomic.Bool
	// answered: the reply's headers arrived.
	answered atomic.Bool
	status   int
	header   http.Header
	body     []byte
	sendErr  error // from sending the request or reading the reply
	// limit bounds the reply body (0: maxReplyBytes); batch result files
	// are larger than any one reply.
	limit int64
	// sink, if set, receives a 2xx reply's body (at most limit+1 bytes)
	// as it arrives instead of body: a batch result file is written to
	// disk, never held in memory. streamed counts the bytes written.
	sink     io.Writer
	streamed int64
}

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// doer is the go-openai HTTPDoer: an http.Client plus body patching and
// capture of the exchange.
type doer struct{ hc *http.Client }

func (d doer) Do(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return nil, errors.New("llm: request without exchange")
	}
	if len(ex.patch) > 0 && req.Body != nil {
		if err := patchBody(req, ex.patch); err != nil {
			ex.sendErr = err
			return nil, err
		}
	}
	ex.sent = true
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				ex.wrote.Store(true)
			}
		},
	}))
	resp, err := d.hc.Do(req)
	if err != nil {
		ex.sendErr = err
		return nil, err
	}
	ex.answered.Store(true)
	defer resp.Body.Close()
	limit := ex.limit
	if limit == 0 {
		limit = maxReplyBytes
	}
	ex.status, ex.header = resp.StatusCode, resp.Header
	if ex.sink != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		n, err := io.Copy(ex.sink, io.LimitReader(resp.Body, limit+1))
		ex.streamed = n
		if err != nil {
			ex.sendErr = err
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp, nil
	}
	if ex.sink != nil {
		limit = maxReplyBytes // an error page, not the file
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	ex.body = body
	if err != nil {
		ex.sendErr = err
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

func patchBody(req *http.Request, patch map[string]any) error {
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		return err
	}
	_ = req.Body.Close()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("patch request body: %w", err)
	}
	for k, v := range patch {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("patch request body: %w", err)
		}
		fields[k] = b
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(out))
	req.ContentLength = int64(len(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	return nil
}

// retryAfter reads the server's requested wait: "retry-after-ms" (sent by
// OpenAI and Azure, milliseconds), else "Retry-After" as seconds or an
// HTTP-date. Zero means none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
