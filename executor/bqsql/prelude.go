package bqsql

import (
	"fmt"
	"regexp"
	"strings"
)

// Settings are the settings BigQuery semantics need, applied to the whole
// database (SET GLOBAL: a plain SET of TimeZone would only reach the
// connection that runs it). They must run before the configuration is
// locked.
//
//   - NULLs sort first in ascending order and last in descending order, as in
//     BigQuery (DuckDB's default puts them last both ways).
//   - TIMESTAMP values are interpreted and printed in UTC, BigQuery's default
//     time zone.
const Settings = `SET GLOBAL default_null_order = 'nulls_first_on_asc_last_on_desc';
SET GLOBAL TimeZone = 'UTC';
`

// Macros defines the temporary macros translated queries call (bq_div,
// bq_date_diff_day, …). Run it on every new connection before its first
// query; the macros are TEMP, so a read-only database is fine.
var Macros = buildMacros()

// Prelude is Settings followed by Macros, for a caller that opens a single
// connection (tests, tools). An engine with a connection pool runs Settings
// once and Macros per connection.
var Prelude = Settings + Macros

// staticMacros are written by hand; the date/time families are generated.
const staticMacros = `
-- a / b: BigQuery raises an error on division by zero where DuckDB returns
-- NULL or infinity (a NULL operand still gives NULL); INT64 / INT64 is
-- FLOAT64 in both.
-- SAFE_DIVIDE is NULL where the quotient overflows (1e300 / 1e-300):
-- infinite although the dividend is finite (an infinite divisor never
-- makes an infinite quotient).
CREATE OR REPLACE TEMP MACRO bq_safe_quotient(q, a) AS CASE
	WHEN isinf(TRY_CAST(q AS DOUBLE)) AND NOT isinf(TRY_CAST(a AS DOUBLE)) THEN NULL ELSE q END;
CREATE OR REPLACE TEMP MACRO bq_safe_divide(a, b) AS CASE WHEN b = 0 THEN NULL ELSE bq_safe_quotient(a / b, a) END;
CREATE OR REPLACE TEMP MACRO bq_mod(a BIGINT, b BIGINT) AS CASE WHEN b = 0 AND a IS NOT NULL
	THEN CAST('division by zero: MOD(' || CAST(a AS VARCHAR) || ', ' || CAST(b AS VARCHAR) || ')' AS BIGINT)
	ELSE a % b END;
CREATE OR REPLACE TEMP MACRO bq_intdiv(a BIGINT, b BIGINT) AS CASE WHEN b = 0 AND a IS NOT NULL
	THEN CAST('division by zero: DIV(' || CAST(a AS VARCHAR) || ', ' || CAST(b AS VARCHAR) || ')' AS BIGINT)
	ELSE a // b END;

-- The logarithm of -inf is NaN in BigQuery (its function tests run LN,
-- LOG and LOG10 of -inf; only finite negative numbers and zero are errors);
-- DuckDB's ln refuses every negative number.
CREATE OR REPLACE TEMP MACRO bq_log_arg(x) AS CASE WHEN x = CAST('-inf' AS DOUBLE) THEN CAST('nan' AS DOUBLE) ELSE x END;

-- A LIKE pattern that is not a literal (emitter.like): BigQuery's LIKE
-- escapes with the backslash and refuses a pattern that ends in a lone one
-- (an odd run at the end).
CREATE OR REPLACE TEMP MACRO bq_like_pattern(p VARCHAR) AS CASE
	WHEN regexp_matches(p, '(^|[^\\])(\\\\)*\\$') THEN CAST(CAST('LIKE pattern ends with a backslash' AS BIGINT) AS VARCHAR)
	ELSE p END;

-- A LIKE pattern whose type the bridge cannot tell (emitter.like): a
-- STRING is escaped and checked as bq_like_pattern does. A BYTES one would
-- need its operand read as bytes too (bytesLike), which only a known type
-- allows: the bridge's limit, not the query's fault. BigQuery refuses any
-- other type.
CREATE OR REPLACE TEMP MACRO bq_like_any_pattern(p) AS CASE
	WHEN typeof(p) IN ('VARCHAR', '"NULL"') THEN bq_like_pattern(CAST(p AS VARCHAR))
	WHEN typeof(p) = 'BLOB' THEN CAST(CAST('LIKE with a BYTES pattern whose type the bridge cannot tell is not supported' AS BIGINT) AS VARCHAR)
	ELSE CAST(CAST('No matching signature for operator LIKE for argument types: STRING, ' || typeof(p) AS BIGINT) AS VARCHAR) END;

-- (expr).* (withexpr.go): only a STRUCT has fields to spread; unnest would
-- turn an array into rows instead.
CREATE OR REPLACE TEMP MACRO bq_dot_star(s) AS CASE WHEN typeof(s) LIKE 'STRUCT(%' THEN s
	ELSE error('Dot-star is only supported for STRUCT values') END;

-- The extra ORDER BY key that gives FLOAT64 BigQuery's order NULL < NaN <
-- -inf (nanorder.go): false for NaN, NULL for NULL, true otherwise; a
-- constant true for other types (typeof folds).
CREATE OR REPLACE TEMP MACRO bq_nan_order(x) AS CASE WHEN typeof(x) IN ('DOUBLE', 'FLOAT')
	THEN NOT isnan(TRY_CAST(x AS DOUBLE)) ELSE true END;

-- PERCENTILE_CONT over FLOAT64 (percentile.go): the key DuckDB's
-- quantile_cont runs over keeps BigQuery's positions (NULL when respected,
-- NaN and -inf at the bottom, +inf at the top, all finite); the result is
-- that quantile where both neighbours are finite, else decided by the
-- counts: m values (NULLs included when respected), z NULLs, k NaNs, a
-- -inf, b +inf, lo the smallest non-NaN value.
CREATE OR REPLACE TEMP MACRO bq_percentile_key(x DOUBLE, respect) AS CASE
	WHEN x IS NULL THEN CASE WHEN respect THEN -1.7976931348623157e308 END
	WHEN isnan(x) OR x = '-inf' THEN -1.7976931348623157e308
	WHEN x = 'inf' THEN 1.7976931348623157e308 ELSE x END;
CREATE OR REPLACE TEMP MACRO bq_percentile_pick(v, i, r, m, z, k, a, b, lo) AS CASE
	WHEN m = z THEN NULL
	WHEN i < z THEN CASE WHEN i = z - 1 AND r > 0 THEN CASE WHEN k > 0 THEN CAST('nan' AS DOUBLE) ELSE lo END END
	WHEN i < z + k THEN CAST('nan' AS DOUBLE)
	WHEN r = 0 AND i < z + k + a THEN CAST('-inf' AS DOUBLE)
	WHEN r = 0 AND i >= m - b THEN CAST('inf' AS DOUBLE)
	WHEN r > 0 AND i < z + k + a THEN CASE WHEN i + 1 >= m - b THEN CAST('nan' AS DOUBLE) ELSE CAST('-inf' AS DOUBLE) END
	WHEN r > 0 AND i + 1 >= m - b THEN CAST('inf' AS DOUBLE)
	ELSE v END;
CREATE OR REPLACE TEMP MACRO bq_percentile_cont(v, m, z, k, a, b, lo, p) AS
	CAST(bq_percentile_pick(v, floor((m - 1) * p), (m - 1) * p - floor((m - 1) * p), m, z, k, a, b, lo) AS DOUBLE);

-- MIN of FLOAT64 is NaN when any input is (percentile.go minNaN): hi is
-- DuckDB's max over the same rows, NaN exactly then.
CREATE OR REPLACE TEMP MACRO bq_min_nan(lo, hi) AS CASE
	WHEN typeof(hi) IN ('DOUBLE', 'FLOAT') AND isnan(TRY_CAST(hi AS DOUBLE)) THEN hi ELSE lo END;

-- STDDEV and VARIANCE over FLOAT64 (stats.go): DuckDB's aggregate runs
-- over the finite values only (bq_finite); n counts every non-NULL input,
-- k the NaNs and infinities among them.
CREATE OR REPLACE TEMP MACRO bq_finite(x) AS CASE WHEN isfinite(TRY_CAST(x AS DOUBLE)) THEN x END;
CREATE OR REPLACE TEMP MACRO bq_finite_pair(a, b) AS CASE
	WHEN isfinite(TRY_CAST(a AS DOUBLE)) AND isfinite(TRY_CAST(b AS DOUBLE)) THEN a END;
CREATE OR REPLACE TEMP MACRO bq_stat_nan(v, n, k, need) AS CASE
	WHEN n < need THEN NULL WHEN k > 0 THEN CAST('nan' AS DOUBLE) ELSE v END;

-- Typed identities: they make DuckDB reject what BigQuery rejects (a STRING
-- where INT64 is required and so on) while accepting literals.
CREATE OR REPLACE TEMP MACRO bq_int64(n BIGINT) AS n;
CREATE OR REPLACE TEMP MACRO bq_str(s VARCHAR) AS s;
CREATE OR REPLACE TEMP MACRO bq_date_only(d DATE) AS d;
CREATE OR REPLACE TEMP MACRO bq_time_only(t TIME) AS t;

-- ROUND, FLOOR, CEIL return FLOAT64 for INT64 and FLOAT64 input. ROUND
-- rounds the decimal value of the double half away from zero, as BigQuery's
-- long-double rounding does (2.675 -> 2.67), not the binary product.
CREATE OR REPLACE TEMP MACRO bq_float(x DOUBLE) AS x;
CREATE OR REPLACE TEMP MACRO bq_trunc(x DOUBLE, d BIGINT) AS CASE
	WHEN d = 0 THEN trunc(x)
	ELSE CAST(trunc(x * pow(10, d)) / pow(10, d) AS DOUBLE) END;
CREATE OR REPLACE TEMP MACRO bq_floor(x DOUBLE) AS floor(x);
CREATE OR REPLACE TEMP MACRO bq_ceil(x DOUBLE) AS ceil(x);

-- GREATEST and LEAST are NULL when any argument is.
-- ARRAY_AGG(… LIMIT n) that keeps no element is NULL, as an ARRAY_AGG over no
-- rows (funcs.go arrayAgg); DuckDB's list_slice gives [].
CREATE OR REPLACE TEMP MACRO bq_nonempty(l) AS CASE WHEN len(l) = 0 THEN NULL ELSE l END;
CREATE OR REPLACE TEMP MACRO bq_greatest(l) AS CASE WHEN list_aggregate(l, 'count') < len(l) THEN NULL ELSE list_max(l) END;
CREATE OR REPLACE TEMP MACRO bq_least(l) AS CASE WHEN list_aggregate(l, 'count') < len(l) THEN NULL ELSE list_min(l) END;

-- Strings.
-- A function of a NULL argument is NULL before any check of the others
-- ("If an operand is NULL, the result is NULL", BigQuery's function call
-- rules, functions-and-operators reference): SUBSTR('abc', 1, NULL) is NULL,
-- not the rest of the string, and LEFT(NULL, -1) is NULL, not an error.
-- SUBSTR of BYTES counts bytes; DuckDB's substring takes no BLOB, so the
-- bytes are cut from their hex text, two digits a byte (bq_bytes_substr,
-- used where the bridge knows the argument is BYTES: one macro with BLOB
-- and VARCHAR overloads could not bind an outer query's column). DuckDB
-- refuses a length past 2^32; no value is that long, so it is capped.
CREATE OR REPLACE TEMP MACRO bq_substr(s VARCHAR, p BIGINT) AS CASE WHEN p IS NULL THEN NULL ELSE
	substring(s, CASE WHEN p > 0 THEN p WHEN p = 0 THEN 1 ELSE greatest(length(s) + p + 1, 1) END) END,
	(s VARCHAR, p BIGINT, l BIGINT) AS CASE WHEN s IS NULL OR p IS NULL OR l IS NULL THEN NULL WHEN l < 0
	THEN CAST(CAST('Third argument in SUBSTR() cannot be negative' AS BIGINT) AS VARCHAR)
	ELSE substring(s, CASE WHEN p > 0 THEN p WHEN p = 0 THEN 1 ELSE greatest(length(s) + p + 1, 1) END, least(l, 2147483647)) END;
CREATE OR REPLACE TEMP MACRO bq_bytes_substr(s BLOB, p BIGINT) AS CASE WHEN p IS NULL THEN NULL ELSE
	unhex(substring(hex(s), 2 * CASE WHEN p > 0 THEN p WHEN p = 0 THEN 1 ELSE greatest(octet_length(s) + p + 1, 1) END - 1)) END,
	(s BLOB, p BIGINT, l BIGINT) AS CASE WHEN s IS NULL OR p IS NULL OR l IS NULL THEN NULL WHEN l < 0
	THEN CAST(CAST('Third argument in SUBSTR() cannot be negative' AS BIGINT) AS BLOB)
	ELSE unhex(substring(hex(s), 2 * CASE WHEN p > 0 THEN p WHEN p = 0 THEN 1 ELSE greatest(octet_length(s) + p + 1, 1) END - 1,
		2 * least(l, 2147483647))) END;
CREATE OR REPLACE TEMP MACRO bq_left(s VARCHAR, n BIGINT) AS CASE WHEN s IS NULL OR n IS NULL THEN NULL WHEN n < 0
	THEN CAST(CAST('Second argument in LEFT() cannot be negative' AS BIGINT) AS VARCHAR) ELSE left(s, n) END;
CREATE OR REPLACE TEMP MACRO bq_right(s VARCHAR, n BIGINT) AS CASE WHEN s IS NULL OR n IS NULL THEN NULL WHEN n < 0
	THEN CAST(CAST('Second argument in RIGHT() cannot be negative' AS BIGINT) AS VARCHAR) ELSE right(s, n) END;
CREATE OR REPLACE TEMP MACRO bq_lpad(s VARCHAR, n BIGINT, p VARCHAR) AS CASE WHEN s IS NULL OR n IS NULL OR p IS NULL THEN NULL WHEN n < 0
	THEN CAST(CAST('Second argument in LPAD() cannot be negative' AS BIGINT) AS VARCHAR)
	WHEN n > 1048576 THEN CAST(error('Output of LPAD/RPAD exceeds max allowed output size of 1MB') AS VARCHAR) ELSE lpad(s, CAST(n AS INTEGER), p) END;
CREATE OR REPLACE TEMP MACRO bq_rpad(s VARCHAR, n BIGINT, p VARCHAR) AS CASE WHEN s IS NULL OR n IS NULL OR p IS NULL THEN NULL WHEN n < 0
	THEN CAST(CAST('Second argument in RPAD() cannot be negative' AS BIGINT) AS VARCHAR)
	WHEN n > 1048576 THEN CAST(error('Output of LPAD/RPAD exceeds max allowed output size of 1MB') AS VARCHAR) ELSE rpad(s, CAST(n AS INTEGER), p) END;
CREATE OR REPLACE TEMP MACRO bq_split(s VARCHAR, d VARCHAR) AS CASE WHEN s IS NULL OR d IS NULL THEN NULL WHEN s = '' THEN [''] ELSE string_split(s, d) END;
-- UNICODE('') is 0 in BigQuery, -1 in DuckDB.
CREATE OR REPLACE TEMP MACRO bq_unicode(s VARCHAR) AS CASE WHEN s = '' THEN 0 ELSE unicode(s) END;

-- Arrays: OFFSET is 0-based and raises an error out of range.
CREATE OR REPLACE TEMP MACRO bq_offset(arr, k BIGINT) AS CASE
	WHEN arr IS NULL OR k IS NULL THEN NULL
	WHEN k < 0 OR k >= len(arr) THEN error('Array index ' || CAST(k AS VARCHAR) || ' is out of bounds (overflow)')
	ELSE arr[k + 1] END;
CREATE OR REPLACE TEMP MACRO bq_safe_offset(arr, k BIGINT) AS CASE
	WHEN k < 0 OR k >= len(arr) THEN NULL ELSE arr[k + 1] END;
-- A zero step is BigQuery's error (DuckDB's generate_series has its own).
CREATE OR REPLACE TEMP MACRO bq_generate_date_array(a DATE, b DATE, step INTERVAL) AS CASE
	WHEN step = INTERVAL 0 DAY THEN [CAST('Sequence step cannot be 0.' AS DATE)]
	ELSE CAST(generate_series(CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP), step) AS DATE[]) END;

-- Conversions. FLOAT64 prints with up to 15 significant digits, 17 when 15
-- do not round-trip; NUMERIC drops trailing zeros.
CREATE OR REPLACE TEMP MACRO bq_float_string(x DOUBLE) AS CASE
	WHEN isnan(x) THEN 'nan'
	WHEN isinf(x) THEN CASE WHEN x > 0 THEN 'inf' ELSE '-inf' END
	WHEN CAST(printf('%.15g', x) AS DOUBLE) = x THEN printf('%.15g', x)
	ELSE printf('%.17g', x) END;
-- LOG(X, Y) as GoogleSQL's function library computes it: ln(X) / ln(Y) for
-- a finite Y > 0, NaN for any other Y; an error only where both arguments
-- are finite and the result is not (X <= 0, Y <= 0, Y = 1). So LOG(X, ±inf)
-- and LOG(NaN, 0) are NaN, LOG(+inf, Y) is +inf or -inf (DuckDB's ln
-- refused the negative or zero argument, and LOG(X, +inf) was 0).
CREATE OR REPLACE TEMP MACRO bq_log_fails(x DOUBLE, y DOUBLE) AS
	isfinite(x) AND isfinite(y) AND (x <= 0 OR y <= 0 OR y = 1);
CREATE OR REPLACE TEMP MACRO bq_log_value(x DOUBLE, y DOUBLE) AS CASE
	WHEN x IS NULL OR y IS NULL THEN NULL
	WHEN NOT (isfinite(y) AND y > 0) OR isnan(x) OR x = CAST('-inf' AS DOUBLE) THEN CAST('nan' AS DOUBLE)
	WHEN isinf(x) THEN CASE WHEN y >= 1 THEN CAST('inf' AS DOUBLE) ELSE CAST('-inf' AS DOUBLE) END
	ELSE ln(x) / ln(y) END;
CREATE OR REPLACE TEMP MACRO bq_log(x DOUBLE, y DOUBLE) AS CASE
	WHEN bq_log_fails(x, y) THEN CAST('Floating point error in function: LOG(' || bq_float_string(x) || ', ' || bq_float_string(y) || ')' AS DOUBLE)
	ELSE bq_log_value(x, y) END;
CREATE OR REPLACE TEMP MACRO bq_safe_log(x DOUBLE, y DOUBLE) AS CASE WHEN bq_log_fails(x, y) THEN NULL ELSE bq_log_value(x, y) END;
-- An INTERVAL's three fields: months, days and microseconds (DuckDB's
-- date_part gives the time field as hours, the minute within the hour and
-- the microseconds within the minute). JUSTIFY_DAYS turns each 30 days into
-- a month, JUSTIFY_HOURS each 24 hours into a day, JUSTIFY_INTERVAL both;
-- the quotient and remainder truncate toward zero, so the fields end with
-- the sign of the whole.
CREATE OR REPLACE TEMP MACRO bq_interval_months(i) AS
	CAST(date_part('year', i) AS BIGINT) * 12 + date_part('month', i);
CREATE OR REPLACE TEMP MACRO bq_interval_time_us(i) AS
	CAST(date_part('hour', i) AS HUGEINT) * 3600000000 + CAST(date_part('minute', i) AS HUGEINT) * 60000000
		+ date_part('microseconds', i);
CREATE OR REPLACE TEMP MACRO bq_interval_of(m, d, us) AS
	to_months(CAST(m AS BIGINT)) + to_days(CAST(d AS BIGINT)) + to_microseconds(CAST(us AS BIGINT));
CREATE OR REPLACE TEMP MACRO bq_justify_days_of(t, us) AS bq_interval_of(t // 30, t % 30, us);
CREATE OR REPLACE TEMP MACRO bq_justify_days(i) AS
	bq_justify_days_of(bq_interval_months(i) * 30 + date_part('day', i), bq_interval_time_us(i));
CREATE OR REPLACE TEMP MACRO bq_justify_hours_of(m, t) AS
	bq_interval_of(m, t // 86400000000, t % 86400000000);
CREATE OR REPLACE TEMP MACRO bq_justify_hours(i) AS
	bq_justify_hours_of(bq_interval_months(i), CAST(date_part('day', i) AS HUGEINT) * 86400000000 + bq_interval_time_us(i));
CREATE OR REPLACE TEMP MACRO bq_justify_interval_of(t) AS
	bq_interval_of(t // 2592000000000, (t % 2592000000000) // 86400000000, t % 86400000000);
CREATE OR REPLACE TEMP MACRO bq_justify_interval(i) AS bq_justify_interval_of(
	(CAST(bq_interval_months(i) AS HUGEINT) * 30 + date_part('day', i)) * 86400000000 + bq_interval_time_us(i));
-- BigQuery's text of an INTERVAL, 'Y-M D H:M:S[.F]': the year-month and
-- the time group each signed as a whole, the fraction without trailing
-- zeros (DuckDB prints '1 year 2 months …').
CREATE OR REPLACE TEMP MACRO bq_interval_string_of(m, d, us) AS
	CASE WHEN m < 0 THEN '-' ELSE '' END || CAST(abs(m) // 12 AS VARCHAR) || '-' || CAST(abs(m) % 12 AS VARCHAR)
	|| ' ' || CAST(d AS VARCHAR) || ' '
	|| CASE WHEN us < 0 THEN '-' ELSE '' END || CAST(abs(us) // 3600000000 AS VARCHAR)
	|| ':' || CAST(abs(us) % 3600000000 // 60000000 AS VARCHAR)
	|| ':' || CAST(abs(us) % 60000000 // 1000000 AS VARCHAR)
	|| CASE WHEN abs(us) % 1000000 = 0 THEN ''
		ELSE '.' || rtrim(lpad(CAST(abs(us) % 1000000 AS VARCHAR), 6, '0'), '0') END;
CREATE OR REPLACE TEMP MACRO bq_interval_string(i) AS
	bq_interval_string_of(bq_interval_months(i), date_part('day', i), bq_interval_time_us(i));
-- An INTERVAL in ISO 8601, as TO_JSON_STRING writes it (GoogleSQL's
-- IntervalValue::ToISO8601): P, then each non-zero part with its own sign
-- (years and months of the month count, days, then T and hours, minutes and
-- seconds of the time), the fraction without trailing zeros; P0Y for zero.
CREATE OR REPLACE TEMP MACRO bq_iso_or_zero(s) AS CASE WHEN s = 'P' THEN 'P0Y' ELSE s END;
CREATE OR REPLACE TEMP MACRO bq_interval_iso_of(m, d, us) AS bq_iso_or_zero('P'
	|| CASE WHEN m // 12 <> 0 THEN CAST(m // 12 AS VARCHAR) || 'Y' ELSE '' END
	|| CASE WHEN m % 12 <> 0 THEN CAST(m % 12 AS VARCHAR) || 'M' ELSE '' END
	|| CASE WHEN d <> 0 THEN CAST(d AS VARCHAR) || 'D' ELSE '' END
	|| CASE WHEN us <> 0 THEN 'T' ELSE '' END
	|| CASE WHEN us // 3600000000 <> 0 THEN CAST(us // 3600000000 AS VARCHAR) || 'H' ELSE '' END
	|| CASE WHEN us % 3600000000 // 60000000 <> 0 THEN CAST(us % 3600000000 // 60000000 AS VARCHAR) || 'M' ELSE '' END
	|| CASE WHEN us % 60000000 = 0 THEN ''
		WHEN us % 1000000 = 0 THEN CAST(us % 60000000 // 1000000 AS VARCHAR) || 'S'
		ELSE CASE WHEN us % 60000000 // 1000000 <> 0 THEN CAST(us % 60000000 // 1000000 AS VARCHAR) WHEN us < 0 THEN '-0' ELSE '0' END
			|| '.' || rtrim(lpad(CAST(abs(us % 1000000) AS VARCHAR), 6, '0'), '0') || 'S' END);
CREATE OR REPLACE TEMP MACRO bq_interval_iso(i) AS
	bq_interval_iso_of(bq_interval_months(i), date_part('day', i), bq_interval_time_us(i));
-- BigQuery prints the fraction of a TIMESTAMP, DATETIME or TIME in
-- milliseconds or microseconds (.100, .000100: its date and time functions
-- drop trailing zeros in groups of three), DuckDB with its trailing zeros
-- dropped (.1, .0001).
CREATE OR REPLACE TEMP MACRO bq_timestamp_fraction(s, frac) AS
	regexp_replace(s, '\.[0-9]+', '.' || rpad(frac, CASE WHEN length(frac) <= 3 THEN 3 ELSE 6 END, '0'));
CREATE OR REPLACE TEMP MACRO bq_to_string(x) AS CASE
	WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN bq_float_string(TRY_CAST(x AS DOUBLE))
	WHEN typeof(x) LIKE 'DECIMAL%' AND CAST(x AS VARCHAR) LIKE '%.%'
		THEN rtrim(rtrim(CAST(x AS VARCHAR), '0'), '.')
	WHEN typeof(x) = 'INTERVAL' THEN bq_interval_string(TRY_CAST(x AS INTERVAL))
	WHEN typeof(x) IN ('TIMESTAMP WITH TIME ZONE', 'TIMESTAMP', 'TIME') AND CAST(x AS VARCHAR) LIKE '%.%'
		THEN bq_timestamp_fraction(CAST(x AS VARCHAR), regexp_extract(CAST(x AS VARCHAR), '\.([0-9]+)', 1))
	ELSE CAST(x AS VARCHAR) END;
CREATE OR REPLACE TEMP MACRO bq_parse_int64(s VARCHAR) AS CASE
	WHEN regexp_full_match(trim(s), '[+-]?[0-9]+') THEN CAST(trim(s) AS BIGINT)
	ELSE CAST('Bad int64 value: ' || s AS BIGINT) END;
CREATE OR REPLACE TEMP MACRO bq_try_parse_int64(s VARCHAR) AS CASE
	WHEN regexp_full_match(trim(s), '[+-]?[0-9]+') THEN TRY_CAST(trim(s) AS BIGINT) END;
-- FLOAT64 to INT64 is the closest INT64, halfway cases away from zero
-- (conversion rules: 1.5 and -0.5 round away from zero); DuckDB's DOUBLE to
-- BIGINT rounds them to even (2.5 to 2), its round() away from zero.
CREATE OR REPLACE TEMP MACRO bq_to_int64(x) AS CASE
	WHEN typeof(x) = 'VARCHAR' THEN bq_parse_int64(TRY_CAST(x AS VARCHAR))
	WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN CAST(round(TRY_CAST(x AS DOUBLE)) AS BIGINT)
	ELSE CAST(x AS BIGINT) END;
CREATE OR REPLACE TEMP MACRO bq_try_to_int64(x) AS CASE
	WHEN typeof(x) = 'VARCHAR' THEN bq_try_parse_int64(TRY_CAST(x AS VARCHAR))
	WHEN typeof(x) IN ('DOUBLE', 'FLOAT') THEN TRY_CAST(round(TRY_CAST(x AS DOUBLE)) AS BIGINT)
	ELSE TRY_CAST(x AS BIGINT) END;

-- CAST(FLOAT64 AS NUMERIC): the double's exact value rounded half away
-- from zero to 9 decimals (conversion rules: "the floating point number
-- will round half away from zero"), an error for NaN, +/-inf and values
-- past NUMERIC's 29 integer digits (the largest double under 1e29 fits:
-- the literal 1e29 is that double). DuckDB's own DOUBLE to DECIMAL(38, 9)
-- multiplies by 1e9 in floating point: past 2^53 / 1e9 (about 9e6) digits
-- go wrong
-- (123456789012.345678 became ...345667584, 1e26 ...996863366107.9) and
-- values just under 1e29 overflow. The integer part converts exactly
-- through HUGEINT; the fraction, exact in a double, is scaled by 1e9 with
-- an error far below half a unit, so its rounding is the exact one.
CREATE OR REPLACE TEMP MACRO bq_float_numeric_units(x) AS
	CAST(CAST(trunc(x) AS HUGEINT) * 1000000000 + CAST(round((x - trunc(x)) * 1e9) AS HUGEINT) AS DECIMAL(38, 0))
		* CAST('0.000000001' AS DECIMAL(38, 9));
CREATE OR REPLACE TEMP MACRO bq_float_to_numeric(x) AS CASE
	WHEN NOT isfinite(x) THEN CAST(error('Illegal conversion of non-finite floating point number to numeric: ' || lower(CAST(x AS VARCHAR))) AS DECIMAL(38, 9))
	WHEN abs(x) > 1e29 THEN CAST(error('numeric out of range: ' || CAST(x AS VARCHAR)) AS DECIMAL(38, 9))
	ELSE bq_float_numeric_units(x) END;
CREATE OR REPLACE TEMP MACRO bq_safe_float_to_numeric(x) AS CASE
	WHEN isfinite(x) AND abs(x) <= 1e29 THEN bq_float_numeric_units(x) END;

-- DATE(), DATETIME(), TIMESTAMP(), TIME() of an expression; untyped so a
-- correlated argument binds (see diffMacro).
-- DATE(STRING) reads the string as a TIMESTAMP (an offset in it counts)
-- and takes its date in UTC, the default time zone.
CREATE OR REPLACE TEMP MACRO bq_to_date(x) AS CASE
	WHEN typeof(x) NOT IN ('VARCHAR', 'DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', '"NULL"')
		THEN CAST('No matching signature for function DATE for argument types: ' || typeof(x) AS DATE)
	WHEN typeof(x) = 'VARCHAR' THEN CAST(CAST(x AS TIMESTAMPTZ) AS DATE)
	ELSE TRY_CAST(x AS DATE) END;
-- DATETIME(STRING) and TIME(STRING) read the string as CAST does; TIME(TIME)
-- is the value.
CREATE OR REPLACE TEMP MACRO bq_to_datetime(x) AS CASE
	WHEN typeof(x) NOT IN ('VARCHAR', 'DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', '"NULL"')
		THEN CAST('No matching signature for function DATETIME for argument types: ' || typeof(x) AS TIMESTAMP)
	WHEN typeof(x) = 'VARCHAR' THEN CAST(x AS TIMESTAMP)
	ELSE TRY_CAST(x AS TIMESTAMP) END;
CREATE OR REPLACE TEMP MACRO bq_to_timestamp(x) AS CASE
	WHEN typeof(x) NOT IN ('VARCHAR', 'DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', '"NULL"')
		THEN CAST('No matching signature for function TIMESTAMP for argument types: ' || typeof(x) AS TIMESTAMPTZ)
	ELSE CAST(x AS TIMESTAMPTZ) END;
CREATE OR REPLACE TEMP MACRO bq_to_time(x) AS CASE
	WHEN typeof(x) NOT IN ('VARCHAR', 'TIME', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', '"NULL"')
		THEN CAST('No matching signature for function TIME for argument types: ' || typeof(x) AS TIME)
	WHEN typeof(x) = 'VARCHAR' THEN CAST(x AS TIME)
	ELSE TRY_CAST(x AS TIME) END;
CREATE OR REPLACE TEMP MACRO bq_timestamp_add_check(p, x, iv) AS CASE
	WHEN typeof(x) = 'TIMESTAMP WITH TIME ZONE'
		THEN error('TIMESTAMP_ADD does not support the ' || p || ' date part when the argument is TIMESTAMP type')
	ELSE x + iv END;
-- DATE_ADD, DATETIME_ADD, TIMESTAMP_ADD (and _SUB) past BigQuery's range
-- (years 1 to 9999) are its out_of_range error; DuckDB's range is wider.
-- (A DATE-typed raise keeps a DATE result DATE.)
CREATE OR REPLACE TEMP MACRO bq_civil_range(r, fn) AS CASE
	WHEN r < TIMESTAMP '0001-01-01 00:00:00' OR r >= TIMESTAMP '10000-01-01 00:00:00'
		THEN CAST(fn || ' causes overflow: ' || CAST(r AS VARCHAR) || ' is outside 0001-01-01 to 9999-12-31' AS DATE)
	ELSE r END;
-- NUMERIC and BIGNUMERIC aggregates: s is DuckDB's sum, d the sum in
-- DOUBLE, n the count. DuckDB's DECIMAL(38, k) sum runs in 128 bits without
-- an overflow check: it wraps past 1.7e38 units. d tells a sum past
-- BigQuery's range (29 and 20 integer digits), BigQuery's error, from one
-- within it. AVG is the sum divided by the count in units of the scale (the
-- decimal text without its point), rounded half away from zero; where the
-- sum is too large for the units it is the engine's limit. BigQuery's
-- BIGNUMERIC mean keeps 38 decimals, the engine's 18: a mean that does not
-- end within 18 is the engine's limit too, not a rounded value.
CREATE OR REPLACE TEMP MACRO bq_numeric_range(s, d, fn) AS CASE
	WHEN abs(d) > 1.0000001e29 OR abs(s) > CAST('99999999999999999999999999999.999999999' AS DECIMAL(38, 9))
		THEN CAST('numeric overflow: ' || fn || ' of NUMERIC is about ' || CAST(d AS VARCHAR) AS DECIMAL(38, 9))
	ELSE s END;
CREATE OR REPLACE TEMP MACRO bq_bignumeric_range(s, d, fn) AS CASE
	WHEN abs(d) > 1.0000001e20 OR abs(s) > CAST('99999999999999999999.999999999999999999' AS DECIMAL(38, 18))
		THEN CAST('numeric overflow: ' || fn || ' of BIGNUMERIC is about ' || CAST(d AS VARCHAR) AS DECIMAL(38, 18))
	ELSE s END;
-- STDDEV and VARIANCE over NUMERIC run in FLOAT64 (stats.go): values whose
-- spread is below 1e-7 of their size have too few digits left in FLOAT64
-- for a result within 1e-9 of BigQuery's exact one; the engine's limit.
CREATE OR REPLACE TEMP MACRO bq_stat_precise(v, lo, hi, fn) AS CASE
	WHEN hi > lo AND CAST(hi AS DOUBLE) - CAST(lo AS DOUBLE) < 1e-7 * greatest(abs(CAST(hi AS DOUBLE)), abs(CAST(lo AS DOUBLE)))
		THEN CAST(fn || ' values that agree to 7 significant digits is not supported' AS DOUBLE)
	ELSE v END;
CREATE OR REPLACE TEMP MACRO bq_avg_units(u, n) AS CASE WHEN n = 0 THEN NULL
	ELSE sign(u) * (abs(u) // n + CASE WHEN 2 * (abs(u) % n) >= n THEN 1 ELSE 0 END) END;
CREATE OR REPLACE TEMP MACRO bq_avg_numeric(s, d, n) AS CASE
	WHEN abs(d) >= 1.5e29
		THEN CAST('AVG of NUMERIC values whose sum exceeds 1.5e29 is not supported' AS DECIMAL(38, 9))
	ELSE CAST(bq_avg_units(CAST(replace(CAST(s AS VARCHAR), '.', '') AS HUGEINT), n) AS DECIMAL(38, 0))
		* CAST('0.000000001' AS DECIMAL(38, 9)) END;
CREATE OR REPLACE TEMP MACRO bq_avg_bignumeric(s, d, n) AS CASE
	WHEN abs(d) >= 1.5e20
		THEN CAST('AVG of BIGNUMERIC values whose sum exceeds 1.5e20 is not supported' AS DECIMAL(38, 18))
	WHEN n > 0 AND CAST(replace(CAST(s AS VARCHAR), '.', '') AS HUGEINT) % n <> 0
		THEN CAST('AVG of BIGNUMERIC values whose mean has more than 18 decimals is not supported' AS DECIMAL(38, 18))
	ELSE CAST(bq_avg_units(CAST(replace(CAST(s AS VARCHAR), '.', '') AS HUGEINT), n) AS DECIMAL(38, 0))
		* CAST('0.000000000000000001' AS DECIMAL(38, 18)) END;
-- INSTR(s, t, position, occurrence): the occurrence-th match of t, matches
-- overlapping, from position onwards (backwards from the end for a negative
-- position); 0 when there is none.
CREATE OR REPLACE TEMP MACRO bq_instr(s, t, p, o) AS CASE
	WHEN s IS NULL OR t IS NULL OR p IS NULL OR o IS NULL THEN NULL
	WHEN p = 0 THEN CAST('Second argument in INSTR() cannot be 0: the position' AS BIGINT)
	WHEN o <= 0 THEN CAST('Fourth argument in INSTR() must be positive: the occurrence' AS BIGINT)
	ELSE coalesce((CASE WHEN p > 0
		THEN list_filter(range(p, length(s) + 1), lambda i: substr(s, i, length(t)) = t)
		ELSE list_reverse(list_filter(range(1, length(s) + p + 2), lambda i: substr(s, i, length(t)) = t)) END)[o], 0) END;
-- CBRT: DuckDB's cbrt is a power, off in the last bit for perfect cubes
-- (cbrt(27) = 3.0000000000000004); one Newton step gives BigQuery's 3
-- (where the cube cannot overflow or underflow).
CREATE OR REPLACE TEMP MACRO bq_cbrt_step(r, x) AS r - (r * r * r - x) / (3 * r * r);
CREATE OR REPLACE TEMP MACRO bq_cbrt(x DOUBLE) AS CASE
	WHEN abs(x) BETWEEN 1e-290 AND 1e290 THEN bq_cbrt_step(cbrt(x), x) ELSE cbrt(x) END;
CREATE OR REPLACE TEMP MACRO bq_unix_date(x DATE) AS x - DATE '1970-01-01';
CREATE OR REPLACE TEMP MACRO bq_unix_seconds(x TIMESTAMPTZ) AS CAST(floor(epoch_us(x) / 1000000) AS BIGINT);
CREATE OR REPLACE TEMP MACRO bq_unix_millis(x TIMESTAMPTZ) AS CAST(floor(epoch_us(x) / 1000) AS BIGINT);
CREATE OR REPLACE TEMP MACRO bq_unix_micros(x TIMESTAMPTZ) AS epoch_us(x);
CREATE OR REPLACE TEMP MACRO bq_timestamp_seconds(n BIGINT) AS CAST(make_timestamp(n * 1000000) AS TIMESTAMPTZ);
CREATE OR REPLACE TEMP MACRO bq_timestamp_millis(n BIGINT) AS CAST(make_timestamp(n * 1000) AS TIMESTAMPTZ);
CREATE OR REPLACE TEMP MACRO bq_timestamp_micros(n BIGINT) AS CAST(make_timestamp(n) AS TIMESTAMPTZ);

-- a / b. Each operand is repeated as few times as possible: nested
-- divisions multiply the copies DuckDB binds.
CREATE OR REPLACE TEMP MACRO bq_div(a, b) AS CASE WHEN b = 0 AND a IS NOT NULL
	THEN CAST('division by zero: ' || CAST(a AS VARCHAR) || ' / 0' AS DOUBLE)
	ELSE a / b END;
`

