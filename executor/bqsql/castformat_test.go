package bqsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// CAST … FORMAT and SAFE_CAST … FORMAT, with BigQuery's format elements
// (the "Format clause for CAST" of the conversion rules reference).
func TestCastFormatRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "date and time to STRING", bq: `SELECT CAST(DATE '2018-01-30' AS STRING FORMAT 'YYYY-MM-DD'), CAST(DATE '2018-01-30' AS STRING FORMAT 'Mon DD, YYYY'), CAST(DATE '2018-01-30' AS STRING FORMAT 'MONTH DAY dy ddd d YYY YY Y')`,
			want: "2018-01-30 | Jan 30, 2018 | JANUARY TUESDAY tue 030 3 018 18 8"},
		{name: "DATETIME and TIME to STRING", bq: `SELECT CAST(DATETIME '2020-06-03 13:04:05.123456' AS STRING FORMAT 'HH12:MI:SS PM hh24 SSSSS FF3 a.m.'), CAST(TIME '00:08:09' AS STRING FORMAT 'HH:MI:SS.FF6 AM')`,
			want: "01:04:05 PM 13 47045 123 p.m. | 12:08:09.000000 AM"},
		{name: "TIMESTAMP to STRING in a zone", bq: `SELECT CAST(TIMESTAMP '2008-12-25 15:30:00+00' AS STRING FORMAT 'YYYY-MM-DD HH24:MI TZH:TZM' AT TIME ZONE 'America/Los_Angeles'), CAST(TIMESTAMP '2008-12-25 15:30:00+00' AS STRING FORMAT 'HH24 TZH')`,
			want: "2008-12-25 07:30 -08:00 | 15 +00"},
		{name: "quoted literal text", bq: `SELECT CAST(DATE '2018-01-30' AS STRING FORMAT '"Year" YYYY')`, want: "Year 2018"},
		{name: "STRING to date and time", bq: `SELECT CAST('30/01/2018' AS DATE FORMAT 'DD/MM/YYYY'), CAST('2018-JAN-30 01:02:03.25 PM' AS DATETIME FORMAT 'YYYY-MON-DD HH12:MI:SS.FF2 AM'), CAST('13:14' AS TIME FORMAT 'HH24:MI')`,
			want: "2018-01-30 | 2018-01-30 13:02:03.25 | 13:14:00"},
		{name: "STRING to TIMESTAMP in a zone or with an offset", bq: `SELECT CAST('2021-11-01' AS TIMESTAMP FORMAT 'YYYY-MM-DD' AT TIME ZONE 'America/Los_Angeles'), CAST('2021-11-01 10 +05:30' AS TIMESTAMP FORMAT 'YYYY-MM-DD HH24 TZH:TZM')`,
			want: "2021-11-01 07:00:00+00 | 2021-11-01 04:30:00+00"},
		// A missing year or month is the current one, a missing day 1.
		{name: "default fields", bq: `SELECT EXTRACT(YEAR FROM d) = EXTRACT(YEAR FROM CURRENT_DATE()), EXTRACT(MONTH FROM d) = EXTRACT(MONTH FROM CURRENT_DATE()), CAST(d AS STRING FORMAT 'DD'), CAST('' AS TIME FORMAT '') FROM (SELECT CAST('' AS DATE FORMAT '') AS d)`,
			want: "true | true | 01 | 00:00:00"},
		{name: "RR years", bq: `SELECT EXTRACT(YEAR FROM CAST('05' AS DATE FORMAT 'YY')) = EXTRACT(YEAR FROM CURRENT_DATE()) - MOD(EXTRACT(YEAR FROM CURRENT_DATE()), 100) + 5`, want: "true"},
		{name: "NULL value, format or zone", bq: `SELECT CAST(DATE '2018-01-30' AS STRING FORMAT CAST(NULL AS STRING)), CAST(CAST(NULL AS STRING) AS DATE FORMAT 'YYYY'), CAST('2018' AS TIMESTAMP FORMAT 'YYYY' AT TIME ZONE NULL)`,
			want: "NULL | NULL | NULL"},
		{name: "a format from a column", bq: `SELECT CAST(DATE '2018-01-30' AS STRING FORMAT f) FROM UNNEST(['YYYY', 'MM']) AS f ORDER BY 1`, want: "01\n2018"},
		{name: "an element the type lacks", bq: `SELECT CAST(DATE '2018-01-30' AS STRING FORMAT 'YYYY MI')`, err: errRuntime},
		{name: "an element the output type lacks", bq: `SELECT CAST('2018 10' AS DATE FORMAT 'YYYY MI')`, err: errRuntime},
		{name: "an element twice", bq: `SELECT CAST('2018 2018' AS DATE FORMAT 'YYYY YYYY')`, err: errRuntime},
		{name: "an unknown element", bq: `SELECT CAST(TIMESTAMP '2018-01-30 00:00:00+00' AS STRING FORMAT 'ab')`, err: errRuntime},
		{name: "text that does not match", bq: `SELECT CAST('2018/01' AS DATE FORMAT 'YYYY-MM')`, err: errRuntime},
		{name: "an invalid date", bq: `SELECT CAST('2018-02-30' AS DATE FORMAT 'YYYY-MM-DD')`, err: errRuntime},
		{name: "SAFE_CAST gives NULL", bq: `SELECT SAFE_CAST('2018-02-30' AS DATE FORMAT 'YYYY-MM-DD'), SAFE_CAST('x' AS DATE FORMAT 'ab')`, want: "NULL | NULL"},
		{name: "BYTES to STRING", bq: `SELECT CAST(b'abc' AS STRING FORMAT 'base2'), CAST(b'abc' AS STRING FORMAT 'BASE8'), CAST(b'abc' AS STRING FORMAT 'hex'), CAST(b'abc' AS STRING FORMAT 'base32'), CAST(b'abc' AS STRING FORMAT 'Base64'), CAST(b'abc' AS STRING FORMAT 'utf-8')`,
			want: "011000010110001001100011 | 30261143 | 616263 | MFRGG=== | YWJj | abc"},
		{name: "STRING to BYTES", bq: `SELECT CAST('011000010110001001100011' AS BYTES FORMAT 'BASE2') = b'abc', CAST('30261143' AS BYTES FORMAT 'base8') = b'abc', CAST('616263' AS BYTES FORMAT 'HEX') = b'abc', CAST('YWJj' AS BYTES FORMAT 'base64') = b'abc', CAST('abc' AS BYTES FORMAT 'ascii') = b'abc'`,
			want: "true | true | true | true | true"},
		{name: "invalid BYTES input", bq: `SELECT CAST(b'\xe2\x28\xa1' AS STRING FORMAT 'utf8')`, err: errRuntime},
		{name: "invalid STRING input", bq: `SELECT CAST('123' AS BYTES FORMAT 'base2')`, err: errRuntime},
		{name: "an unknown BYTES format", bq: `SELECT CAST(b'abc' AS STRING FORMAT 'x' || 'y')`, err: errRuntime},
		{name: "SAFE_CAST of BYTES gives NULL", bq: `SELECT SAFE_CAST(b'\xe2\x28\xa1' AS STRING FORMAT 'utf8'), SAFE_CAST('123' AS BYTES FORMAT 'base2'), SAFE_CAST('123' AS BYTES FORMAT 'xyz')`, want: "NULL | NULL | NULL"},
		// Number formats ('999.99') are not implemented.
		{name: "a number to STRING", bq: `SELECT CAST(12 AS STRING FORMAT '99')`, err: ErrUnsupported},
		{name: "STRING to a number", bq: `SELECT CAST('12' AS INT64 FORMAT '99')`, err: ErrUnsupported},
		{name: "AT TIME ZONE on a DATE", bq: `SELECT CAST('2018' AS DATE FORMAT 'YYYY' AT TIME ZONE 'UTC')`, err: ErrInvalid},
	})
}

