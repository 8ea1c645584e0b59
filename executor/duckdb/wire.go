package duckdb

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math/big"
	"time"

	"cloud.google.com/go/civil"
	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/clinsql/clinsql/executor"
)

// The worker's pipe carries frames: a 4-byte big-endian length, then that
// many bytes of one gob-encoded message. A reader refuses a frame longer
// than its limit before allocating it, so a result can never be larger in
// transit than the result caps allow (frameLimit).

// Operations a request asks for.
const (
	opCheck  = 1 // checkSelects(SQL, Script): is it exactly one SELECT (or, with Script, SELECTs only)?
	opRun    = 2 // prepare Checks, then run SQL (after Redefine, when set)
	opCancel = 3 // stop request ID (its context is cancelled)
)

// request is one message from the parent to its worker.
type request struct {
	ID       uint64
	Op       int
	SQL      string
	Checks   []string
	Redefine string
	// Script lets opCheck pass several SELECT statements (see
	// Options.Shape).
	Script bool
	// Timeout is the time the query has left; the worker interrupts it
	// then, and the parent kills the worker if it has not answered soon
	// after (killGrace).
	Timeout time.Duration
}

// response answers one request. Exactly one of Result and Err is set for
// opCheck and opRun (Result is nil for a check that passed).
type response struct {
	ID     uint64
	Result *wireResult
	Err    *wireError
}

// wireResult is an executor.Result without what the parent fills in itself
// (the duration, warnings).
type wireResult struct {
	Columns    []executor.Column
	Rows       [][]any
	Truncated  bool
	TotalRows  int64
	ByteCapped bool
}

// Kinds of wireError: the error types the parent's classify tells apart.
const (
	errOther       = 0
	errRefusal     = 1
	errUnsupported = 2
	errDuck        = 3
	errBadConn     = 4 // the connection could not be restored (relaxed)
)

// wireError is a failure of a request, as the parent's classify needs it.
type wireError struct {
	Kind int
	Type int // duck.ErrorType, for errDuck
	Msg  string
}

// maxErrorBytes bounds an error message sent back: DuckDB quotes the query
// in some messages, and model SQL is untrusted.
const maxErrorBytes = 64 << 10

func encodeError(err error) *wireError {
	var ref *refusal
	var uns *unsupported
	var de *duck.Error
	w := &wireError{Kind: errOther, Msg: err.Error()}
	switch {
	case errors.As(err, &ref):
		w.Kind, w.Msg = errRefusal, ref.msg
	case errors.As(err, &uns):
		w.Kind, w.Msg = errUnsupported, uns.msg
	case errors.Is(err, driver.ErrBadConn):
		w.Kind = errBadConn
	case errors.As(err, &de):
		w.Kind, w.Type, w.Msg = errDuck, int(de.Type), de.Msg
	}
	if len(w.Msg) > maxErrorBytes {
		w.Msg = w.Msg[:maxErrorBytes] + " …"
	}
	return w
}

func (w *wireError) decode() error {
	switch w.Kind {
	case errRefusal:
		return &refusal{w.Msg}
	case errUnsupported:
		return &unsupported{w.Msg}
	case errDuck:
		return &duck.Error{Type: duck.ErrorType(w.Type), Msg: w.Msg}
	case errBadConn:
		return fmt.Errorf("%s: %w", w.Msg, errBadConnection)
	}
	return errors.New(w.Msg)
}

// errBadConnection marks a connection that relaxed could not restore: the
// query's failure is then the engine's.
var errBadConnection = errors.New("connection discarded")

func init() {
	// The concrete types of executor values (see package executor), under
	// short names: gob sends the name with every value held in an
	// interface. (It knows the basic types, int64 to []byte, already.)
	for name, v := range map[string]any{"n": new(big.Rat), "d": civil.Date{}, "dt": civil.DateTime{},
		"t": civil.Time{}, "ts": time.Time{}, "a": []any(nil), "st": executor.Struct(nil)} {
		gob.RegisterName(name, v)
	}
}

// frameLimit bounds a response frame: the rows kept are within the byte
// cap as executor.RowBytes counts them (8 bytes for any scalar), and gob
// spends at most a few times that on a value (its type name, length and
// encoding; a NUMERIC's exact fraction is the largest).
func frameLimit(maxResultBytes int64) int64 {
	return 8*maxResultBytes + 1<<20
}

// writeFrame writes msg as one frame.
func writeFrame(w io.Writer, msg any) error {
	b, err := encodeFrame(msg)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// encodeFrame returns msg as one frame.
func encodeFrame(msg any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(make([]byte, 4))
	if err := gob.NewEncoder(&buf).Encode(msg); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b)-4 > 1<<31-1 {
		return nil, fmt.Errorf("message of %d bytes is too large for a frame", len(b)-4)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b, nil
}

// errFrameTooLarge is returned by readFrame for a frame over its limit.
var errFrameTooLarge = errors.New("frame over its limit")

// readFrame reads one frame of at most limit bytes into msg.
func readFrame(r io.Reader, limit int64, msg any) error {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	n := int64(binary.BigEndian.Uint32(head[:]))
	if n > limit {
		return fmt.Errorf("%w: %d bytes, the limit is %d", errFrameTooLarge, n, limit)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return err
	}
	return gob.NewDecoder(bytes.NewReader(b)).Decode(msg)
}