// nullOnZero redefines the prelude's division macros to give NULL where
// BigQuery raises "division by zero" (DuckDB's own behaviour for a / 0).
// Only RelaxDivision uses it, on one connection, for one query.
const nullOnZero = `
CREATE OR REPLACE TEMP MACRO bq_div(a, b) AS CASE WHEN b = 0 THEN NULL ELSE a / b END;
CREATE OR REPLACE TEMP MACRO bq_mod(a BIGINT, b BIGINT) AS CASE WHEN b = 0 THEN NULL ELSE a % b END;
CREATE OR REPLACE TEMP MACRO bq_intdiv(a BIGINT, b BIGINT) AS CASE WHEN b = 0 THEN NULL ELSE a // b END;
`

// RelaxDivision is the DuckDB engine's Options.Relax for a sample
// database: a query that failed with BigQuery's "division by zero" is run
// again with every division by zero giving NULL, and the result carries a
// warning saying so. On a sample a zero denominator is usually the
// sample's doing (a cohort or stratum the 100-patient demo leaves empty),
// so failing the query would blame it for the data; the warning keeps the
// difference from BigQuery visible.
func RelaxDivision(msg string) (redefine, warning string, ok bool) {
	if !strings.HasPrefix(msg, "division by zero") {
		return "", "", false
	}
	return nullOnZero, "BigQuery would fail here with \"" + firstLine(msg) + "\"; on this sample database every division by zero gave NULL instead", true
}

