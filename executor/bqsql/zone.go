package bqsql

import (
	"database/sql/driver"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // time zone names resolve the same on every machine, with or without a system zoneinfo
)

// civilAtFunc is the Go function that gives the civil date and time (a
// DATETIME) of a TIMESTAMP in a BigQuery time zone: CURRENT_DATE('+05'),
// CURRENT_DATETIME('America/Chicago') and CURRENT_TIME(tz) are it applied
// to the query's timestamp. DuckDB's own time zones (ICU) read neither
// BigQuery's offsets ('+05', 'UTC-6:30') nor its error for a bad name.
const civilAtFunc = "bq_civil_at"

// zoneOffset matches BigQuery's fixed-offset time zones: an optional UTC
// prefix, a sign, one or two hour digits and optional minutes.
var zoneOffset = regexp.MustCompile(`^(?:UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$`)

// loadZone resolves a BigQuery time zone: a tz database name or an offset
// from UTC. An unknown name is BigQuery's "Invalid time zone" error.
func loadZone(name string) (*time.Location, error) {
	if m := zoneOffset.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins := 0
		if m[3] != "" {
			mins, _ = strconv.Atoi(m[3])
		}
		off := h*3600 + mins*60
		if mins >= 60 || off > 14*3600 {
			return nil, fmt.Errorf("Invalid time zone: %s", name)
		}
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(name, off), nil
	}
	// time.LoadLocation reads "" and "Local" as zones of its own; BigQuery
	// knows neither.
	if name == "" || name == "Local" || strings.ContainsAny(name, " \\") {
		return nil, fmt.Errorf("Invalid time zone: %s", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("Invalid time zone: %s", name)
	}
	return loc, nil
}

// civilAt is the civil date and time of ts in zone, as a DuckDB TIMESTAMP
// (a wall clock without zone).
func civilAt(ts time.Time, zone string) (time.Time, error) {
	loc, err := loadZone(zone)
	if err != nil {
		return time.Time{}, err
	}
	l := ts.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC), nil
}

// civilAtEval is civilAt as a Go function (Functions).
func civilAtEval(values []driver.Value) (any, error) {
	ts, ok1 := values[0].(time.Time)
	zone, ok2 := values[1].(string)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("No matching signature for a time zone conversion: got %T, %T", values[0], values[1])
	}
	return civilAt(ts, zone)
}

// currentInZone renders CURRENT_DATE/DATETIME/TIME(tz): the query's
// timestamp as a civil value in the zone tz (NULL for a NULL zone, an
// error for an unknown one, as in BigQuery), cast to the function's type.
func currentInZone(c *call, duckType string) string {
	return "CAST(" + civilAtFunc + "(get_current_timestamp(), bq_str(" + c.arg(0) + ")) AS " + duckType + ")"
}

