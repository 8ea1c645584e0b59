package bqsql

import "testing"

// EXTRACT(part FROM x) takes a DATE, DATETIME, TIMESTAMP, TIME or INTERVAL
// (date, datetime, timestamp and interval functions reference), whatever
// makes x: the operand's type is the documented result type of the
// construct or function that makes it, as the statement model infers it.
// An operand the engine typed otherwise (DATE - DATE left an integer) made
// valid queries fail as "No matching signature … FROM INT64", blamed on the
// model. Each case is a way a value gets its type in BigQuery.
func TestExtractOperandTypes(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// UNNEST's element type is the array's (array functions
		// reference; GENERATE_DATE_ARRAY returns ARRAY<DATE>).
		{name: "UNNEST of a date array", bq: `SELECT EXTRACT(YEAR FROM d), EXTRACT(DAY FROM d) FROM UNNEST([DATE '2020-03-05']) AS d`,
			want: "2020 | 5"},
		{name: "UNNEST of GENERATE_DATE_ARRAY", bq: `SELECT EXTRACT(DAY FROM d), EXTRACT(DAYOFWEEK FROM d) FROM UNNEST(GENERATE_DATE_ARRAY(DATE '2020-02-28', DATE '2020-03-01')) AS d ORDER BY d`,
			want: "28 | 6\n29 | 7\n1 | 1"},
		{name: "UNNEST of an outer query's array", bq: `SELECT (SELECT MAX(EXTRACT(MONTH FROM x)) FROM UNNEST(t.ds) AS x) FROM (SELECT [DATE '2020-03-05', DATE '2020-07-01'] AS ds) AS t`,
			want: "7"},
		// A STRUCT field has the type of the expression it was made from
		// (data types reference, struct type).
		{name: "field of a STRUCT array element", bq: `SELECT EXTRACT(DAY FROM s.d), EXTRACT(HOUR FROM s.dt) FROM UNNEST([STRUCT(DATE '2020-03-05' AS d, DATETIME '2020-03-05 07:30:00' AS dt)]) AS s`,
			want: "5 | 7"},
		{name: "field of a STRUCT column", bq: `SELECT EXTRACT(YEAR FROM t.s.dt), EXTRACT(MINUTE FROM t.s.dt) FROM (SELECT STRUCT(DATETIME '2021-06-01 10:45:00' AS dt) AS s) AS t`,
			want: "2021 | 45"},
		{name: "difference of STRUCT fields", bq: `SELECT EXTRACT(DAY FROM s.b - s.a) FROM UNNEST([STRUCT(DATE '2020-02-01' AS a, DATE '2020-03-01' AS b)]) AS s`,
			want: "29"},
		// A navigation or aggregate window function returns its
		// argument's type (navigation functions reference).
		{name: "window function outputs", bq: `SELECT EXTRACT(DAY FROM LAG(d) OVER (ORDER BY d)), EXTRACT(DAY FROM FIRST_VALUE(d) OVER (ORDER BY d)), EXTRACT(DAY FROM MAX(d) OVER ()) FROM UNNEST([DATE '2020-03-01', DATE '2020-03-02']) AS d ORDER BY d`,
			want: "NULL | 1 | 2\n1 | 1 | 2"},
		{name: "window output through a CTE", bq: `WITH w AS (SELECT d, LAG(d) OVER (ORDER BY d) AS prev FROM UNNEST([DATE '2020-03-01', DATE '2020-03-04']) AS d)
			SELECT EXTRACT(DAY FROM prev), EXTRACT(DAY FROM d - prev) FROM w WHERE prev IS NOT NULL`,
			want: "1 | 3"},
		{name: "difference from a window output", bq: `SELECT EXTRACT(DAY FROM d - LAG(d) OVER (ORDER BY d)) FROM UNNEST([DATE '2020-03-01', DATE '2020-03-04']) AS d ORDER BY d`,
			want: "NULL\n3"},
		// COALESCE and IFNULL return their arguments' supertype; a string
		// literal coerces to the date beside it, a DATE to a DATETIME
		// (conditional expressions reference; conversion rules).
		{name: "COALESCE with a date literal", bq: `SELECT EXTRACT(YEAR FROM COALESCE(d, '2019-06-01')), EXTRACT(MONTH FROM IFNULL(d, DATE '2019-06-01')) FROM (SELECT CAST(NULL AS DATE) AS d)`,
			want: "2019 | 6"},
		{name: "COALESCE of a DATE and a DATETIME", bq: `SELECT EXTRACT(HOUR FROM COALESCE(d, dt)), EXTRACT(DAY FROM IFNULL(d, dt)) FROM (SELECT CAST(NULL AS DATE) AS d, DATETIME '2020-01-02 05:00:00' AS dt)`,
			want: "5 | 2"},
		// CASE returns its branches' supertype (conditional expressions
		// reference): a NULL or string literal branch takes the date's.
		{name: "CASE with a NULL branch", bq: `SELECT EXTRACT(MONTH FROM CASE WHEN n > 0 THEN d ELSE NULL END) FROM (SELECT 1 AS n, DATE '2020-04-09' AS d)`,
			want: "4"},
		{name: "CASE with a string literal branch", bq: `SELECT EXTRACT(YEAR FROM CASE WHEN n > 0 THEN '2018-01-01' ELSE d END), EXTRACT(YEAR FROM IF(n < 0, '2018-01-01', d)) FROM (SELECT 1 AS n, DATE '2020-04-09' AS d)`,
			want: "2018 | 2020"},
		// A subquery's column has its select item's type.
		{name: "FROM subquery column", bq: `SELECT EXTRACT(YEAR FROM m), EXTRACT(DAY FROM m - f) FROM (SELECT MAX(d) AS m, MIN(d) AS f FROM UNNEST([DATE '2020-03-01', DATE '2021-03-01']) AS d)`,
			want: "2021 | 365"},
		{name: "scalar subquery", bq: `SELECT EXTRACT(MONTH FROM (SELECT MIN(d) FROM UNNEST([DATE '2020-03-01', DATE '2020-05-01']) AS d))`,
			want: "3"},
		// ARRAY_AGG returns ARRAY<T>; a subscript gives a T (aggregate
		// functions reference; array subscript operator).
		{name: "ARRAY_AGG subscripts", bq: `SELECT EXTRACT(DAY FROM ARRAY_AGG(d ORDER BY d DESC)[OFFSET(0)]), EXTRACT(DAY FROM ARRAY_AGG(d ORDER BY d)[SAFE_OFFSET(5)]), EXTRACT(DAY FROM ARRAY_AGG(d ORDER BY d)[ORDINAL(1)]) FROM UNNEST([DATE '2020-03-01', DATE '2020-03-04']) AS d`,
			want: "4 | NULL | 1"},
		{name: "difference of ARRAY_AGG subscripts", bq: `SELECT EXTRACT(DAY FROM ARRAY_AGG(d ORDER BY d DESC)[OFFSET(0)] - ARRAY_AGG(d ORDER BY d)[OFFSET(0)]) FROM UNNEST([DATE '2020-03-01', DATE '2020-03-04']) AS d`,
			want: "3"},
		// PARSE_DATE returns a DATE, PARSE_DATETIME a DATETIME,
		// PARSE_TIMESTAMP a TIMESTAMP (date, datetime and timestamp
		// functions reference).
		{name: "PARSE_ results", bq: `SELECT EXTRACT(YEAR FROM PARSE_DATE('%Y%m%d', '20200301')), EXTRACT(HOUR FROM PARSE_DATETIME('%Y-%m-%d %H:%M', '2020-03-01 07:15')), EXTRACT(MINUTE FROM PARSE_TIMESTAMP('%Y-%m-%d %H:%M', '2020-03-01 07:15')), EXTRACT(DAY FROM SAFE.PARSE_DATE('%Y%m%d', '20200302'))`,
			want: "2020 | 7 | 15 | 2"},
		{name: "difference of PARSE_DATE results", bq: `SELECT EXTRACT(DAY FROM PARSE_DATE('%Y%m%d', '20200301') - PARSE_DATE('%Y%m%d', '20200201'))`,
			want: "29"},
		// DATE_TRUNC returns its argument's type; LAST_DAY a DATE.
		{name: "truncation results", bq: `SELECT EXTRACT(DAY FROM DATE_TRUNC(DATE '2020-03-15', MONTH)), EXTRACT(HOUR FROM DATETIME_TRUNC(DATETIME '2020-03-15 10:30:00', DAY)), EXTRACT(DAY FROM LAST_DAY(DATE '2020-02-10')), EXTRACT(MONTH FROM TIMESTAMP_TRUNC(TIMESTAMP '2020-03-15 10:30:00+00', YEAR))`,
			want: "1 | 0 | 29 | 1"},
		{name: "truncation of a column", bq: `SELECT EXTRACT(DAY FROM DATE_TRUNC(d, MONTH)), EXTRACT(DAY FROM d - DATE_TRUNC(d, MONTH)) FROM UNNEST([DATE '2020-03-15']) AS d`,
			want: "1 | 14"},
		// A CAST returns its target type; DATE(), DATETIME() and
		// TIMESTAMP() theirs (conversion functions reference).
		{name: "casts and constructors", bq: `SELECT EXTRACT(YEAR FROM CAST(s AS DATE)), EXTRACT(HOUR FROM CAST(s2 AS DATETIME)), EXTRACT(DAY FROM SAFE_CAST(s AS DATE)), EXTRACT(DAY FROM DATE(dt)), EXTRACT(HOUR FROM TIMESTAMP(dt)), EXTRACT(HOUR FROM DATETIME(d)) FROM (SELECT '2020-03-05' AS s, '2020-03-05 04:00:00' AS s2, DATETIME '2020-03-06 09:00:00' AS dt, DATE '2020-03-07' AS d)`,
			want: "2020 | 4 | 5 | 6 | 9 | 0"},
		{name: "difference of casts", bq: `SELECT EXTRACT(DAY FROM CAST(s AS DATE) - DATE(dt)) FROM (SELECT '2020-03-05' AS s, DATETIME '2020-03-01 09:00:00' AS dt)`,
			want: "4"},
		// The operands of DATE - DATE are whatever the grammar makes them
		// (operator precedence), a CASE or a bracketed subquery included.
		{name: "difference of CASE and subquery operands", bq: `SELECT EXTRACT(DAY FROM CASE WHEN n > 0 THEN b END - a), EXTRACT(DAY FROM (SELECT MAX(x) FROM UNNEST([b]) AS x) - (a)), EXTRACT(DAY FROM -n + b - a) FROM (SELECT 1 AS n, DATE '2020-01-01' AS a, DATE '2020-01-11' AS b)`,
			want: "10 | 10 | 9"},
		// DATE + INT64 and DATE - INT64 are DATEs (date arithmetic
		// operators).
		{name: "date arithmetic", bq: `SELECT EXTRACT(DAY FROM d + 1), EXTRACT(DAY FROM d - 1), EXTRACT(DAY FROM (d + 3) - d) FROM UNNEST([DATE '2020-02-28']) AS d`,
			want: "29 | 27 | 3"},
	})
}

