package bqsql

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Date/time functions. BigQuery picks the semantics of DATE_DIFF,
// DATETIME_DIFF, TIMESTAMP_DIFF (and the _TRUNC and _ADD families) from the
// argument types, not the function name: DATE arguments count date
// boundaries, DATETIME arguments count boundaries of every part (HOUR too),
// TIMESTAMP arguments count whole elapsed units. The prelude defines one
// DuckDB macro per function and part, overloaded on DATE, TIMESTAMP
// (BigQuery DATETIME) and TIMESTAMPTZ (BigQuery TIMESTAMP), so DuckDB's
// binder makes the same choice, and rejects STRING or INT64 arguments as
// BigQuery does.

// timeParts lists the parts of the _DIFF/_TRUNC/_ADD families, in macro-name
// form (WEEK(MONDAY) is WEEK_MONDAY).
var timeParts = []string{"MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY",
	"WEEK", "WEEK_SUNDAY", "WEEK_MONDAY", "WEEK_TUESDAY", "WEEK_WEDNESDAY", "WEEK_THURSDAY",
	"WEEK_FRIDAY", "WEEK_SATURDAY", "ISOWEEK", "MONTH", "QUARTER", "YEAR", "ISOYEAR"}

// extractParts lists the parts EXTRACT accepts.
var extractParts = append([]string{"DAYOFWEEK", "DAYOFYEAR", "DATE", "TIME", "DATETIME"}, timeParts...)

func dateLevel(part string) bool {
	switch part {
	case "MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "TIME":
		return false
	}
	return true
}

// datePart parses a date part argument: DAY, WEEK, WEEK(MONDAY), ….
func (e *emitter) datePart(items []*item) (string, bool) {
	if len(items) == 0 || items[0].tok.Kind != Ident || items[0].synthetic() {
		return "", false
	}
	up := items[0].upper()
	switch {
	case len(items) == 1 && datePartNames[up]:
		return up, true
	case len(items) == 2 && up == "WEEK" && items[1].isGroup("(") && len(items[1].kids) == 1:
		day := items[1].kids[0].upper()
		if _, ok := weekdays[day]; ok {
			return "WEEK_" + day, true
		}
	}
	return "", false
}

func partSQL(part string) string {
	if strings.HasPrefix(part, "WEEK_") {
		return "WEEK(" + strings.TrimPrefix(part, "WEEK_") + ")"
	}
	return part
}

func (e *emitter) partArg(c *call, items []*item, allowed []string) (string, bool) {
	part, ok := e.datePart(items)
	if !ok {
		found := "end of input"
		if len(items) > 0 {
			found = describe(items[0])
		}
		e.invalid(c.it, "A valid date part name is required but found %s", found)
		return "", false
	}
	for _, a := range allowed {
		if a == part {
			return part, true
		}
	}
	if part == "NANOSECOND" {
		e.unsupported(c.it, "the NANOSECOND date part is not supported")
		return "", false
	}
	e.invalid(c.it, "%s does not support the %s date part", c.name, partSQL(part))
	return "", false
}

// dateArg translates a date/time argument. A bare string literal takes the
// function's own type, as BigQuery coerces literals (and only literals).
func (e *emitter) dateArg(items []*item, typ string) string {
	if lit, ok := e.literalString(items); ok {
		switch typ {
		case "DATE":
			return "DATE " + duckString(lit)
		case "DATETIME":
			return "TIMESTAMP " + duckString(lit)
		case "TIMESTAMP":
			return "TIMESTAMPTZ " + duckString(lit)
		case "TIME":
			return "TIME " + duckString(lit)
		}
	}
	return e.text(items)
}

// typedMacro names the macro to call on the date/time argument items:
// name itself (overloaded by argument type), or, when the catalog or a CTE
// gives the argument's type, the single-typed macro for it, which DuckDB
// can bind when the argument is a column of an outer query (see
// overloaded).
func (e *emitter) typedMacro(name string, items []*item) string {
	if _, lit := e.literalString(items); lit {
		return name
	}
	switch t := e.exprType(items); t {
	case "DATE", "DATETIME", "TIMESTAMP":
		return name + "__" + strings.ToLower(t)
	}
	return name
}