// weekStart is the last day on or before the DATE d that is weekday k
// (Sunday = 0).
func weekStart(d string, k int) string {
	return fmt.Sprintf("(%s - CAST((dayofweek(%s) - %d + 7) %% 7 AS INTEGER))", d, d, k)
}

func weekdayOf(part string) int {
	switch part {
	case "WEEK":
		return 0
	case "ISOWEEK":
		return 1
	}
	return weekdays[strings.TrimPrefix(part, "WEEK_")]
}

func isWeek(part string) bool { return strings.HasPrefix(part, "WEEK") || part == "ISOWEEK" }

// dateDiff counts part boundaries between the DATEs a and b (a - b).
func dateDiff(part, a, b string) string {
	switch {
	case part == "DAY":
		return fmt.Sprintf("(%s - %s)", a, b)
	case isWeek(part):
		k := weekdayOf(part)
		return fmt.Sprintf("((%s - %s) // 7)", weekStart(a, k), weekStart(b, k))
	case part == "MONTH":
		return fmt.Sprintf("((year(%s) * 12 + month(%s)) - (year(%s) * 12 + month(%s)))", a, a, b, b)
	case part == "QUARTER":
		return fmt.Sprintf("((year(%s) * 4 + quarter(%s)) - (year(%s) * 4 + quarter(%s)))", a, a, b, b)
	case part == "YEAR":
		return fmt.Sprintf("(year(%s) - year(%s))", a, b)
	case part == "ISOYEAR":
		return fmt.Sprintf("(isoyear(%s) - isoyear(%s))", a, b)
	}
	panic("dateDiff: " + part)
}