// EXTRACT has no signature for any other operand type (date and time
// functions reference): BigQuery rejects such a query at analysis, before
// it reads a row. The macro checks the value's type per row, so the check
// must not depend on there being rows: each case reads none. The operand's
// type is the model's (INT64 / INT64 is FLOAT64, arithmetic operators
// reference).
func TestExtractOperandSignature(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "FLOAT64 quotient over no rows", bq: `SELECT EXTRACT(HOUR FROM DATETIME_DIFF(b, a, SECOND) / 3600) FROM (SELECT DATETIME '2020-01-01 00:00:00' AS a, DATETIME '2020-01-01 05:00:00' AS b) WHERE FALSE`,
			err: ErrInvalid},
		{name: "INT64 column over no rows", bq: `SELECT EXTRACT(YEAR FROM n) FROM (SELECT 2020 AS n) WHERE FALSE`,
			err: ErrInvalid},
		{name: "STRING column over no rows", bq: `SELECT EXTRACT(YEAR FROM s) FROM (SELECT '2020-01-01' AS s) WHERE FALSE`,
			err: ErrInvalid},
		{name: "BOOL expression", bq: `SELECT EXTRACT(DAY FROM d > d) FROM UNNEST([DATE '2020-01-01']) AS d`,
			err: ErrInvalid},
		// What EXTRACT takes still runs over no rows, and a literal is
		// left to coerce (a NULL has every type).
		{name: "each operand type over no rows", bq: `SELECT EXTRACT(DAY FROM d), EXTRACT(HOUR FROM dt), EXTRACT(HOUR FROM ts), EXTRACT(MINUTE FROM t), EXTRACT(DAY FROM i) FROM (SELECT DATE '2020-01-01' AS d, DATETIME '2020-01-01 05:00:00' AS dt, TIMESTAMP '2020-01-01 05:00:00+00' AS ts, TIME '05:06:00' AS t, INTERVAL 3 DAY AS i) WHERE FALSE`,
			want: ""},
		{name: "NULL literal", bq: `SELECT EXTRACT(YEAR FROM NULL)`,
			want: "NULL"},
	})
}