// isName reports whether it is a plain or backticked identifier.
func isName(it *item) bool {
	return it != nil && !it.group && !it.synthetic() &&
		((it.tok.Kind == Ident && !bqReserved[it.upper()]) || it.tok.Kind == QuotedIdent)
}

var familyType = map[string]string{"date": "DATE", "datetime": "DATETIME", "timestamp": "TIMESTAMP"}

func diffFn(fam string) func(c *call) string {
	return func(c *call) string {
		part, ok := c.e.partArg(c, c.args[2], timeParts)
		if !ok {
			return ""
		}
		a := c.e.dateArg(c.args[0], familyType[fam])
		b := c.e.dateArg(c.args[1], familyType[fam])
		return fmt.Sprintf("bq_%s_diff_%s(%s, %s)", fam, strings.ToLower(part), a, b)
	}
}

func truncTimeFn(fam string) func(c *call) string {
	return func(c *call) string {
		part, ok := c.e.partArg(c, c.args[1], timeParts)
		if !ok {
			return ""
		}
		if len(c.args) == 3 && !c.e.isUTC(c.args[2]) {
			c.e.unsupported(c.it, "%s with a time zone other than UTC is not supported", c.name)
			return ""
		}
		x := c.e.dateArg(c.args[0], familyType[fam])
		return fmt.Sprintf("%s(%s)", c.e.typedMacro(fmt.Sprintf("bq_%s_trunc_%s", fam, strings.ToLower(part)), c.args[0]), x)
	}
}

// isUTC reports whether a time zone argument is a literal naming UTC.
func (e *emitter) isUTC(items []*item) bool {
	tz, ok := e.literalString(items)
	if !ok {
		return false
	}
	switch strings.ToUpper(strings.TrimSpace(tz)) {
	case "UTC", "ETC/UTC", "+00", "+00:00", "Z", "GMT", "ETC/GMT":
		return true
	}
	return false
}

var addParts = []string{"MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH",
	"QUARTER", "YEAR"}

func addFn(fam string, sign int) func(c *call) string {
	return func(c *call) string {
		a := c.args[1]
		if len(a) < 2 || !a[0].is("INTERVAL") {
			c.e.invalid(c.it, "No matching signature for function %s: the second argument must be INTERVAL n date_part", c.name)
			return ""
		}
		n, part := c.e.intervalParts(a)
		if part == "" {
			return ""
		}
		ok := false
		for _, p := range addParts {
			ok = ok || p == part
		}
		if !ok {
			c.e.invalid(c.it, "%s does not support the %s date part", c.name, part)
			return ""
		}
		if sign < 0 {
			n = "-(" + n + ")"
		}
		x := c.e.dateArg(c.args[0], familyType[fam])
		if fam != "date" {
			// DATETIME and TIMESTAMP arithmetic keeps the argument's type
			// (a DATE argument becomes a DATETIME, as in BigQuery).
			if fam == "timestamp" && !isSubDay(part) {
				return civilRange(c, fmt.Sprintf("bq_timestamp_add_check('%s', %s, %s * %s)", partSQL(part), x, n, intervalUnit(part)))
			}
			return civilRange(c, fmt.Sprintf("(%s + %s * %s)", x, n, intervalUnit(part)))
		}
		return civilRange(c, fmt.Sprintf("%s(%s, %s)", c.e.typedMacro("bq_date_add_"+strings.ToLower(part), c.args[0]), x, n))
	}
}

// civilRange makes a date/time addition's result outside BigQuery's range
// (years 1 to 9999) an error, as BigQuery's out_of_range.
func civilRange(c *call, sum string) string {
	return fmt.Sprintf("bq_civil_range(%s, '%s')", sum, c.name)
}

