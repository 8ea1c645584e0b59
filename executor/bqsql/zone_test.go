package bqsql

import (
	"testing"
	"time"
)

// CURRENT_DATE, CURRENT_DATETIME and CURRENT_TIME take a time zone: a tz
// database name or an offset. Their values change run to run, so the cases
// compare two zones at the query's one timestamp.
func TestCurrentInZoneRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "offset zones differ by their offset", bq: `SELECT DATETIME_DIFF(CURRENT_DATETIME('+05:30'), CURRENT_DATETIME('UTC'), MINUTE), DATETIME_DIFF(CURRENT_DATETIME('UTC-6'), CURRENT_DATETIME(), MINUTE)`,
			want: "330 | -360"},
		{name: "a zone name", bq: `SELECT DATETIME_DIFF(CURRENT_DATETIME('Asia/Kolkata'), CURRENT_DATETIME('Etc/UTC'), MINUTE)`, want: "330"},
		{name: "CURRENT_DATE on either side of the date line", bq: `SELECT DATE_DIFF(CURRENT_DATE('+14'), CURRENT_DATE('-12'), DAY) IN (1, 2), CURRENT_DATE('Pacific/Kiritimati') >= CURRENT_DATE()`,
			want: "true | true", types: "BOOLEAN | BOOLEAN"},
		{name: "CURRENT_TIME in a zone", bq: `SELECT CURRENT_TIME('+01') = CURRENT_TIME('UTC+1'), CURRENT_TIME('America/New_York') IS NOT NULL`, want: "true | true", types: "BOOLEAN | BOOLEAN"},
		{name: "a NULL zone gives NULL", bq: `SELECT CURRENT_DATE(CAST(NULL AS STRING))`, want: "NULL", types: "DATE"},
		{name: "an unknown zone is an error", bq: `SELECT CURRENT_DATE('foo')`, err: errRuntime},
		{name: "a zone from a column", bq: `SELECT COUNT(DISTINCT CURRENT_DATE(z)) >= 1 FROM UNNEST(['UTC', '+03', 'Europe/Paris']) AS z`, want: "true"},
	})
}

func TestCivilAt(t *testing.T) {
	ts := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		zone, want string
	}{
		{"America/Los_Angeles", "2024-07-01 05:00:00"}, // daylight time, UTC-7
		{"+05", "2024-07-01 17:00:00"},
		{"-06:30", "2024-07-01 05:30:00"},
		{"UTC+0530", "2024-07-01 17:30:00"},
		{"UTC", "2024-07-01 12:00:00"},
		{"Pacific/Kiritimati", "2024-07-02 02:00:00"},
		{"foo", "Invalid time zone: foo"},
		{"", "Invalid time zone: "},
		{"Local", "Invalid time zone: Local"},
		{"+15", "Invalid time zone: +15"},
		{"+05:60", "Invalid time zone: +05:60"},
	}
	for _, c := range cases {
		got, err := civilAt(ts, c.zone)
		s := got.Format(time.DateTime)
		if err != nil {
			s = err.Error()
		}
		if s != c.want {
			t.Errorf("civilAt(%s) = %q, want %q", c.zone, s, c.want)
		}
	}
}

// DATE(STRING) reads a TIMESTAMP string, literal or not, and takes its
// date in UTC (ZetaSQL's DATE(STRING) signature; the compliance tests'
// date_from_string cases under their Los Angeles default zone show the
// conversion).
func TestDateOfStringRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a computed string", bq: `SELECT DATE(CONCAT('2020-09-01', ' 12:34:56.789-08')), DATE(CONCAT('2020-09-01', ' 23:00:00-08')), DATE(CONCAT('1999-10-', '20'))`,
			want: "2020-09-01 | 2020-09-02 | 1999-10-20", types: "DATE | DATE | DATE"},
		{name: "a literal with an offset", bq: `SELECT DATE('2020-09-01 23:00:00-08'), DATE('2019-08-01 03:00:00+00'), DATE('2020-01-02')`,
			want: "2020-09-02 | 2019-08-01 | 2020-01-02"},
		{name: "NULL", bq: `SELECT DATE(CAST(NULL AS STRING))`, want: "NULL"},
		{name: "not a timestamp", bq: `SELECT DATE(CONCAT('x', 'y'))`, err: errRuntime},
	})
}

func TestCivilTextRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "hour 24 is no TIME", bq: `SELECT CAST('24:00:00' AS TIME)`, err: ErrInvalid},
		{name: "a DATETIME has no zone", bq: `SELECT CAST('2006-01-02 01:02:03.123456 UTC' AS DATETIME)`, err: ErrInvalid},
		{name: "SAFE_CAST gives NULL", bq: `SELECT SAFE_CAST('24:00:00' AS TIME), SAFE_CAST('2006-01-02 01:02:03+05' AS DATETIME), SAFE_CAST('2006-01-02T01:02:03 America/Chicago' AS DATETIME)`,
			want: "NULL | NULL | NULL", types: "TIME | TIMESTAMP | TIMESTAMP"},
		{name: "valid text still casts", bq: `SELECT CAST('23:59:59.5' AS TIME), CAST('2006-01-02 01:02:03' AS DATETIME), CAST('2006-01-02' AS DATETIME), CAST('2006-01-02 01:02:03 UTC' AS TIMESTAMP)`,
			want: "23:59:59.5 | 2006-01-02 01:02:03 | 2006-01-02 00:00:00 | 2006-01-02 01:02:03+00"},
	})
}

// SUM of INTERVAL adds months, days and time each on its own.
func TestIntervalSumRules(t *testing.T) {
	const iv = `WITH t AS (SELECT 1 AS id, CAST(NULL AS INTERVAL) AS v UNION ALL SELECT 2, INTERVAL 1 YEAR UNION ALL SELECT 3, INTERVAL 40 DAY UNION ALL SELECT 4, INTERVAL 30 HOUR UNION ALL SELECT 5, INTERVAL '-6.789' SECOND) `
	runRuleCases(t, []ruleCase{
		{name: "SUM", bq: iv + `SELECT CAST(SUM(v) AS STRING) FROM t`, want: "1-0 40 29:59:53.211"},
		{name: "SUM of NULLs", bq: iv + `SELECT SUM(v) FROM t WHERE id = 1`, want: "NULL"},
		{name: "running SUM", bq: iv + `SELECT id, CAST(SUM(v) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS STRING) FROM t ORDER BY id`,
			want: "1 | NULL\n2 | 1-0 0 0:0:0\n3 | 1-0 40 0:0:0\n4 | 1-0 40 30:0:0\n5 | 1-0 40 29:59:53.211"},
		{name: "SUM(DISTINCT)", bq: iv + `SELECT SUM(DISTINCT v) FROM t`, err: ErrUnsupported},
	})
}

func TestIntervalSumOfUnnestRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "SUM over UNNEST of an interval array", bq: `SELECT CAST(SUM(i) AS STRING) FROM UNNEST([INTERVAL 1 YEAR, INTERVAL 2 MONTH, NULL, INTERVAL 3 DAY, INTERVAL '6.789' SECOND]) i`,
			want: "1-2 3 0:0:6.789"},
		{name: "months are not carried", bq: `SELECT CAST(SUM(i) AS STRING) FROM UNNEST([INTERVAL 10000 YEAR, INTERVAL 10000 YEAR, INTERVAL -120000 MONTH, INTERVAL 40 DAY, INTERVAL 25 HOUR]) AS i`,
			want: "10000-0 40 25:0:0"},
		{name: "all NULL", bq: `SELECT SUM(i) FROM UNNEST([CAST(NULL AS INTERVAL), NULL]) i`, want: "NULL"},
	})
}

func TestIntervalSumRangeRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a field past 10,000 years", bq: `SELECT SUM(i) FROM UNNEST([INTERVAL 10000 YEAR, INTERVAL '1' MONTH]) i`, err: errRuntime},
		{name: "days past the range", bq: `SELECT SUM(i) FROM UNNEST([INTERVAL 3660000 DAY, INTERVAL 1 DAY]) i`, err: errRuntime},
	})
	if msg, _ := explainedError(t, openDuck(t), `SELECT SUM(i) FROM UNNEST([INTERVAL 10000 YEAR, INTERVAL '1' MONTH]) i`); msg != "Interval field months 120001 is out of range -120000 to 120000" {
		t.Errorf("Explain = %q", msg)
	}
}

// DATETIME(STRING), TIME(STRING) and TIME(TIME) are ZetaSQL constructors
// (valid SQL: not the model's error).
func TestCivilConstructorRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "DATETIME of a computed string", bq: `SELECT DATETIME(CONCAT('2000-01-01', ' ', '18:17:16')), TIME(CONCAT('18:17', ':16')), TIME(TIME '11:22:33.444555')`,
			want: "2000-01-01 18:17:16 | 18:17:16 | 11:22:33.444555", types: "TIMESTAMP | TIME | TIME"},
		{name: "TIME of a number", bq: `SELECT TIME(x) FROM UNNEST([1]) AS x`, err: errRuntime},
	})
}