// What the bridge does not implement is reported unsupported, not as the
// model's error, also where the format is only known at run time.
func TestCastFormatLimitsExplained(t *testing.T) {
	db := openDuck(t)
	for _, q := range []string{
		`SELECT CAST(x AS STRING FORMAT '99') FROM UNNEST([1]) AS x`,
		`SELECT CAST('2018' AS DATE FORMAT f) FROM UNNEST(['IYYY']) AS f`,
		`SELECT CAST(b'ab' AS STRING FORMAT 'base8')`,
	} {
		// Refused when translated, where the bridge knows the types (the
		// statement model types x), or by Explain when it runs.
		if _, err := Translate(q); errors.Is(err, ErrUnsupported) {
			continue
		}
		if msg, unsupported := explainedError(t, db, q); !unsupported || !strings.Contains(msg, "is not supported") {
			t.Errorf("%s: Explain = %q, %v; want unsupported", q, msg, unsupported)
		}
	}
}

// A value a Go function cannot convert (CAST … FORMAT of text that does not
// match the format, an unknown time zone) is the query's error in BigQuery's
// words: Explain recognises the mark the functions put on it, so the engine
// charges the query, not itself (TestGoFunctionErrors in executor/duckdb).
func TestGoFunctionErrorsExplained(t *testing.T) {
	db := openDuck(t)
	for _, c := range []struct{ bq, want string }{
		{`SELECT CAST('abc' AS DATE FORMAT 'YYYY-MM-DD')`, "Failed to parse input string"},
		{`SELECT CAST(b'\xff' AS STRING FORMAT 'UTF-8')`, "A string is not valid UTF-8."},
		{`SELECT EXTRACT(HOUR FROM TIMESTAMP '2020-01-01 00:00:00+00' AT TIME ZONE 'Nowhere/Else')`, "Invalid time zone: Nowhere/Else"},
	} {
		msg, unsupported := explainedError(t, db, c.bq)
		if unsupported || !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s: Explain = %q, %v; want the query's error %q", c.bq, msg, unsupported, c.want)
		}
	}
}