// intervalParts splits INTERVAL <n> <part> into the amount (an INT64
// expression) and the part.
func (e *emitter) intervalParts(items []*item) (string, string) {
	last := items[len(items)-1]
	part := last.upper()
	if !isIntervalPart(part) {
		e.invalid(last, "A valid date part name is required but found %s", describe(last))
		return "", ""
	}
	expr := items[1 : len(items)-1]
	if len(expr) == 0 {
		e.invalid(last, "Syntax error: Unexpected keyword %s", part)
		return "", ""
	}
	if v, ok := literalInt(expr); ok {
		return strconv.FormatInt(v, 10), part
	}
	if s, ok := e.literalString(expr); ok {
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			e.unsupported(items[0], "INTERVAL %s %s is not supported", duckString(s), part)
			return "", ""
		}
		return strconv.FormatInt(v, 10), part
	}
	return "bq_int64(" + e.text(expr) + ")", part
}

// dateMinusDate translates a - b where the statement model types both
// operands DATE (model.dateDiffs) to BigQuery's result, an INTERVAL of days:
// DuckDB's DATE - DATE is an integer, which let EXTRACT(DAY FROM a - b) fail
// (blaming the model for valid SQL) and a - b > 30 run where BigQuery
// rejects INTERVAL > INT64. The parser decided the operands (precedence,
// brackets), the model their types. It returns how many items it consumed,
// 0 when items[i] does not start such a difference.
func (e *emitter) dateMinusDate(w *writer, items []*item, i int) int {
	d, ok := e.model.dateDiffAt(items[i].pos())
	if !ok {
		return 0
	}
	// The difference's items at this level: a, the -, b. A rewrite that
	// moved or replaced them leaves it alone.
	op := -1
	for k := i; k < len(items); k++ {
		it := items[k]
		if k > i && op < 0 && it.isPunct("-") && it.tok.Pos >= d.leftEnd && it.tok.Pos < d.rightStart {
			op = k
		}
		switch end := it.end(); {
		case end < 0 || end > d.end:
			return 0
		case end == d.end:
			if op < 0 || op == k {
				return 0
			}
			w.lead(items[i])
			w.write("to_days(CAST(" + e.text(items[i:op]) + " - " + e.text(items[op+1:k+1]) + " AS INTEGER))")
			return k + 1 - i
		}
	}
	return 0
}

// errFinerThanMicros marks an interval literal with nanoseconds, which
// BigQuery keeps and the engine's INTERVAL cannot hold.
var errFinerThanMicros = errors.New("finer than a microsecond")

// intervalFields are the parts an INTERVAL '…' from TO to literal may span,
// in order.
var intervalFields = []string{"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"}

