package executor

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Executor runs a single read-only query. Implementations must be safe for
// concurrent use and must stop the query (on the server, where there is one)
// when ctx is done.
type Executor interface {
	// Name is the engine's name as used on the command line ("duckdb",
	// "bigquery", "sqlite").
	Name() string
	// Query runs sql and returns its result, or an *Error.
	Query(ctx context.Context, sql string) (*Result, error)
	Close() error
}

// Limits bound one query. Engines apply the fields they support and document
// the rest; a zero field means the engine's default, never "unlimited".
type Limits struct {
	Timeout        time.Duration // wall time per query
	MaxRows        int           // rows kept in Result.Rows; more are counted, not kept
	MaxBytesBilled int64         // BigQuery only
	// MaxResultBytes bounds the bytes of the rows kept in Result.Rows (as
	// counted by RowBytes), enforced while rows are read: the row that would
	// cross it and every later one are counted, not kept. It bounds memory
	// and the result CSV whatever the row count (3,000 rows of 1 MB each are
	// within any row cap). Zero means DefaultMaxResultBytes.
	MaxResultBytes int64
}

// DefaultMaxResultBytes is the default of Limits.MaxResultBytes: 32 MiB. The
// largest gold result of the ClinSQL validation split is 1,991 bytes of CSV
// and the largest result of the 16 released model runs 1,882,887 bytes
// (TestDefaultMaxResultBytes measures both): the cap is over 10,000 times the
// first and over 16 times the second, so no released result would be cut,
// while a runaway query is stopped at a size every caller can hold.
const DefaultMaxResultBytes int64 = 32 << 20

// ResultBytes returns max, or DefaultMaxResultBytes when max is not positive.
func ResultBytes(max int64) int64 {
	if max <= 0 {
		return DefaultMaxResultBytes
	}
	return max
}

// RowBytes estimates the bytes one row holds (about its CSV text): strings
// and bytes by length, other scalars by a fixed 8, arrays and structs by
// their elements, plus one per value for the separator. It is what
// Limits.MaxResultBytes counts, the same way in every engine.
func RowBytes(row []any) int64 {
	var n int64
	for _, v := range row {
		n += valueBytes(v) + 1
	}
	return n
}

func valueBytes(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	case []any:
		return RowBytes(x) + 2
	case Struct:
		var n int64 = 2
		for _, f := range x {
			n += int64(len(f.Name)) + valueBytes(f.Value) + 3
		}
		return n
	case map[string]any: // a driver's STRUCT, before conversion
		var n int64 = 2
		for k, v := range x {
			n += int64(len(k)) + valueBytes(v) + 3
		}
		return n
	}
	return 8
}

// Type is a column type in BigQuery's vocabulary (INT64, FLOAT64, NUMERIC,
// BIGNUMERIC, BOOL, STRING, BYTES, DATE, DATETIME, TIME, TIMESTAMP, INTERVAL,
// JSON, ARRAY<...>, STRUCT<...>), whatever the engine.
type Type string

// Column is one result column.
type Column struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
}

// StructField is one named field of a STRUCT value.
type StructField struct {
	Name  string
	Value any
}

// Struct is a STRUCT value: fields in declaration order.
type Struct []StructField

// Result is what a query returned.
type Result struct {
	Columns []Column
	Rows    [][]any // len(Rows) <= Limits.MaxRows
	// Truncated reports that the row cap or the byte cap dropped rows.
	// TotalRows is then the true row count, or -1 when the engine stopped
	// reading without knowing it.
	Truncated bool
	TotalRows int64
	// ByteCapped reports that the byte cap (Limits.MaxResultBytes), rather
	// than the row cap, dropped rows.
	ByteCapped bool
	Stats      Stats
	// Warnings say where the result may differ from what the dialect's own
	// engine would have returned on the same data (the embedded engine on a
	// sample database: a division by zero given NULL instead of raised).
	Warnings []string
}

// Stats describes the cost of one query. Fields an engine cannot know are zero.
type Stats struct {
	Duration       time.Duration `json:"duration_ns"`
	BytesEstimated int64         `json:"bytes_estimated,omitempty"` // dry-run estimate
	BytesProcessed int64         `json:"bytes_processed,omitempty"`
	BytesBilled    int64         `json:"bytes_billed,omitempty"`
	SlotMillis     int64         `json:"slot_millis,omitempty"`
	CacheHit       bool          `json:"cache_hit,omitempty"`
	JobID          string        `json:"job_id,omitempty"`
}

