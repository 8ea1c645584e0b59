package bqsql

import (
	"fmt"
	"strconv"
	"strings"
)

// The catalogue of BigQuery's functions, apart from the translation rules
// (funcs): what BigQuery accepts, so that a call is blamed right. A call
// BigQuery would reject (wrong argument count, SAFE. on a function without a
// SAFE form) is the model's error, in BigQuery's words; a call BigQuery
// accepts but no rule translates is unsupported, naming the construct. The
// rules may cover less than a signature (funcs' min and max); never more
// (TestRulesWithinSignatures).

// fnKind is what a function is called as.
type fnKind uint8

const (
	scalarFn    fnKind = iota
	aggregateFn        // may also be called with OVER
	analyticFn         // only with OVER
)

// signature is one BigQuery function's calling convention.
type signature struct {
	kind     fnKind
	min, max int // argument counts (max < 0: any number)
	// result is the result type as BigQuery's reference gives it: a type
	// name, or T (the first argument's type), TEXT (STRING or BYTES, as
	// the first argument: the string functions), SUPER (the arguments'
	// common supertype), ELEM (the array argument's element type).
	result string
}

// noSafeForm are the names SAFE. cannot prefix: syntax that looks like a
// call (CAST … AS, EXTRACT … FROM, the ARRAY and STRUCT constructors).
// Every other function, aggregate and analytic ones too, has a SAFE. form
// (the GoogleSQL compliance tests call SAFE.SUM with and without OVER).
var noSafeForm = wordSet(`CAST SAFE_CAST EXTRACT ARRAY STRUCT`)

// safeForm reports whether SAFE.<name>(…) is valid.
func safeForm(name string) bool { return !noSafeForm[name] }

// text reports whether the function returns a STRING or BYTES.
func (s signature) text() bool {
	return s.result == "STRING" || s.result == "BYTES" || s.result == "TEXT"
}

func (s signature) accepts(n int) bool { return n >= s.min && (s.max < 0 || n <= s.max) }