// intervalRange translates INTERVAL 's' from TO to, BigQuery's
// 'Y-M D H:M:S[.F]' form restricted to the parts from..to, into a DuckDB
// interval: a year-month group ("Y-M", or "M" from MONTH), a day count, and
// a time group ("H:M:S" or its tail), separated by spaces, each group with
// its own sign.
func intervalRange(s, from, to string) (string, error) {
	fi, ti := slices.Index(intervalFields, from), slices.Index(intervalFields, to)
	if fi < 0 || ti <= fi {
		return "", fmt.Errorf("%s TO %s is not a range of date parts", from, to)
	}
	groups := strings.Fields(s)
	var want []string // the groups, each as the list of parts it holds
	if fi <= 1 {
		g := "MONTH"
		if fi == 0 {
			g = "YEAR-MONTH"
		}
		want = append(want, g)
	}
	if fi <= 2 && ti >= 2 {
		want = append(want, "DAY")
	}
	if ti >= 3 {
		want = append(want, strings.Join(intervalFields[max(fi, 3):ti+1], ":"))
	}
	if len(groups) != len(want) {
		return "", fmt.Errorf("expected %d space-separated groups for %s TO %s", len(want), from, to)
	}
	var months, days, micros int64
	for k, g := range groups {
		neg := strings.HasPrefix(g, "-")
		g = strings.TrimPrefix(strings.TrimPrefix(g, "-"), "+")
		sign := int64(1)
		if neg {
			sign = -1
		}
		switch want[k] {
		case "YEAR-MONTH":
			y, m, ok := strings.Cut(g, "-")
			yv, err1 := strconv.ParseInt(y, 10, 32)
			mv, err2 := strconv.ParseInt(m, 10, 32)
			if !ok || err1 != nil || err2 != nil {
				return "", fmt.Errorf("expected Y-M at %q", g)
			}
			months = sign * (yv*12 + mv)
		case "MONTH", "DAY":
			v, err := strconv.ParseInt(g, 10, 32)
			if err != nil {
				return "", fmt.Errorf("expected a number at %q", g)
			}
			if want[k] == "MONTH" {
				months = sign * v
			} else {
				days = sign * v
			}
		default:
			names := strings.Split(want[k], ":")
			vals := strings.Split(g, ":")
			if len(vals) != len(names) {
				return "", fmt.Errorf("expected %s at %q", strings.Join(names, ":"), g)
			}
			var us int64
			for n, v := range vals {
				frac := ""
				if names[n] == "SECOND" {
					v, frac, _ = strings.Cut(v, ".")
				}
				x, err := strconv.ParseInt(v, 10, 32)
				if err != nil || x < 0 {
					return "", fmt.Errorf("expected a number at %q", g)
				}
				if len(frac) > 6 {
					return "", errFinerThanMicros
				}
				f := int64(0)
				if frac != "" {
					if f, err = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64); err != nil {
						return "", fmt.Errorf("expected a fraction at %q", g)
					}
				}
				unit, _ := strconv.ParseInt(microsPer[names[n]], 10, 64)
				us += x*unit + f
			}
			micros = sign * us
		}
	}
	return fmt.Sprintf("(to_months(%d) + to_days(%d) + to_microseconds(%d))", months, days, micros), nil
}

// isoInterval matches ISO 8601 duration text, 'P1Y2M3DT4H5M6.789S', each
// part optional and signed.
var isoInterval = regexp.MustCompile(`^P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+)(?:\.(\d{1,6}))?S)?)?$`)

// isoIntervalText translates an ISO 8601 duration literal as BigQuery's
// CAST to INTERVAL reads it; ok is false for any other text.
func isoIntervalText(s string) (string, bool) {
	m := isoInterval.FindStringSubmatch(s)
	if m == nil || s == "P" || strings.HasSuffix(s, "T") {
		return "", false
	}
	n := func(k int) int64 {
		v, _ := strconv.ParseInt(m[k], 10, 64)
		return v
	}
	months := n(1)*12 + n(2)
	days := n(3)*7 + n(4)
	micros := n(5)*3600000000 + n(6)*60000000 + n(7)*1000000
	if m[8] != "" {
		f, _ := strconv.ParseInt(m[8]+strings.Repeat("0", 6-len(m[8])), 10, 64)
		if strings.HasPrefix(m[7], "-") {
			f = -f
		}
		micros += f
	}
	return fmt.Sprintf("(to_months(%d) + to_days(%d) + to_microseconds(%d))", months, days, micros), true
}

// fractionalSeconds reads INTERVAL '<s>.<f>' SECOND, BigQuery's one
// fractional interval literal, as whole microseconds. A fraction finer than
// a microsecond is left to intervalParts (unsupported): BigQuery keeps
// nanoseconds the engine's INTERVAL cannot hold.
func (e *emitter) fractionalSeconds(items []*item) (string, bool) {
	if len(items) != 3 || !items[2].is("SECOND") {
		return "", false
	}
	s, ok := e.literalString(items[1:2])
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(s)
	whole, frac, dot := strings.Cut(s, ".")
	if !dot || len(frac) > 6 {
		return "", false
	}
	neg := strings.HasPrefix(whole, "-")
	whole = strings.TrimPrefix(strings.TrimPrefix(whole, "-"), "+")
	for _, r := range whole + frac {
		if r < '0' || r > '9' {
			return "", false
		}
	}
	if whole == "" && frac == "" {
		return "", false
	}
	n, err := strconv.ParseInt(strings.TrimLeft(whole+frac+strings.Repeat("0", 6-len(frac)), "0")+"0", 10, 64)
	if err != nil {
		return "", false
	}
	n /= 10 // the appended "0" keeps an all-zero amount parseable
	if neg {
		n = -n
	}
	return strconv.FormatInt(n, 10), true
}