func TestFormatTimeElems(t *testing.T) {
	ts := time.Date(987, 3, 4, 0, 5, 6, 789000000, time.UTC)
	cases := []struct{ typ, f, want string }{
		{"DATETIME", "YYYY RRRR RR Y", "0987 0987 87 7"},
		{"DATETIME", "HH HH12 HH24 AM Am am", "12 12 00 AM Am am"},
		{"DATETIME", "FF1 FF2 FF9", "7 78 789000000"},
		{"DATETIME", "mon Mon MON month", "mar Mar MAR march"},
		{"DATE", "HH", "DATE does not support 'HH'"},
		{"TIME", "YYYY", "TIME does not support 'YYYY'"},
		{"DATETIME", "TZH", "DATETIME does not support 'TZH'"},
		{"TIMESTAMP", "ab", "Cannot find matched format element at 0"},
		{"TIMESTAMP", `"unclosed`, `Cannot find matching " for quoted literal at 0`},
	}
	for _, c := range cases {
		got, err := formatTimeElems(ts, 0, c.typ, c.f)
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("formatTimeElems(%s, %q) = %q, want %q", c.typ, c.f, got, c.want)
		}
	}
}

func TestParseTimeElems(t *testing.T) {
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	cases := []struct{ typ, s, f, want string }{
		{"DATE", "", "", "2026-12-01 00:00:00"},
		{"DATE", "7", "DD", "2026-12-07 00:00:00"},
		{"DATE", "99", "RR", "1999-12-01 00:00:00"},
		{"DATE", "49", "RR", "2049-12-01 00:00:00"},
		{"DATE", "5", "Y", "2025-12-01 00:00:00"},
		{"DATE", "20180130", "YYYYMMDD", "2018-01-30 00:00:00"},
		{"DATE", "2018 - february", "YYYY - MONTH", "2018-02-01 00:00:00"},
		{"DATETIME", "12 AM", "HH12 AM", "2026-12-01 00:00:00"},
		{"DATETIME", "12 p.m.", "HH P.M.", "2026-12-01 12:00:00"},
		{"DATETIME", "3661", "SSSSS", "2026-12-01 01:01:01"},
		{"DATETIME", "13", "HH12", "CAST … FORMAT parsing of a 12-hour clock without a meridian indicator, or the reverse, is not supported"},
		{"DATE", "1", "D", "CAST … FORMAT parsing of 'D' is not supported"},
		{"DATE", "2018 x", "YYYY", `Illegal non-space trailing data 'x' in string "2018 x"`},
		{"DATE", "2018", "YYYY HH24", "Format element in category HOUR ('HH24') is not allowed for output type DATE"},
		{"DATE", "2018 18", "YYYY RR", "More than one format element in category YEAR exist: 'YYYY' and 'RR'"},
		{"DATE", "10000", "YYYY", `Illegal non-space trailing data '0' in string "10000"`},
	}
	for _, c := range cases {
		r, err := parseTimeElems(c.s, c.f, c.typ, now)
		got := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", r.year, r.month, r.day, r.hour, r.min, r.sec)
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("parseTimeElems(%s, %q, %q) = %q, want %q", c.typ, c.s, c.f, got, c.want)
		}
	}
}