// signatureTable lists, one per line, NAME KIND ARGS RESULT: KIND is
// scalar, aggregate or analytic; ARGS is n, n-m or n+ (at least n). From
// BigQuery's function reference (GoogleSQL for BigQuery).
const signatureTable = `
ABS scalar 1 T
ACOS scalar 1 FLOAT64
ACOSH scalar 1 FLOAT64
ANY_VALUE aggregate 1 T
APPROX_COUNT_DISTINCT aggregate 1 INT64
APPROX_QUANTILES aggregate 2 ARRAY
APPROX_TOP_COUNT aggregate 2 ARRAY
APPROX_TOP_SUM aggregate 3 ARRAY
ARRAY scalar 0+ ARRAY
ARRAY_AGG aggregate 1 ARRAY
ARRAY_CONCAT scalar 1+ ARRAY
ARRAY_CONCAT_AGG aggregate 1 ARRAY
ARRAY_INCLUDES scalar 2 BOOL
ARRAY_INCLUDES_ALL scalar 2 BOOL
ARRAY_INCLUDES_ANY scalar 2 BOOL
ARRAY_LENGTH scalar 1 INT64
ARRAY_REVERSE scalar 1 ARRAY
ARRAY_TO_STRING scalar 2-3 STRING
ASCII scalar 1 INT64
ASIN scalar 1 FLOAT64
ASINH scalar 1 FLOAT64
ATAN scalar 1 FLOAT64
ATAN2 scalar 2 FLOAT64
ATANH scalar 1 FLOAT64
AVG aggregate 1 FLOAT64
BIT_AND aggregate 1 T
BIT_COUNT scalar 1 INT64
BIT_OR aggregate 1 T
BIT_XOR aggregate 1 T
BYTE_LENGTH scalar 1 INT64
CAST scalar 1 T
CBRT scalar 1 FLOAT64
CEIL scalar 1 T
CEILING scalar 1 T
CHAR_LENGTH scalar 1 INT64
CHARACTER_LENGTH scalar 1 INT64
CHR scalar 1 STRING
CODE_POINTS_TO_BYTES scalar 1 BYTES
CODE_POINTS_TO_STRING scalar 1 STRING
COALESCE scalar 1+ SUPER
CONCAT scalar 1+ TEXT
CORR aggregate 2 FLOAT64
COS scalar 1 FLOAT64
COSH scalar 1 FLOAT64
COT scalar 1 FLOAT64
COTH scalar 1 FLOAT64
COUNT aggregate 0-1 INT64
COUNTIF aggregate 1 INT64
COVAR_POP aggregate 2 FLOAT64
COVAR_SAMP aggregate 2 FLOAT64
CSC scalar 1 FLOAT64
CSCH scalar 1 FLOAT64
CUME_DIST analytic 0 FLOAT64
CURRENT_DATE scalar 0-1 DATE
CURRENT_DATETIME scalar 0-1 DATETIME
CURRENT_TIME scalar 0-1 TIME
CURRENT_TIMESTAMP scalar 0 TIMESTAMP
DATE scalar 1-3 DATE
DATE_ADD scalar 2 DATE
DATE_DIFF scalar 3 INT64
DATE_FROM_UNIX_DATE scalar 1 DATE
DATE_SUB scalar 2 DATE
DATE_TRUNC scalar 2 DATE
DATETIME scalar 1-6 DATETIME
DATETIME_ADD scalar 2 DATETIME
DATETIME_DIFF scalar 3 INT64
DATETIME_SUB scalar 2 DATETIME
DATETIME_TRUNC scalar 2 DATETIME
DENSE_RANK analytic 0 INT64
DIV scalar 2 T
EDIT_DISTANCE scalar 2-3 INT64
ENDS_WITH scalar 2 BOOL
ERROR scalar 1 T
EXP scalar 1 FLOAT64
EXTRACT scalar 1 INT64
FARM_FINGERPRINT scalar 1 INT64
FIRST_VALUE analytic 1 T
FLOOR scalar 1 T
FORMAT scalar 1+ STRING
FORMAT_DATE scalar 2 STRING
FORMAT_DATETIME scalar 2 STRING
FORMAT_TIME scalar 2 STRING
FORMAT_TIMESTAMP scalar 2-3 STRING
FROM_BASE32 scalar 1 BYTES
FROM_BASE64 scalar 1 BYTES
FROM_HEX scalar 1 BYTES
GENERATE_ARRAY scalar 2-3 ARRAY
GENERATE_DATE_ARRAY scalar 2-3 ARRAY
GENERATE_TIMESTAMP_ARRAY scalar 3 ARRAY
GENERATE_UUID scalar 0 STRING
GREATEST scalar 1+ SUPER
GROUPING scalar 1 INT64
IEEE_DIVIDE scalar 2 FLOAT64
IF scalar 3 SUPER
IFNULL scalar 2 SUPER
INITCAP scalar 1-2 STRING
INSTR scalar 2-4 INT64
IS_INF scalar 1 BOOL
IS_NAN scalar 1 BOOL
JUSTIFY_DAYS scalar 1 INTERVAL
JUSTIFY_HOURS scalar 1 INTERVAL
JUSTIFY_INTERVAL scalar 1 INTERVAL
LAG analytic 1-3 T
LAST_DAY scalar 1-2 DATE
LAST_VALUE analytic 1 T
LEAD analytic 1-3 T
LEAST scalar 1+ SUPER
LEFT scalar 2 TEXT
LENGTH scalar 1 INT64
LN scalar 1 FLOAT64
LOG scalar 1-2 FLOAT64
LOG10 scalar 1 FLOAT64
LOGICAL_AND aggregate 1 BOOL
LOGICAL_OR aggregate 1 BOOL
LOWER scalar 1 TEXT
LPAD scalar 2-3 TEXT
LTRIM scalar 1-2 TEXT
MAX aggregate 1 T
MAX_BY aggregate 2 T
MD5 scalar 1 BYTES
MIN aggregate 1 T
MIN_BY aggregate 2 T
MOD scalar 2 T
NORMALIZE scalar 1-2 STRING
NTH_VALUE analytic 2 T
NTILE analytic 1 INT64
NULLIF scalar 2 T
NULLIFZERO scalar 1 T
OCTET_LENGTH scalar 1 INT64
PARSE_BIGNUMERIC scalar 1 BIGNUMERIC
PARSE_DATE scalar 2 DATE
PARSE_DATETIME scalar 2 DATETIME
PARSE_NUMERIC scalar 1 NUMERIC
PARSE_TIME scalar 2 TIME
PARSE_TIMESTAMP scalar 2-3 TIMESTAMP
PERCENT_RANK analytic 0 FLOAT64
PERCENTILE_CONT analytic 2 FLOAT64
PERCENTILE_DISC analytic 2 T
POW scalar 2 FLOAT64
POWER scalar 2 FLOAT64
RAND scalar 0 FLOAT64
RANGE_BUCKET scalar 2 INT64
RANK analytic 0 INT64
REGEXP_CONTAINS scalar 2 BOOL
REGEXP_EXTRACT scalar 2-4 TEXT
REGEXP_EXTRACT_ALL scalar 2 ARRAY
REGEXP_INSTR scalar 2-5 INT64
REGEXP_REPLACE scalar 3 TEXT
REGEXP_SUBSTR scalar 2-4 TEXT
REPEAT scalar 2 TEXT
REPLACE scalar 3 TEXT
REVERSE scalar 1 TEXT
RIGHT scalar 2 TEXT
ROUND scalar 1-3 T
ROW_NUMBER analytic 0 INT64
RPAD scalar 2-3 TEXT
RTRIM scalar 1-2 TEXT
SAFE_ADD scalar 2 SUPER
SAFE_CAST scalar 1 T
SAFE_CONVERT_BYTES_TO_STRING scalar 1 STRING
SAFE_DIVIDE scalar 2 FLOAT64
SAFE_MULTIPLY scalar 2 SUPER
SAFE_NEGATE scalar 1 T
SAFE_SUBTRACT scalar 2 SUPER
SEC scalar 1 FLOAT64
SECH scalar 1 FLOAT64
SHA1 scalar 1 BYTES
SHA256 scalar 1 BYTES
SHA512 scalar 1 BYTES
SIGN scalar 1 T
SIN scalar 1 FLOAT64
SINH scalar 1 FLOAT64
SOUNDEX scalar 1 STRING
SPLIT scalar 1-2 ARRAY
SQRT scalar 1 FLOAT64
STARTS_WITH scalar 2 BOOL
STDDEV aggregate 1 FLOAT64
STDDEV_POP aggregate 1 FLOAT64
STDDEV_SAMP aggregate 1 FLOAT64
STRING scalar 1-2 STRING
STRING_AGG aggregate 1-2 TEXT
STRPOS scalar 2 INT64
STRUCT scalar 0+ STRUCT
SUBSTR scalar 2-3 TEXT
SUBSTRING scalar 2-3 TEXT
SUM aggregate 1 T
TAN scalar 1 FLOAT64
TANH scalar 1 FLOAT64
TIME scalar 1-3 TIME
TIME_ADD scalar 2 TIME
TIME_DIFF scalar 3 INT64
TIME_SUB scalar 2 TIME
TIME_TRUNC scalar 2 TIME
TIMESTAMP scalar 1-2 TIMESTAMP
TIMESTAMP_ADD scalar 2 TIMESTAMP
TIMESTAMP_DIFF scalar 3 INT64
TIMESTAMP_MICROS scalar 1 TIMESTAMP
TIMESTAMP_MILLIS scalar 1 TIMESTAMP
TIMESTAMP_SECONDS scalar 1 TIMESTAMP
TIMESTAMP_SUB scalar 2 TIMESTAMP
TIMESTAMP_TRUNC scalar 2-3 TIMESTAMP
TO_BASE32 scalar 1 STRING
TO_BASE64 scalar 1 STRING
TO_CODE_POINTS scalar 1 ARRAY
TO_HEX scalar 1 STRING
TO_JSON_STRING scalar 1-2 STRING
TRANSLATE scalar 3 TEXT
TRIM scalar 1-2 TEXT
TRUNC scalar 1-2 T
UNICODE scalar 1 INT64
UNIX_DATE scalar 1 INT64
UNIX_MICROS scalar 1 INT64
UNIX_MILLIS scalar 1 INT64
UNIX_SECONDS scalar 1 INT64
UPPER scalar 1 TEXT
VAR_POP aggregate 1 FLOAT64
VAR_SAMP aggregate 1 FLOAT64
VARIANCE aggregate 1 FLOAT64
ZEROIFNULL scalar 1 T
`