func isSubDay(p string) bool { _, ok := microsPer[p]; return ok }

func isIntervalPart(p string) bool {
	for _, a := range addParts {
		if a == p {
			return true
		}
	}
	return false
}

// intervalUnit is one unit of part as a DuckDB interval.
func intervalUnit(part string) string {
	switch part {
	case "WEEK":
		return "INTERVAL 7 DAY"
	case "QUARTER":
		return "INTERVAL 3 MONTH"
	}
	return "INTERVAL 1 " + part
}

// interval translates a standalone INTERVAL <n> <part> expression.
func (e *emitter) interval(w *writer, items []*item, i int) int {
	it := items[i]
	j := i + 1
	for ; j < len(items); j++ {
		up := items[j].upper()
		if isIntervalPart(up) || datePartNames[up] || (strings.HasSuffix(up, "S") && isIntervalPart(strings.TrimSuffix(up, "S"))) {
			break
		}
		if items[j].is("PRECEDING") || items[j].is("FOLLOWING") || items[j].isPunct(",") || items[j].is("AND") {
			break
		}
	}
	if j >= len(items) || j == i+1 {
		if lit := at(items, i+1); lit != nil && lit.tok.Kind == String && j == i+2 {
			e.invalid(it, "Syntax error: INTERVAL '…' needs a date part, as in INTERVAL 1 DAY")
		} else {
			e.invalid(it, "Syntax error: Unexpected %s after INTERVAL", describe(at(items, i+1)))
		}
		return 1
	}
	if at(items, j+1).is("TO") {
		s, ok := e.literalString(items[i+1 : j])
		to := at(items, j+2)
		if !ok || to == nil {
			e.invalid(it, "Syntax error: INTERVAL … %s TO … needs a string literal and a date part", items[j].upper())
			return j + 3 - i
		}
		v, err := intervalRange(s, items[j].upper(), to.upper())
		switch {
		case errors.Is(err, errFinerThanMicros):
			e.unsupported(it, "INTERVAL … %s TO … literals finer than a microsecond are not supported", items[j].upper())
		case err != nil:
			e.invalid(it, "Invalid interval literal %s: %v", duckString(s), err)
		default:
			w.lead(it)
			w.write(v)
		}
		return j + 3 - i
	}
	if micros, ok := e.fractionalSeconds(items[i : j+1]); ok {
		w.lead(it)
		w.write("(" + micros + " * INTERVAL 1 MICROSECOND)")
		return j + 1 - i
	}
	n, part := e.intervalParts(items[i : j+1])
	if part == "" {
		return j + 1 - i
	}
	w.lead(it)
	w.write("(" + n + " * " + intervalUnit(part) + ")")
	return j + 1 - i
}