var microsPer = map[string]string{"MICROSECOND": "1", "MILLISECOND": "1000", "SECOND": "1000000",
	"MINUTE": "60000000", "HOUR": "3600000000", "DAY": "86400000000"}

// datetimeDiff counts part boundaries between the TIMESTAMPs a and b.
func datetimeDiff(part, a, b string) string {
	if dateLevel(part) {
		return dateDiff(part, "CAST("+a+" AS DATE)", "CAST("+b+" AS DATE)")
	}
	if part == "MICROSECOND" {
		return fmt.Sprintf("(epoch_us(%s) - epoch_us(%s))", a, b)
	}
	p := strings.ToLower(part)
	return fmt.Sprintf("((epoch_us(date_trunc('%s', %s)) - epoch_us(date_trunc('%s', %s))) // %s)", p, a, p, b, microsPer[part])
}

// dateTrunc truncates the DATE d to part.
func dateTrunc(part, d string) string {
	switch {
	case part == "DAY":
		return d
	case isWeek(part):
		return weekStart(d, weekdayOf(part))
	case part == "ISOYEAR":
		return fmt.Sprintf("CAST(date_trunc('week', make_date(isoyear(%s), 1, 4)) AS DATE)", d)
	}
	return fmt.Sprintf("CAST(date_trunc('%s', %s) AS DATE)", strings.ToLower(part), d)
}