// Class says why a query failed, and so whose failure it is.
type Class string

const (
	// ClassSyntax: rejected before running (parse error, unknown table or
	// column, type error at analysis). The model's error.
	ClassSyntax Class = "syntax_error"
	// ClassRuntime: failed while running (division by zero, bad cast). The
	// model's error.
	ClassRuntime Class = "runtime_error"
	// ClassTimeout: exceeded Limits.Timeout and was stopped. The model's error.
	ClassTimeout Class = "timeout"
	// ClassBytesLimit: over Limits.MaxBytesBilled, refused before it ran or
	// stopped by the engine. The model's error.
	ClassBytesLimit Class = "bytes_limit"
	// ClassRowLimit: the engine could not honour the row cap by truncation.
	// The model's error.
	ClassRowLimit Class = "row_limit"
	// ClassRefused: not exactly one read-only SELECT/WITH statement (DDL, DML,
	// ATTACH, several statements). The model's error.
	ClassRefused Class = "refused"
	// ClassUnsupported: valid for the target dialect but not reproducible
	// faithfully by this engine. Not the model's error.
	ClassUnsupported Class = "unsupported"
	// ClassInfra: authentication, quota, rate limit, network, server error,
	// client crash. Never the model's error; retried by callers.
	ClassInfra Class = "infra_error"
)

// ModelFault reports whether a failure of this class is charged to the SQL.
func (c Class) ModelFault() bool {
	switch c {
	case ClassUnsupported, ClassInfra:
		return false
	}
	return true
}

// Error is a classified query failure.
type Error struct {
	Class  Class
	Engine string
	// Message is the engine's message, as a model would be shown it in a
	// refinement prompt. It never contains credentials.
	Message string
	Err     error // underlying error, may be nil
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Engine, e.Class, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// ClassOf returns the class of err: its *Error's class, ClassTimeout for a
// context deadline, ClassInfra otherwise.
func ClassOf(err error) Class {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Class
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	}
	return ClassInfra
}

// Keeper decides, while an engine reads rows, which rows a Result keeps: a
// prefix of the rows, up to the row cap and the byte cap. Once a row is not
// kept no later row is, so the kept rows are always the result's first rows.
type Keeper struct {
	maxRows  int
	maxBytes int64
	rows     int
	bytes    int64
	full     bool
	byBytes  bool
}

// NewKeeper returns a Keeper for maxRows rows (at least one is kept when
// positive) and maxBytes bytes (zero: DefaultMaxResultBytes).
func NewKeeper(maxRows int, maxBytes int64) *Keeper {
	return &Keeper{maxRows: maxRows, maxBytes: ResultBytes(maxBytes)}
}

// Full reports that no further row will be kept: callers count the rest
// without converting them.
func (k *Keeper) Full() bool { return k.full || k.rows >= k.maxRows }

// Keep reports whether row is kept, and counts its bytes if so. A row that
// would take the kept bytes over the cap is not kept, nor any after it.
func (k *Keeper) Keep(row []any) bool {
	if k.Full() {
		return false
	}
	return k.KeepSize(RowBytes(row))
}

// KeepSize is Keep for a row of n bytes (as RowBytes counts them), for
// engines that can size a row before they copy its values.
func (k *Keeper) KeepSize(n int64) bool {
	if k.Full() {
		return false
	}
	if k.bytes+n > k.maxBytes {
		k.full, k.byBytes = true, true
		return false
	}
	k.rows++
	k.bytes += n
	return true
}

// ByteCapped reports that the byte cap refused a row.
func (k *Keeper) ByteCapped() bool { return k.byBytes }

// Finish records the outcome in res: the true row count total, whether rows
// were dropped, and whether by the byte cap.
func (k *Keeper) Finish(res *Result, total int64) {
	res.TotalRows = total
	res.Truncated = total > int64(len(res.Rows))
	res.ByteCapped = res.Truncated && k.byBytes
}

// TruncationNote says which cap cut a truncated result (--max-rows or
// --max-result-bytes) and how much of it is kept.
func (r *Result) TruncationNote() string {
	total := "an unknown number of"
	if r.TotalRows >= 0 {
		total = fmt.Sprint(r.TotalRows)
	}
	if r.ByteCapped {
		return fmt.Sprintf("result truncated to its first %d of %s rows: the rows kept reached the byte cap (--max-result-bytes)", len(r.Rows), total)
	}
	return fmt.Sprintf("result truncated to %d of %s rows (--max-rows)", len(r.Rows), total)
}
