package bqsql

import (
	"errors"
	"fmt"
	"strings"
)

// ErrorKind says why Translate refused a query.
type ErrorKind uint8

const (
	// KindInvalid: BigQuery itself would reject the query (syntax error,
	// unknown function, type mismatch it checks at analysis). The engine
	// reports it as executor.ClassSyntax: the model's fault.
	KindInvalid ErrorKind = iota + 1
	// KindUnsupported: valid BigQuery that the embedded engine cannot run
	// with BigQuery's exact semantics. The engine reports it as
	// executor.ClassUnsupported: not the model's fault.
	KindUnsupported
)

// Sentinels for errors.Is: every *Error matches exactly one of them.
var (
	// ErrInvalid matches errors for queries BigQuery would reject.
	ErrInvalid = errors.New("invalid BigQuery SQL")
	// ErrUnsupported matches errors for valid BigQuery the embedded engine
	// cannot reproduce faithfully.
	ErrUnsupported = errors.New("unsupported in the embedded engine")
)

// Error is a translation failure located in the BigQuery source.
type Error struct {
	Kind ErrorKind
	// Msg is worded like BigQuery's own message where one exists, since it
	// is shown to models in refinement prompts.
	Msg       string
	Line, Col int // 1-based position in the input, 0 when unknown
	// cause is the context error of an interrupted translation.
	cause error
}

// Unwrap gives the context error of an interrupted translation, so that
// errors.Is(err, context.DeadlineExceeded) holds.
func (e *Error) Unwrap() error { return e.cause }

// interrupted is the error of a translation stopped by its context: not
// the query's fault, so unsupported unless the engine calls it a timeout.
func interrupted(cause error) *Error {
	return &Error{Kind: KindUnsupported, Msg: "translation interrupted: " + cause.Error(), cause: cause}
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Kind == KindUnsupported {
		b.WriteString("unsupported in the embedded engine: ")
	}
	b.WriteString(e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(&b, " at [%d:%d]", e.Line, e.Col)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) and errors.Is(err, ErrUnsupported) work.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrInvalid:
		return e.Kind == KindInvalid
	case ErrUnsupported:
		return e.Kind == KindUnsupported
	}
	return false
}

// Unsupported reports whether the embedded engine, not the query, is at
// fault; executor/duckdb classifies errors by this method.
func (e *Error) Unsupported() bool { return e.Kind == KindUnsupported }

// errAt builds an *Error positioned at byte offset pos of src.
func errAt(src string, pos int, kind ErrorKind, format string, args ...any) *Error {
	e := &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
	if pos >= 0 && pos <= len(src) {
		e.Line = 1 + strings.Count(src[:pos], "\n")
		e.Col = 1 + pos - (strings.LastIndexByte(src[:pos], '\n') + 1)
	}
	return e
}

// goFunctionMark starts the message of an error one of the bridge's Go
// functions (CAST … FORMAT, time zone conversion, FARM_FINGERPRINT) raises
// on a value. DuckDB reports it wrapped in the driver's words
// ("database/sql/driver: API error: …"), as it reports the engine's own
// result filter failing; Explain recognises the mark and gives BigQuery's
// message, so the engine charges the query (run time), not itself.
const goFunctionMark = "BigQuery error: "

// goFunctionError marks err (see goFunctionMark). The bridge's own limits
// (errCastFormatLimit) are left as they are: Explain reports them
// unsupported.
func goFunctionError(err error) error {
	var limit errCastFormatLimit
	if err == nil || errors.As(err, &limit) {
		return err
	}
	return errors.New(goFunctionMark + err.Error())
}