// extract translates EXTRACT(part FROM x [AT TIME ZONE tz]).
func (e *emitter) extract(c *call) string {
	a := c.args[0]
	from := indexWord(a, "FROM")
	if from < 1 {
		e.invalid(c.it, "Syntax error: Expected keyword FROM in EXTRACT")
		return ""
	}
	part, ok := e.partArg(c, a[:from], extractParts)
	if !ok {
		return ""
	}
	x := a[from+1:]
	if k := indexWord(x, "AT"); k >= 0 {
		if k+3 > len(x) || !x[k+1].is("TIME") || !x[k+2].is("ZONE") {
			e.invalid(x[k], "Syntax error: Expected \")\" but got keyword AT")
			return ""
		}
		zone := x[k+3:]
		x = x[:k]
		if t := baseType(e.exprType(x)); t != "" && t != "TIMESTAMP" {
			e.invalid(c.it, "No matching signature for function EXTRACT for argument types: DATE_TIME_PART FROM %s AT TIME ZONE STRING", t)
			return ""
		}
		if !e.isUTC(zone) {
			// The parts of the timestamp's civil time in the zone
			// (BigQuery's date and time functions reference: "AT TIME
			// ZONE … extracts the part in the specified time zone"); an
			// unknown zone is the query's error, as in BigQuery.
			return fmt.Sprintf("bq_extract_%s(%s(CAST(%s AS TIMESTAMPTZ), bq_str(%s)))", strings.ToLower(part), civilAtFunc, e.text(x), e.text(zone))
		}
	}
	// EXTRACT takes a DATE, DATETIME, TIMESTAMP, TIME or INTERVAL (date
	// and time functions reference); BigQuery rejects any other operand
	// at analysis. The macro checks the value's type only on the rows it
	// reads, so over no rows it would run: where the statement model types
	// the operand, the check is made here. A literal is left to the macro
	// (a NULL or string literal may coerce).
	if t := e.exprType(x); t != "" && !strings.HasPrefix(t, "lit:") && t != "NULL" && !extractOperand(t) {
		e.invalid(c.it, "No matching signature for function EXTRACT for argument types: DATE_TIME_PART FROM %s", t)
		return ""
	}
	return fmt.Sprintf("bq_extract_%s(%s)", strings.ToLower(part), e.dateArg(x, "DATE"))
}

// extractOperand reports whether EXTRACT has a signature for a value of
// BigQuery type t.
func extractOperand(t string) bool {
	switch t {
	case "DATE", "DATETIME", "TIMESTAMP", "TIME", "INTERVAL":
		return true
	}
	return false
}

func currentFn(expr string) func(c *call) string {
	return func(c *call) string {
		if len(c.args) == 1 && !c.e.isUTC(c.args[0]) {
			return currentInZone(c, map[string]string{"CURRENT_DATE": "DATE", "CURRENT_DATETIME": "TIMESTAMP", "CURRENT_TIME": "TIME"}[c.name])
		}
		return expr
	}
}

// int64Args renders the call's arguments as INT64s (the year, month, …
// of the DATE, DATETIME and TIME constructors), comma-separated.
func (c *call) int64Args() string {
	parts := make([]string, len(c.args))
	for k := range parts {
		parts[k] = "bq_int64(" + c.arg(k) + ")"
	}
	return strings.Join(parts, ", ")
}

// plainDate matches a date string without a time.
var plainDate = regexp.MustCompile(`^\s*\d{1,4}-\d{1,2}-\d{1,2}\s*$`)

func dateFn(c *call) string {
	switch len(c.args) {
	case 3:
		return "make_date(" + c.int64Args() + ")"
	case 2:
		if !c.e.isUTC(c.args[1]) {
			c.e.unsupported(c.it, "DATE with a time zone other than UTC is not supported")
			return ""
		}
	}
	if lit, ok := c.e.literalString(c.args[0]); ok {
		if plainDate.MatchString(lit) {
			return "DATE " + duckString(lit)
		}
		// A timestamp string: its date in UTC, after any offset it has.
		return "CAST(TIMESTAMPTZ " + duckString(lit) + " AS DATE)"
	}
	return "bq_to_date(" + c.arg(0) + ")"
}