// extractExpr extracts part from x (a DATE, TIMESTAMP or TIMESTAMPTZ).
func extractExpr(part, x string) string {
	switch {
	case part == "DAYOFWEEK":
		return fmt.Sprintf("(dayofweek(%s) + 1)", x)
	case part == "ISOWEEK":
		return fmt.Sprintf("week(%s)", x)
	case isWeek(part):
		// Weeks start on weekday k; days before the year's first k-day
		// are in week 0.
		k := weekdayOf(part)
		return fmt.Sprintf("((dayofyear(%s) + 6 - ((dayofweek(%s) - %d + 7) %% 7)) // 7)", x, x, k)
	case part == "MILLISECOND":
		return fmt.Sprintf("(millisecond(%s) %% 1000)", x)
	case part == "MICROSECOND":
		return fmt.Sprintf("(microsecond(%s) %% 1000000)", x)
	}
	return fmt.Sprintf("%s(%s)", strings.ToLower(part), x)
}

// raise is an expression of type typ that fails at run time with msg. It is
// a failing CAST rather than error(): DuckDB treats error() as volatile and
// then refuses to let GROUP BY, HAVING or ORDER BY refer to a select-list
// alias whose expression contains it; BigQuery allows that.
func raise(msg, typ string) string {
	lit := "'" + strings.ReplaceAll(msg, "'", "''") + "'"
	if typ == "VARCHAR" {
		return "CAST(CAST(" + lit + " AS BIGINT) AS VARCHAR)"
	}
	return "CAST(" + lit + " AS " + typ + ")"
}