// EXTRACT from an INTERVAL reads the part as the interval holds it, not
// normalised (interval functions reference, EXTRACT: INTERVAL '0-13 370
// 48:61:61' YEAR TO SECOND gives YEAR 1, MONTH 1, DAY 370, HOUR 49,
// MINUTE 2, SECOND 1); the sign of a negative time part distributes over
// its hours, minutes and seconds. A datetime difference holds its whole
// days in the day part: the released runs' EXTRACT(DAY FROM dischtime -
// admittime) recorded lengths of stay in days on BigQuery.
func TestExtractIntervalParts(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "reference example", bq: `SELECT EXTRACT(YEAR FROM i), EXTRACT(MONTH FROM i), EXTRACT(DAY FROM i), EXTRACT(HOUR FROM i), EXTRACT(MINUTE FROM i), EXTRACT(SECOND FROM i), EXTRACT(MILLISECOND FROM i), EXTRACT(MICROSECOND FROM i) FROM UNNEST([INTERVAL '0-13 370 48:61:61' YEAR TO SECOND]) AS i`,
			want: "1 | 1 | 370 | 49 | 2 | 1 | 0 | 0"},
		{name: "hours past a day stay hours", bq: `SELECT EXTRACT(DAY FROM INTERVAL 49 HOUR), EXTRACT(HOUR FROM INTERVAL 49 HOUR)`,
			want: "0 | 49"},
		{name: "JUSTIFY_DAYS keeps the time part", bq: `SELECT EXTRACT(DAY FROM JUSTIFY_DAYS(INTERVAL '1-2 35 48:5:6.789' YEAR TO SECOND)), EXTRACT(HOUR FROM JUSTIFY_DAYS(INTERVAL '1-2 35 48:5:6.789' YEAR TO SECOND))`,
			want: "5 | 48"},
		{name: "negative time part", bq: `SELECT EXTRACT(HOUR FROM i), EXTRACT(MINUTE FROM i), EXTRACT(SECOND FROM i), EXTRACT(MILLISECOND FROM i) FROM UNNEST([INTERVAL '-1:2:3.5' HOUR TO SECOND]) AS i`,
			want: "-1 | -2 | -3 | -500"},
		{name: "day and time of opposite signs", bq: `SELECT EXTRACT(DAY FROM INTERVAL '1 -5' DAY TO HOUR), EXTRACT(HOUR FROM INTERVAL '1 -5' DAY TO HOUR)`,
			want: "1 | -5"},
		{name: "datetime difference", bq: `SELECT EXTRACT(DAY FROM b - a), EXTRACT(HOUR FROM b - a), EXTRACT(DAY FROM a - b), EXTRACT(HOUR FROM a - b) FROM (SELECT DATETIME '2020-01-01 00:00:00' AS a, DATETIME '2020-01-03 05:00:00' AS b)`,
			want: "2 | 5 | -2 | -5"},
	})
}