func datetimeFn(c *call) string {
	switch len(c.args) {
	case 6:
		return "make_timestamp(" + c.int64Args() + ")"
	case 2:
		if _, ok := c.e.literalString(c.args[1]); ok {
			if !c.e.isUTC(c.args[1]) {
				c.e.unsupported(c.it, "DATETIME with a time zone other than UTC is not supported")
				return ""
			}
			return "bq_to_datetime(" + c.e.dateArg(c.args[0], "TIMESTAMP") + ")"
		}
		return "(bq_date_only(" + c.e.dateArg(c.args[0], "DATE") + ") + bq_time_only(" + c.e.dateArg(c.args[1], "TIME") + "))"
	case 1:
		if lit, ok := c.e.literalString(c.args[0]); ok {
			return "TIMESTAMP " + duckString(lit)
		}
		return "bq_to_datetime(" + c.arg(0) + ")"
	}
	c.e.invalid(c.it, "No matching signature for function DATETIME with %d arguments", len(c.args))
	return ""
}

func timestampFn(c *call) string {
	if len(c.args) == 2 && !c.e.isUTC(c.args[1]) {
		c.e.unsupported(c.it, "TIMESTAMP with a time zone other than UTC is not supported")
		return ""
	}
	if lit, ok := c.e.literalString(c.args[0]); ok {
		return "TIMESTAMPTZ " + duckString(lit)
	}
	return "bq_to_timestamp(" + c.arg(0) + ")"
}

func timeFn(c *call) string {
	switch len(c.args) {
	case 3:
		return "make_time(" + c.int64Args() + ")"
	case 1:
		if lit, ok := c.e.literalString(c.args[0]); ok {
			return "TIME " + duckString(lit)
		}
		return "bq_to_time(" + c.arg(0) + ")"
	}
	c.e.unsupported(c.it, "TIME with %d arguments is not supported", len(c.args))
	return ""
}

func lastDayFn(c *call) string {
	part := "MONTH"
	if len(c.args) == 2 {
		p, ok := c.e.partArg(c, c.args[1], []string{"YEAR", "QUARTER", "MONTH", "WEEK", "WEEK_SUNDAY",
			"WEEK_MONDAY", "WEEK_TUESDAY", "WEEK_WEDNESDAY", "WEEK_THURSDAY", "WEEK_FRIDAY", "WEEK_SATURDAY",
			"ISOWEEK", "ISOYEAR"})
		if !ok {
			return ""
		}
		part = p
	}
	d := "bq_date_only(" + c.e.dateArg(c.args[0], "DATE") + ")"
	switch part {
	case "MONTH":
		return "last_day(" + d + ")"
	case "QUARTER":
		return "last_day(make_date(year(" + d + "), quarter(" + d + ") * 3, 1))"
	case "YEAR":
		return "make_date(year(" + d + "), 12, 31)"
	case "ISOYEAR":
		c.e.unsupported(c.it, "LAST_DAY with ISOYEAR is not supported")
		return ""
	}
	return "(bq_date_trunc_" + strings.ToLower(part) + "(" + d + ") + 6)"
}

// formatElements maps BigQuery format elements to DuckDB strftime elements
// or to SQL expressions over the value (written with %v for the value).
var formatElements = map[byte]string{
	'Y': "%Y", 'm': "%m", 'd': "%d", 'H': "%H", 'M': "%M", 'S': "%S", 'y': "%y", 'B': "%B",
	'b': "%b", 'h': "%b", 'A': "%A", 'a': "%a", 'j': "%j", 'p': "%p", 'I': "%I", 'U': "%U",
	'W': "%W", 'w': "%w", 'F': "%Y-%m-%d", 'T': "%H:%M:%S", 'D': "%m/%d/%y", 'R': "%H:%M",
	'x': "%m/%d/%y", 'X': "%H:%M:%S", 'n': "\n", 't': "\t", '%': "%%",
	'Q': "=CAST(quarter(%v) AS VARCHAR)",
	'e': "=lpad(CAST(day(%v) AS VARCHAR), 2, ' ')",
	'k': "=lpad(CAST(hour(%v) AS VARCHAR), 2, ' ')",
	'u': "=CAST(isodow(%v) AS VARCHAR)",
	'V': "=lpad(CAST(week(%v) AS VARCHAR), 2, '0')",
	'G': "=CAST(isoyear(%v) AS VARCHAR)",
	'g': "=lpad(CAST(isoyear(%v) % 100 AS VARCHAR), 2, '0')",
	'C': "=lpad(CAST(year(%v) // 100 AS VARCHAR), 2, '0')",
	's': "=CAST(CAST(floor(epoch(%v)) AS BIGINT) AS VARCHAR)",
}

