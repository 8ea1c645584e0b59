package bqsql

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Size caps on single values. One DuckDB function call that builds a huge
// value allocates it outside DuckDB's buffer manager, whose memory_limit
// does not see it, and is not interrupted until it is built
// (REPEAT('x', 2000000000) took 5.9 GB and 133 s under a 5 s timeout,
// issue 25). Where BigQuery caps the value itself, the bridge checks the
// cap before DuckDB builds it and raises BigQuery's error, the query's own
// (executor class runtime); where BigQuery documents no cap, the bound is
// the embedded engine's and the query is unsupported, not charged. The
// engine's worker process bounds what no rule here foresees
// (executor/duckdb).
//
//   - REPEAT, LPAD and RPAD: an output over 1 MB (1,048,576 bytes) is
//     BigQuery's out_of_range error "Output of REPEAT exceeds max allowed
//     output size of 1MB" ("of LPAD/RPAD" for the pads): Google's GoogleSQL
//     compliance tests strings_function_repeat_mem_error,
//     strings_function_lpad_mem_error and strings_function_rpad_mem_error
//     (../shared/zetasql-compliance/testdata/strings.test). The pads are
//     checked on their length argument, in characters, which the output's
//     bytes never undercut; a padding of multi-byte characters whose output
//     passes 1 MB in bytes under 1,048,576 characters is built, where
//     BigQuery would refuse it.
//   - FORMAT: a width or precision over 1,048,576 is "Width N exceeds the
//     maximum supported output width of FORMAT. Limit: 1048576" (GoogleSQL's
//     function library, google/zetasql zetasql/public/functions/format.cc,
//     whose tests pin the message). The format string is a literal (see
//     formatFn), so widths are read when the query is translated; the
//     error is still raised when the call is evaluated, as BigQuery raises
//     it. The library's cap on FORMAT's whole output, and on REPLACE's, are
//     not checked: both outputs grow only with their arguments, which the
//     other caps bound, and a check would name the argument twice (see
//     boundsMacros).
//   - GENERATE_ARRAY: BigQuery documents no element cap (GoogleSQL's
//     reference implementation stops at 16,000 elements, BigQuery does
//     not). An array of more than maxGeneratedElements is past what the
//     embedded engine builds, and the query is unsupported.
//     GENERATE_DATE_ARRAY cannot pass it: BigQuery's dates span 3,652,059
//     days.

// maxOutputBytes is GoogleSQL's 1 MB cap on the output of REPEAT, LPAD,
// RPAD and FORMAT.
const maxOutputBytes = 1 << 20

// maxGeneratedElements is the embedded engine's cap on GENERATE_ARRAY: 80 MB
// of INT64 elements per value, a fraction of the engine's default memory
// limit (2GB) so that a few such values side by side stay within it.
const maxGeneratedElements = 10_000_000

// boundsMacros are the prelude's checks of the caps above. DuckDB expands
// a macro in place, so an argument written k times is copied k^depth times
// in nested calls: each argument here is written as few times as the check
// allows (REPEAT's string three times: NULL in, NULL out, as BigQuery's
// functions are; its bytes counted through hex, which takes STRING and
// BYTES alike; the repeat).
var boundsMacros = `
CREATE OR REPLACE TEMP MACRO bq_repeat(s, n) AS CASE
	WHEN s IS NULL OR n IS NULL THEN NULL
	WHEN n < 0 THEN error('Second argument (repeat count) for REPEAT cannot be negative')
	WHEN n > 0 AND strlen(hex(s)) // 2 > ` + strconv.Itoa(maxOutputBytes) + ` // n
		THEN error('Output of REPEAT exceeds max allowed output size of 1MB')
	ELSE repeat(s, n) END;
CREATE OR REPLACE TEMP MACRO bq_array_cap(a, b, step) AS CASE
	WHEN (CAST(b AS DOUBLE) - CAST(a AS DOUBLE)) / CAST(step AS DOUBLE) >= ` + strconv.Itoa(maxGeneratedElements) + `
		THEN error('GENERATE_ARRAY of more than ` + strconv.Itoa(maxGeneratedElements) + ` elements is not supported by the embedded engine')
	ELSE true END;
`

// generateArray renders GENERATE_ARRAY(start, end[, step]) with the
// element cap checked before DuckDB's generate_series builds the list (a
// zero step is BigQuery's error, bq_nonzero_step). The check is inside the
// end argument: a CASE around the whole call would not do, as DuckDB
// folds the constant generate_series(1, 100000000) in its THEN branch
// while it plans the query, before any check runs.
func generateArray(c *call) string {
	step := "1"
	if len(c.args) == 3 {
		step = "bq_nonzero_step(" + c.arg(2) + ")"
	}
	end := "CASE WHEN bq_array_cap(" + c.arg(0) + ", " + c.arg(1) + ", " + step + ") THEN " + c.arg(1) + " END"
	if len(c.args) == 3 {
		return "generate_series(" + c.arg(0) + ", " + end + ", " + step + ")"
	}
	return "generate_series(" + c.arg(0) + ", " + end + ")"
}

// formatWidth returns BigQuery's error for a FORMAT specifier (its flags,
// width and precision, between "%" and the conversion) whose width or
// precision is over the output cap, or "".
func formatWidth(spec string) string {
	spec = strings.TrimLeft(spec, "-+ #0")
	width, precision, _ := strings.Cut(spec, ".")
	for _, f := range []struct{ what, digits string }{{"Width", width}, {"Precision", precision}} {
		if d := strings.TrimLeft(f.digits, "0"); len(d) > 7 || len(d) == 7 && d > strconv.Itoa(maxOutputBytes) {
			return fmt.Sprintf("%s %s exceeds the maximum supported output width of FORMAT. Limit: %d", f.what, d, maxOutputBytes)
		}
	}
	return ""
}

// boundsRaised finds, in a DuckDB error message, BigQuery's error raised by
// a check above (DuckDB's error() prefixes it "Invalid Input Error: "), and
// boundsLimit the embedded engine's own cap.
var (
	boundsRaised = regexp.MustCompile(`(Output of (?:REPEAT|LPAD/RPAD) exceeds max allowed output size of 1MB|Second argument \(repeat count\) for REPEAT cannot be negative|(?:Width|Precision) \d+ exceeds the maximum supported output width of FORMAT\. Limit: \d+)`)
	boundsLimit  = regexp.MustCompile(`(GENERATE_ARRAY of more than \d+ elements is not supported by the embedded engine)`)
)

// explainBounds is Explain for the checks above: BigQuery's message, or
// the engine's limit (unsupported); ok is false for any other message.
func explainBounds(msg string) (out string, unsupported, ok bool) {
	if m := boundsLimit.FindStringSubmatch(msg); m != nil {
		return ErrUnsupported.Error() + ": " + m[1], true, true
	}
	if m := boundsRaised.FindStringSubmatch(msg); m != nil {
		return m[1], false, true
	}
	return "", false, false
}