// DuckDB 1.5 cannot pick among typed macro overloads when an argument is a
// correlated column (it reports "multiple overloads match"), and correlated
// date arithmetic is common (EXISTS (… WHERE DATETIME_DIFF(x.t, outer.t, HOUR)
// …)). So the families whose result type does not depend on the argument
// type (_DIFF, EXTRACT) dispatch on typeof() inside one untyped macro; every
// branch must bind for every argument type, hence the TRY_CASTs, and the
// constant typeof() lets DuckDB fold the CASE away. Type errors BigQuery
// raises at analysis become runtime errors here.

const (
	tDate  = "'DATE'"
	tDT    = "'TIMESTAMP'"
	tTS    = "'TIMESTAMP WITH TIME ZONE'"
	tNull  = `'"NULL"'`
	tTimes = "('DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', '\"NULL\"')"
)

// diffMacro renders bq_<fam>_diff_<part>(a, b).
func diffMacro(fam, part string) string {
	fname := strings.ToUpper(fam) + "_DIFF"
	psql := partSQL(part)
	d := func(x string) string { return "TRY_CAST(" + x + " AS DATE)" }
	dt := func(x string) string { return "TRY_CAST(" + x + " AS TIMESTAMP)" }
	ts := func(x string) string { return "TRY_CAST(" + x + " AS TIMESTAMPTZ)" }
	var dateCase string
	switch {
	case fam == "date" && dateLevel(part):
		dateCase = dateDiff(part, d("a"), d("b"))
	case fam == "date":
		dateCase = raise(fname+" does not support the "+psql+" date part", "BIGINT")
	default:
		dateCase = datetimeDiff(part, dt("a"), dt("b"))
	}
	tsCase := raise(fname+" does not support the "+psql+" date part when the argument is TIMESTAMP type", "BIGINT")
	if us, ok := microsPer[part]; ok {
		tsCase = fmt.Sprintf("((epoch_us(%s) - epoch_us(%s)) // %s)", ts("a"), ts("b"), us)
	}
	return fmt.Sprintf(`CREATE OR REPLACE TEMP MACRO bq_%s_diff_%s(a, b) AS CASE
	WHEN typeof(a) NOT IN %s OR typeof(b) NOT IN %s
		THEN CAST('No matching signature for function %s for argument types: ' || typeof(a) || ', ' || typeof(b) AS BIGINT)
	WHEN typeof(a) IN (%s, %s) AND typeof(b) IN (%s, %s) THEN %s
	WHEN (typeof(a) = %s AND typeof(b) = %s) OR (typeof(a) = %s AND typeof(b) = %s)
		THEN CAST('No matching signature for function %s for argument types: DATETIME, TIMESTAMP' AS BIGINT)
	WHEN typeof(a) = %s OR typeof(b) = %s THEN %s
	ELSE %s END;
`, fam, strings.ToLower(part), tTimes, tTimes, fname,
		tDate, tNull, tDate, tNull, dateCase,
		tTS, tDT, tDT, tTS, fname,
		tTS, tTS, tsCase,
		datetimeDiff(part, dt("a"), dt("b")))
}

// extractMacro renders bq_extract_<part>(x).
func extractMacro(part string) string {
	y := "TRY_CAST(x AS TIMESTAMP)"
	generic := extractExpr(part, y)
	typ := map[string]string{"DATE": "DATE", "TIME": "TIME", "DATETIME": "TIMESTAMP"}[part]
	if typ == "" {
		typ = "BIGINT"
	}
	switch part {
	case "DATE":
		generic = "CAST(" + y + " AS DATE)"
	case "TIME":
		generic = "CAST(" + y + " AS TIME)"
	case "DATETIME":
		generic = y
	}
	dateCase := generic
	if !dateLevel(part) || part == "TIME" {
		dateCase = raise("EXTRACT from DATE does not support the "+partSQL(part)+" date part", typ)
	}
	if part == "DATETIME" {
		dateCase = raise("EXTRACT DATETIME from DATE is not supported", typ)
	}
	// INTERVAL: BigQuery keeps an interval's months, days and time apart and
	// EXTRACT reads each part as it is, unnormalised (the interval functions
	// reference: INTERVAL '0-13 370 48:61:61' gives DAY 370, HOUR 49,
	// MINUTE 2); a negative time part's sign distributes over its hours,
	// minutes and seconds. DuckDB's INTERVAL keeps the same three parts, and
	// its datetime subtraction splits whole days off the time as BigQuery's
	// does (the released runs' EXTRACT(DAY FROM dischtime - admittime)), so
	// the parts are read from DuckDB's fields; DuckDB's // and % truncate
	// toward zero, which is the distributed sign.
	iv := "TRY_CAST(x AS INTERVAL)"
	us := "bq_interval_time_us(" + iv + ")"
	ivCase := raise("EXTRACT from INTERVAL does not support the "+partSQL(part)+" date part", typ)
	timeCase := raise("EXTRACT from TIME does not support the "+partSQL(part)+" date part", typ)
	switch part {
	case "YEAR":
		ivCase = "date_part('year', " + iv + ")"
	case "MONTH":
		ivCase = "date_part('month', " + iv + ")"
	case "DAY":
		ivCase = "date_part('day', " + iv + ")"
	case "HOUR":
		ivCase = "(" + us + " // 3600000000)"
		timeCase = "hour(TRY_CAST(x AS TIME))"
	case "MINUTE":
		ivCase = "((" + us + " % 3600000000) // 60000000)"
		timeCase = "minute(TRY_CAST(x AS TIME))"
	case "SECOND":
		ivCase = "((" + us + " % 60000000) // 1000000)"
		timeCase = "second(TRY_CAST(x AS TIME))"
	case "MILLISECOND":
		ivCase = "((" + us + " % 1000000) // 1000)"
		timeCase = "(millisecond(TRY_CAST(x AS TIME)) % 1000)"
	case "MICROSECOND":
		ivCase = "(" + us + " % 1000000)"
		timeCase = "(microsecond(TRY_CAST(x AS TIME)) % 1000000)"
	}
	return fmt.Sprintf(`CREATE OR REPLACE TEMP MACRO bq_extract_%s(x) AS CASE
	WHEN typeof(x) = 'INTERVAL' THEN %s
	WHEN typeof(x) = 'TIME' THEN %s
	WHEN typeof(x) = %s THEN %s
	WHEN typeof(x) NOT IN %s
		THEN CAST('No matching signature for function EXTRACT for argument types: DATE_TIME_PART FROM ' || typeof(x) AS %s)
	ELSE %s END;
`, strings.ToLower(part), ivCase, timeCase, tDate, dateCase, tTimes, typ, generic)
}