// formatTime translates FORMAT_DATE/DATETIME/TIMESTAMP(fmt, x[, tz]).
func (e *emitter) formatTime(c *call) string {
	f, ok := e.literalString(c.args[0])
	if !ok {
		e.unsupported(c.it, "%s with a non-literal format is not supported", c.name)
		return ""
	}
	if len(c.args) == 3 && !e.isUTC(c.args[2]) {
		e.unsupported(c.it, "%s with a time zone other than UTC is not supported", c.name)
		return ""
	}
	typ := map[string]string{"FORMAT_DATE": "DATE", "FORMAT_DATETIME": "DATETIME", "FORMAT_TIMESTAMP": "TIMESTAMP"}[c.name]
	x := e.dateArg(c.args[1], typ)
	var pieces []string
	var seg strings.Builder
	flush := func() {
		if seg.Len() > 0 {
			pieces = append(pieces, "strftime("+x+", "+duckString(seg.String())+")")
			seg.Reset()
		}
	}
	// %c is %a %b %e %H:%M:%S %Y.
	f = strings.ReplaceAll(f, "%c", "%a %b %e %H:%M:%S %Y")
	f = strings.ReplaceAll(f, "%E4Y", "%Y")
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			seg.WriteByte(f[i])
			continue
		}
		if i+1 >= len(f) {
			e.invalid(c.it, "Invalid format string: ends with %%")
			return ""
		}
		el, ok := formatElements[f[i+1]]
		if c.name == "FORMAT_TIMESTAMP" && (f[i+1] == 'Z' || f[i+1] == 'z') {
			el, ok = map[byte]string{'Z': "UTC", 'z': "+0000"}[f[i+1]], true
		}
		if !ok {
			e.unsupported(c.it, "format element %%%c is not supported", f[i+1])
			return ""
		}
		i++
		if strings.HasPrefix(el, "=") {
			flush()
			pieces = append(pieces, strings.ReplaceAll(el[1:], "%v", x))
			continue
		}
		seg.WriteString(el)
	}
	flush()
	if len(pieces) == 0 {
		return "CASE WHEN " + x + " IS NULL THEN NULL ELSE '' END"
	}
	return "(" + strings.Join(pieces, " || ") + ")"
}

// parseTime translates PARSE_DATE/DATETIME/TIMESTAMP(fmt, s[, tz]).
func (e *emitter) parseTime(c *call, safe bool) string {
	f, ok := e.literalString(c.args[0])
	if !ok {
		e.unsupported(c.it, "%s with a non-literal format is not supported", c.name)
		return ""
	}
	if len(c.args) == 3 && !e.isUTC(c.args[2]) {
		e.unsupported(c.it, "%s with a time zone other than UTC is not supported", c.name)
		return ""
	}
	var seg strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			seg.WriteByte(f[i])
			continue
		}
		if i+1 >= len(f) {
			e.invalid(c.it, "Invalid format string: ends with %%")
			return ""
		}
		el, ok := formatElements[f[i+1]]
		if !ok || strings.HasPrefix(el, "=") {
			e.unsupported(c.it, "parse element %%%c is not supported", f[i+1])
			return ""
		}
		seg.WriteString(el)
		i++
	}
	fn := "strptime"
	if safe {
		fn = "try_strptime"
	}
	typ := map[string]string{"PARSE_DATE": "DATE", "PARSE_DATETIME": "TIMESTAMP", "PARSE_TIMESTAMP": "TIMESTAMPTZ"}[c.name]
	return "CAST(" + fn + "(bq_str(" + c.arg(1) + "), " + duckString(seg.String()) + ") AS " + typ + ")"
}