// A typed array literal's field list holds commas that are not argument
// separators (UNNEST(ARRAY<STRUCT<a INT64, b INT64>>[…]) is one argument).
func TestTypedArrayArgumentRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "UNNEST of a typed STRUCT array", bq: `SELECT GENERATE_DATE_ARRAY(s, e, INTERVAL n DAY) FROM UNNEST(ARRAY<STRUCT<s DATE, e DATE, n INT64>>[('2020-03-01', '2020-03-05', 2), ('2020-03-11', '2020-03-11', 1)]) AS r WITH OFFSET ORDER BY offset`,
			want: "[2020-03-01, 2020-03-03, 2020-03-05]\n[2020-03-11]"},
		{name: "a typed array as a function argument", bq: `SELECT ARRAY_LENGTH(ARRAY<STRUCT<x INT64, y STRING>>[(1, 'a'), (2, 'b')]), ARRAY_LENGTH(ARRAY<INT64>[1, 2, 3])`, want: "2 | 3"},
	})
}

func TestUnnestStructsWithOffsetRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "fields of STRUCT elements beside the offset", bq: `SELECT a, b, off FROM UNNEST([STRUCT(1 AS a, 'x' AS b), STRUCT(2, 'y')]) AS s WITH OFFSET AS off ORDER BY off`,
			want: "1 | x | 0\n2 | y | 1"},
		{name: "the element under its alias", bq: `SELECT s.a, offset FROM UNNEST(ARRAY<STRUCT<a INT64, b STRING>>[(5, 'p'), (6, 'q')]) s WITH OFFSET ORDER BY offset`, want: "5 | 0\n6 | 1"},
	})
}

func TestGenerateDateArrayStepRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a zero step is an error", bq: `SELECT GENERATE_DATE_ARRAY('2016-01-01', '2017-01-01', INTERVAL 0 DAY)`, err: errRuntime},
		{name: "a negative step counts down", bq: `SELECT GENERATE_DATE_ARRAY('2016-01-05', '2016-01-01', INTERVAL -2 DAY)`, want: "[2016-01-05, 2016-01-03, 2016-01-01]"},
		{name: "a NULL step gives NULL", bq: `SELECT GENERATE_DATE_ARRAY('2016-01-05', '2016-01-01', INTERVAL CAST(NULL AS INT64) DAY)`, want: "NULL"},
		{name: "GENERATE_ARRAY with a zero step is an error", bq: `SELECT GENERATE_ARRAY(1, 5, 0)`, err: errRuntime},
		{name: "GENERATE_ARRAY with a zero step from a column is an error", bq: `SELECT GENERATE_ARRAY(1, 5, x) FROM UNNEST([0]) AS x`, err: errRuntime},
		{name: "GENERATE_ARRAY steps keep their type", bq: `SELECT GENERATE_ARRAY(1, 5, 2), GENERATE_ARRAY(5, 1, -2), GENERATE_ARRAY(1, 3, CAST(NULL AS INT64))`,
			want: "[1, 3, 5] | [5, 3, 1] | NULL", types: "BIGINT[] | BIGINT[] | BIGINT[]"},
	})
	if msg, _ := explainedError(t, openDuck(t), `SELECT GENERATE_DATE_ARRAY(d, d, INTERVAL 0 DAY) FROM UNNEST([DATE '2016-01-01']) AS d`); msg != "Sequence step cannot be 0." {
		t.Errorf("Explain = %q, want BigQuery's message", msg)
	}
}

// explainedError translates and runs bq, which must fail, and returns what
// Explain makes of the engine's error.
func explainedError(t *testing.T, db *sql.DB, bq string) (string, bool) {
	t.Helper()
	out, err := Translate(bq)
	if err != nil {
		t.Fatalf("Translate(%q): %v", bq, err)
	}
	if _, err = queryRows(context.Background(), db, out); err == nil {
		t.Fatalf("%s ran", bq)
	}
	return Explain(err.Error())
}

// Text that is no BigQuery interval: DuckDB reads '1' as one second.
func TestCastToIntervalRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "SAFE_CAST gives NULL", bq: `SELECT SAFE_CAST('1' AS INTERVAL), SAFE_CAST('P1' AS INTERVAL), SAFE_CAST('1 day' AS INTERVAL)`, want: "NULL | NULL | NULL"},
		{name: "CAST fails", bq: `SELECT CAST('1' AS INTERVAL)`, err: ErrInvalid},
	})
}

func TestConcatIntervalRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "CONCAT of an INTERVAL", bq: `SELECT CONCAT(x), CONCAT('a', x) FROM UNNEST([INTERVAL '1 2 3' MONTH TO HOUR]) x`, want: "0-1 2 3:0:0 | a0-1 2 3:0:0"},
	})
}

// Every name in goFunctions is registered, so the macro check's exemption
// names real functions.
func TestGoFunctionsRegistered(t *testing.T) {
	db := openDuck(t)
	for _, name := range goFunctions {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM duckdb_functions() WHERE function_name = ?`, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("%s is not registered", name)
		}
	}
}

func TestCastBytesToStringRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "UTF-8 bytes", bq: `SELECT CAST(b'\xc3\xa0bc' AS STRING), CAST(b'abc' AS STRING), CAST(CAST(NULL AS BYTES) AS STRING)`, want: "àbc | abc | NULL"},
		{name: "invalid UTF-8 is an error", bq: `SELECT CAST(b'\xe2\x28\xa1' AS STRING)`, err: errRuntime},
		{name: "SAFE_CAST gives NULL", bq: `SELECT SAFE_CAST(b'\xe2\x28\xa1' AS STRING), SAFE_CAST(b'ok' AS STRING), SAFE_CAST(12 AS STRING)`, want: "NULL | ok | 12"},
	})
}

func TestSafeCastArrayRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "an element that fails NULLs the array", bq: `SELECT SAFE_CAST(['100', 'abc'] AS ARRAY<INT64>)`, want: "NULL", types: "BIGINT[]"},
		{name: "NULL elements stay", bq: `SELECT SAFE_CAST(['100', NULL] AS ARRAY<INT64>), SAFE_CAST(CAST(NULL AS ARRAY<STRING>) AS ARRAY<INT64>)`, want: "[100, NULL] | NULL"},
	})
}