// overloaded writes a macro with one overload per argument type, and each
// overload again as a macro of its own, named for the BigQuery type it
// takes (bq_date_add_day__datetime). DuckDB cannot choose an overload for an
// argument from an outer query (a correlated column): it binds macro
// arguments without the outer scope. Where the translator knows the
// argument's type it calls the single-typed macro, which binds.
func overloaded(b *strings.Builder, name string, over []string) {
	fmt.Fprintf(b, "CREATE OR REPLACE TEMP MACRO %s%s;\n", name, strings.Join(over, ",\n\t"))
	for _, o := range over {
		param, _, _ := strings.Cut(strings.TrimPrefix(o, "(x "), ")")
		param, _, _ = strings.Cut(param, ",")
		if suffix, ok := typedSuffix[param]; ok {
			fmt.Fprintf(b, "CREATE OR REPLACE TEMP MACRO %s__%s%s;\n", name, suffix, o)
		}
	}
}

// typedSuffix names the single-typed macros by the DuckDB type of their
// first parameter: the BigQuery type it stands for.
var typedSuffix = map[string]string{"DATE": "date", "TIMESTAMP": "datetime", "TIMESTAMPTZ": "timestamp"}

// buildMacros generates the date/time macro families.
func buildMacros() string {
	var b strings.Builder
	b.WriteString(staticMacros)
	b.WriteString(civilMacros)
	b.WriteString(bytesMacros)
	b.WriteString(caseMacros())
	b.WriteString(boundsMacros)
	for _, fam := range []string{"date", "datetime", "timestamp"} {
		fname := strings.ToUpper(fam)
		for _, part := range timeParts {
			p := strings.ToLower(part)
			psql := partSQL(part)
			b.WriteString(diffMacro(fam, part))

			// _TRUNC: the result type follows the argument type, so these
			// are overloaded (see overloaded for correlated arguments).
			var over []string
			switch {
			case fam == "date" && dateLevel(part):
				over = append(over, "(x DATE) AS "+dateTrunc(part, "x"))
			case fam == "date":
				over = append(over, "(x DATE) AS "+raise(fname+"_TRUNC does not support the "+psql+" date part", "DATE"))
			case dateLevel(part):
				over = append(over, "(x DATE) AS CAST("+dateTrunc(part, "x")+" AS TIMESTAMP)")
			default:
				over = append(over, "(x DATE) AS date_trunc('"+p+"', CAST(x AS TIMESTAMP))")
			}
			if dateLevel(part) {
				over = append(over, "(x TIMESTAMP) AS CAST("+dateTrunc(part, "CAST(x AS DATE)")+" AS TIMESTAMP)",
					"(x TIMESTAMPTZ) AS CAST("+dateTrunc(part, "CAST(x AS DATE)")+" AS TIMESTAMPTZ)")
			} else {
				over = append(over, "(x TIMESTAMP) AS date_trunc('"+p+"', x)",
					"(x TIMESTAMPTZ) AS date_trunc('"+p+"', x)")
			}
			overloaded(&b, fmt.Sprintf("bq_%s_trunc_%s", fam, p), over)

			// DATE_ADD / DATE_SUB keep DATE results for DATE arguments;
			// DATETIME_ADD and TIMESTAMP_ADD are plain interval arithmetic,
			// emitted inline by the translator.
			if fam != "date" || !isIntervalPart(part) {
				continue
			}
			unit := intervalUnit(part)
			over = over[:0]
			if dateLevel(part) {
				over = append(over, "(x DATE, n BIGINT) AS CAST(x + n * "+unit+" AS DATE)")
			} else {
				over = append(over, "(x DATE, n BIGINT) AS "+raise("DATE_ADD does not support the "+psql+" date part", "DATE"))
			}
			over = append(over, "(x TIMESTAMP, n BIGINT) AS x + n * "+unit, "(x TIMESTAMPTZ, n BIGINT) AS x + n * "+unit)
			overloaded(&b, "bq_date_add_"+p, over)
		}
	}
	b.WriteString(roundMacros())
	for _, part := range extractParts {
		b.WriteString(extractMacro(part))
	}
	return b.String()
}

const minRoundDigits, maxRoundDigits = -15, 20

func roundMacro(d int) string {
	if d < 0 {
		return fmt.Sprintf("bq_round_m%d", -d)
	}
	return fmt.Sprintf("bq_round_%d", d)
}

// raised finds, in a DuckDB error message, the BigQuery error a prelude
// macro raised. The macros raise errors by casting BigQuery's message to a
// number or a date (DuckDB's error() would mark every expression using it
// as side-effecting, which DuckDB then refuses to reference by alias), so
// DuckDB reports "Could not convert string '<message>' to DOUBLE" or a
// date-format complaint quoting it.
var raised = regexp.MustCompile(`['"]((?:division by zero: |Floating point error in function: |LIKE pattern ends with a backslash|No matching signature for (?:function |operator LIKE )|Bad int64 value: |\w+ argument in \w+\(\) (?:cannot be|must be)|(?:DATE|DATETIME|TIMESTAMP)_(?:ADD|SUB) causes overflow: |numeric overflow: |Sequence step cannot be 0|Interval field |An argument of \w+ failed on a row)[^'"]*)['"]`)

// bridgeLimit finds a prelude macro's report that a value is past what the
// bridge can compute faithfully: unsupported, not the query's fault.
var bridgeLimit = regexp.MustCompile(`['"]((?:AVG|STDDEV\w*|VAR\w*) of (?:BIG)?NUMERIC values [^'"]* is not supported|TO_JSON_STRING of [^'"]* is not supported|LIKE with a BYTES pattern [^'"]* is not supported)['"]`)

// castFormatLimit finds a CAST … FORMAT the Go functions do not implement
// (an element such as IYYY, BASE8 of a partial group), and
// castFormatNumber DuckDB's complaint that none takes a number: BigQuery's
// number formats ('999.99').
var (
	castFormatLimit  = regexp.MustCompile(`(CAST … FORMAT [^\n]*? is not supported)`)
	castFormatNumber = regexp.MustCompile(`'` + castToStringFunc + `\((?:TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|DOUBLE|FLOAT|DECIMAL|INTEGER_LITERAL)`)
)

// blobLike finds DuckDB's complaint that LIKE takes no BLOB pattern
// against a BLOB: valid BigQuery (BYTES LIKE BYTES). Its complaint about a
// BLOB against the escaped text pattern (like_escape(BLOB, VARCHAR, …)) is
// read so too: the operand's type was unknown to the bridge, and the
// pattern (bq_like_any_pattern's) may be BYTES as well.
var blobLike = regexp.MustCompile(`argument types '(?:(?:!?~~|(?:not_)?like_escape)\(BLOB, BLOB|(?:not_)?like_escape\(BLOB, VARCHAR)(?:, [A-Z_]+)?\)'|No matching signature for operator (?:NOT )?LIKE for argument types: (?:BLOB|BYTES), (?:BLOB|BYTES)(?:, [A-Z_]+)?$`)

// bitAggBytes finds DuckDB's complaint that its bit aggregates take no
// BLOB: valid BigQuery (BIT_AND, BIT_OR and BIT_XOR of BYTES).
var bitAggBytes = regexp.MustCompile(`'bit_(and|or|xor)\(BLOB\)'`)

// topCountOfIntervals is the error APPROX_TOP_COUNT raises over INTERVAL
// values (see approxTopCount).
const topCountOfIntervals = "APPROX_TOP_COUNT of INTERVAL values is not supported"

// intervalSum finds DuckDB's complaint that it has no SUM of INTERVAL.
var intervalSum = regexp.MustCompile(`No function matches the given name and argument types 'sum\((?:DISTINCT )?INTERVAL\)'`)

// wideBignumeric finds a number past DECIMAL(38, 18), the embedded
// engine's BIGNUMERIC (BigQuery's holds 38 integer digits).
var wideBignumeric = regexp.MustCompile(`Could not convert string "(-?\d{21,}(?:\.\d*)?)" to DECIMAL\(38, ?18\)|Casting value "(-?\d{21,}(?:\.\d*)?)" to type DECIMAL\(38, ?18\) failed`)