// signatures is signatureTable parsed.
var signatures = parseSignatures(signatureTable)

func parseSignatures(table string) map[string]signature {
	out := map[string]signature{}
	for i, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			panic(fmt.Sprintf("signatureTable line %d: %q: want NAME KIND ARGS RESULT", i+1, line))
		}
		var s signature
		switch f[1] {
		case "scalar":
			s.kind = scalarFn
		case "aggregate":
			s.kind = aggregateFn
		case "analytic":
			s.kind = analyticFn
		default:
			panic(fmt.Sprintf("signatureTable line %d: kind %q", i+1, f[1]))
		}
		var err error
		switch lo, hi, rng := strings.Cut(f[2], "-"); {
		case strings.HasSuffix(f[2], "+"):
			s.min, err = strconv.Atoi(strings.TrimSuffix(f[2], "+"))
			s.max = -1
		case rng:
			if s.min, err = strconv.Atoi(lo); err == nil {
				s.max, err = strconv.Atoi(hi)
			}
		default:
			s.min, err = strconv.Atoi(f[2])
			s.max = s.min
		}
		if err != nil {
			panic(fmt.Sprintf("signatureTable line %d: arguments %q: %v", i+1, f[2], err))
		}
		s.result = f[3]
		if _, dup := out[f[0]]; dup {
			panic(fmt.Sprintf("signatureTable line %d: %s listed twice", i+1, f[0]))
		}
		out[f[0]] = s
	}
	return out
}