// civilMacros are the prelude's macros for STRING(date/time value),
// CAST(BYTES AS STRING), SAFE_CAST of arrays, SUM of INTERVALs and
// GENERATE_ARRAY's step.
const civilMacros = `
-- STRING(x): a DATE, DATETIME, TIME or TIMESTAMP as CAST(x AS STRING)
-- writes it; other types are BigQuery's signature error.
CREATE OR REPLACE TEMP MACRO bq_string_of(x) AS CASE
	WHEN typeof(x) NOT IN ('DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'TIME', '"NULL"')
		THEN CAST(CAST('No matching signature for function STRING for argument types: ' || typeof(x) AS DATE) AS VARCHAR)
	ELSE bq_to_string(x) END;
-- CAST(BYTES AS STRING) decodes UTF-8 and fails on invalid bytes (DuckDB's
-- cast writes \x escapes); SAFE_CAST gives NULL.
CREATE OR REPLACE TEMP MACRO bq_cast_to_string(x) AS CASE
	WHEN typeof(x) = 'BLOB' THEN decode(TRY_CAST(x AS BLOB)) ELSE bq_to_string(x) END;
CREATE OR REPLACE TEMP MACRO bq_safe_cast_to_string(x) AS CASE
	WHEN typeof(x) = 'BLOB' THEN try(decode(TRY_CAST(x AS BLOB))) ELSE bq_to_string(x) END;
-- CAST(STRING AS BYTES) is the string's UTF-8 bytes; DuckDB's cast reads
-- \x escapes in the text and refuses other non-ASCII characters.
CREATE OR REPLACE TEMP MACRO bq_cast_to_bytes(x) AS CASE
	WHEN typeof(x) = 'VARCHAR' THEN encode(CAST(x AS VARCHAR)) ELSE CAST(x AS BLOB) END;
-- SAFE_CAST of an array: NULL unless every non-NULL element cast (c is
-- the element-wise TRY_CAST of x).
CREATE OR REPLACE TEMP MACRO bq_safe_cast_list(x, c) AS CASE
	WHEN list_count(c) = list_count(x) THEN c END;
-- GENERATE_ARRAY's step, which BigQuery refuses to be 0 (the error's
-- type unifies with the step's).
CREATE OR REPLACE TEMP MACRO bq_nonzero_step(step) AS CASE
	WHEN step = 0 THEN CAST('Sequence step cannot be 0.' AS BIGINT) ELSE step END;
-- A SUM of INTERVALs past BigQuery's range for a field (10,000 years) is
-- its error, as is the interval it would make.
CREATE OR REPLACE TEMP MACRO bq_interval_sum_of(m, d, us) AS CASE
	WHEN abs(m) > 120000 THEN to_months(CAST(CAST('Interval field months ' || CAST(m AS VARCHAR) || ' is out of range -120000 to 120000' AS DOUBLE) AS BIGINT))
	WHEN abs(d) > 3660000 THEN to_days(CAST(CAST('Interval field days ' || CAST(d AS VARCHAR) || ' is out of range -3660000 to 3660000' AS DOUBLE) AS BIGINT))
	WHEN abs(us) > 316224000000000000 THEN to_microseconds(CAST(CAST('Interval field microseconds ' || CAST(us AS VARCHAR) || ' is out of range -316224000000000000 to 316224000000000000' AS DOUBLE) AS BIGINT))
	ELSE bq_interval_of(m, d, us) END;
`

// stringFn translates STRING(x[, tz]).
func stringFn(c *call) string {
	if len(c.args) == 2 && !c.e.isUTC(c.args[1]) {
		c.e.unsupported(c.it, "STRING with a time zone other than UTC is not supported")
		return ""
	}
	return "bq_string_of(" + c.arg(0) + ")"
}

var (
	// timeText is H:M[:S[.F]]; datetimeWithZone a DATETIME text followed by
	// a zone, which only a TIMESTAMP text may have.
	timeText         = regexp.MustCompile(`^\s*(\d{1,2}):(\d{1,2})(?::\d{1,2}(?:\.\d*)?)?\s*$`)
	datetimeWithZone = regexp.MustCompile(`(?i)^\s*\d{1,4}-\d{1,2}-\d{1,2}[ t]\d{1,2}:\d{1,2}(?::\d{1,2}(?:\.\d*)?)?\s*(?:UTC|Z|[+-]\d{1,2}(?::?\d{2})?|[a-z_]+/[a-z_/]+)\s*$`)
)

// invalidCivilText reports text that BigQuery refuses to cast to TIME
// (an hour past 23 or a minute past 59) or DATETIME (a time zone), where
// DuckDB reads it.
func invalidCivilText(base, s string) bool {
	switch base {
	case "TIME":
		if m := timeText.FindStringSubmatch(s); m != nil {
			h, _ := strconv.Atoi(m[1])
			mi, _ := strconv.Atoi(m[2])
			return h > 23 || mi > 59
		}
	case "DATETIME":
		return datetimeWithZone.MatchString(s)
	}
	return false
}

// sumOfIntervals translates SUM of a value the bridge knows is an INTERVAL
// (DuckDB has no such sum). BigQuery adds the months, the days and the
// time of the values each on its own, without justifying one into
// another; the window, if any, applies to each of the three sums.
func sumOfIntervals(c *call) string {
	if c.distinct {
		// BigQuery's DISTINCT compares intervals as equal across fields
		// (1 MONTH = 30 DAY) and keeps one of them: not implemented.
		c.e.unsupported(c.it, "SUM(DISTINCT) of INTERVAL values is not supported")
		return ""
	}
	over := ""
	if c.over != nil {
		over = " OVER " + c.e.text(c.over[1:])
		c.overDone = true
	}
	x := c.arg(0)
	return "bq_interval_sum_of(sum(bq_interval_months(" + x + "))" + over + ", sum(CAST(date_part('day', " + x + ") AS BIGINT))" + over +
		", sum(bq_interval_time_us(" + x + "))" + over + ")"
}