// overloads finds DuckDB's complaint that it cannot choose between the
// typed overloads of a bridge macro: it does not know the type of a
// correlated argument (an outer query's column) when it binds a macro.
var overloads = regexp.MustCompile(`Macro bq_([a-z]+)_([a-z]+)_[a-z0-9]+\(\) has multiple overloads`)

// Explain is the DuckDB engine's Options.Explain for the bridge. It returns
// the BigQuery message ("division by zero: 1 / 0") that a prelude macro
// raised, if msg is such an error; for the bridge's own limits, a message
// saying so and unsupported true; msg unchanged otherwise.
func Explain(msg string) (out string, unsupported bool) {
	if strings.Contains(msg, "database/sql/driver: ") {
		// A Go function failed: one of the bridge's on a value (marked,
		// or the bridge's CAST … FORMAT limit), or the engine's own result
		// filter, which is no concern of the query's (left unchanged).
		if m := castFormatLimit.FindStringSubmatch(msg); m != nil {
			return ErrUnsupported.Error() + ": " + m[1], true
		}
		if _, m, ok := strings.Cut(msg, goFunctionMark); ok {
			return firstLine(m), false
		}
		return msg, false
	}
	if out, unsupported, ok := explainBounds(msg); ok {
		return out, unsupported
	}
	if m := raised.FindStringSubmatch(msg); m != nil {
		return bigQueryTypes(m[1]), false
	}
	if m := bridgeLimit.FindStringSubmatch(msg); m != nil {
		return ErrUnsupported.Error() + ": " + m[1], true
	}
	if strings.Contains(msg, "Combining QUALIFY with GROUP BY ALL is not supported") {
		return ErrUnsupported.Error() + ": QUALIFY with GROUP BY ALL is not supported", true
	}
	if m := castFormatLimit.FindStringSubmatch(msg); m != nil {
		return ErrUnsupported.Error() + ": " + m[1], true
	}
	if castFormatNumber.MatchString(msg) {
		return ErrUnsupported.Error() + ": CAST … FORMAT from a number to STRING is not supported", true
	}
	if strings.Contains(msg, "Pivot expression cannot contain subqueries") ||
		strings.Contains(msg, "Columns can only be referenced within the aggregate of a PIVOT expression") {
		// Valid BigQuery (a subquery, or the HAVING modifier, inside a
		// PIVOT aggregate) that DuckDB's PIVOT refuses.
		return ErrUnsupported.Error() + ": PIVOT of an aggregate with a subquery or the HAVING modifier is not supported", true
	}
	if blobLike.MatchString(msg) {
		// BigQuery matches BYTES against BYTES patterns; DuckDB has no
		// LIKE over BLOB.
		return ErrUnsupported.Error() + ": LIKE on BYTES is not supported", true
	}
	if strings.Contains(msg, "Pivot expression must contain exactly one aggregate") {
		// The bridge computes some aggregates from several DuckDB ones
		// (STDDEV and VARIANCE, CORR and COVAR over FLOAT64); DuckDB's
		// PIVOT takes one.
		return ErrUnsupported.Error() + ": PIVOT of an aggregate the engine computes from several aggregates is not supported", true
	}
	if m := bitAggBytes.FindStringSubmatch(msg); m != nil {
		return ErrUnsupported.Error() + ": BIT_" + strings.ToUpper(m[1]) + " of BYTES is not supported", true
	}
	if strings.Contains(msg, topCountOfIntervals) {
		return ErrUnsupported.Error() + ": " + topCountOfIntervals, true
	}
	if intervalSum.MatchString(msg) {
		// BigQuery sums INTERVALs; DuckDB has no such sum.
		return ErrUnsupported.Error() + ": SUM of INTERVAL values is not supported", true
	}
	if wideBignumeric.MatchString(msg) {
		// The engine's BIGNUMERIC is DECIMAL(38, 18).
		return ErrUnsupported.Error() + ": BIGNUMERIC values of more than 20 integer digits are not supported", true
	}
	if m := overloads.FindStringSubmatch(msg); m != nil {
		fn := strings.ToUpper(m[1] + "_" + m[2])
		return fmt.Sprintf("%s on a column of an outer query (a correlated reference) is not supported by the embedded engine: "+
			"it cannot tell whether the column is a DATE or a DATETIME (%s)", fn, firstLine(msg)), true
	}
	return bigQueryWording(msg), false
}

// noMatch is DuckDB's complaint that no overload of a function or operator
// takes the argument types, and noMacro the same for a prelude macro.
var (
	noMatch = regexp.MustCompile(`No function matches the given name and argument types '([^(']+)\((.*?)\)'\. You might need to add explicit type casts\.`)
	noMacro = regexp.MustCompile(`Macro (\w+)\(\) does not support the supplied arguments\. You might need to add explicit type casts\.`)
)

// bigQueryWording words a DuckDB error the model is shown as BigQuery
// would, as far as it can be: a missing overload becomes BigQuery's "No
// matching signature", DuckDB's type names BigQuery's (the model wrote
// BigQuery SQL and knows no BIGINT or VARCHAR).
func bigQueryWording(msg string) string {
	msg = noMatch.ReplaceAllStringFunc(msg, func(m string) string {
		sub := noMatch.FindStringSubmatch(m)
		return fmt.Sprintf("No matching signature for %s for argument types: %s", functionName(sub[1]), sub[2])
	})
	msg = noMacro.ReplaceAllStringFunc(msg, func(m string) string {
		return fmt.Sprintf("No matching signature for %s for the argument types given", functionName(noMacro.FindStringSubmatch(m)[1]))
	})
	return bigQueryMessage(msg)
}

// functionName names a DuckDB function or prelude macro as the BigQuery
// function or operator it stands for.
func functionName(duck string) string {
	switch duck {
	case "~~", "~~~", "like_escape":
		return "operator LIKE"
	case "!~~", "not_like_escape":
		return "operator NOT LIKE"
	}
	if !isIdentStart(duck[0]) {
		return "operator " + duck
	}
	name := strings.TrimPrefix(duck, "bq_")
	if i := strings.Index(name, "__"); i > 0 {
		name = name[:i] // a typed overload's suffix
	}
	return "function " + strings.ToUpper(name)
}

// duckTypes are DuckDB's type names in error messages, longest first, with
// the BigQuery type each stands for in the embedded database.
var (
	duckTypes = regexp.MustCompile(`\b(DECIMAL\(\d+, ?\d+\)|(?:TIMESTAMP WITH TIME ZONE|TIMESTAMPTZ|TIMESTAMP_NS|TIMESTAMP_MS|TIMESTAMP_S|TIMESTAMP|` +
		`HUGEINT|UBIGINT|BIGINT|INTEGER|SMALLINT|TINYINT|INT32|INT16|INT8|DOUBLE|FLOAT|REAL|VARCHAR|BOOLEAN|BLOB)\b)(\[\])?`)
	bigQueryOf = map[string]string{
		"TIMESTAMP WITH TIME ZONE": "TIMESTAMP", "TIMESTAMPTZ": "TIMESTAMP", "TIMESTAMP_NS": "DATETIME",
		"TIMESTAMP_MS": "DATETIME", "TIMESTAMP_S": "DATETIME", "TIMESTAMP": "DATETIME",
		"DECIMAL(38,18)": "BIGNUMERIC", "HUGEINT": "INT64", "UBIGINT": "INT64", "BIGINT": "INT64",
		"INTEGER": "INT64", "SMALLINT": "INT64", "TINYINT": "INT64", "INT32": "INT64", "INT16": "INT64",
		"INT8": "INT64", "DOUBLE": "FLOAT64", "FLOAT": "FLOAT64", "REAL": "FLOAT64", "VARCHAR": "STRING",
		"BOOLEAN": "BOOL", "BLOB": "BYTES",
	}
)

// bigQueryTypes replaces DuckDB's type names by BigQuery's (VARCHAR[] is
// ARRAY<STRING>; every DECIMAL but BIGNUMERIC's is NUMERIC).
func bigQueryTypes(msg string) string {
	return duckTypes.ReplaceAllStringFunc(msg, func(m string) string {
		sub := duckTypes.FindStringSubmatch(m)
		t := strings.ReplaceAll(sub[1], " ", "")
		if sub[1] == "TIMESTAMP WITH TIME ZONE" {
			t = sub[1]
		}
		bq, ok := bigQueryOf[t]
		if !ok {
			bq = "NUMERIC" // DECIMAL(p, s)
		}
		if sub[2] != "" {
			return "ARRAY<" + bq + ">"
		}
		return bq
	})
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
