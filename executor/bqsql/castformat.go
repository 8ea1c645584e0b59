package bqsql

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CAST(x AS T FORMAT f [AT TIME ZONE tz]) and SAFE_CAST … FORMAT. The format
// is any STRING expression (BigQuery evaluates it per row), so the bridge
// hands it to Go functions (castformat_udf.go) that read BigQuery's format
// elements at run time: YYYY, MM, DD, HH24, MI, SS, FFn, MON, DAY, AM, TZH,
// … between DATE/DATETIME/TIME/TIMESTAMP and STRING, and BASE2, BASE8,
// BASE16/HEX, BASE32, BASE64, BASE64M, ASCII, UTF-8 between BYTES and
// STRING. A NULL value, format or zone gives NULL; SAFE_CAST gives NULL
// where CAST fails. Number formats ('999.99') and the format elements the
// functions do not implement are refused as unsupported.

// Names of the Go functions CAST … FORMAT becomes.
const (
	castToStringFunc = "bq_cast_to_string_format" // DATE, DATETIME, TIME, TIMESTAMP, BYTES -> STRING
	castToBytesFunc  = "bq_cast_to_bytes_format"  // STRING -> BYTES
	castParseFunc    = "bq_cast_parse_format_"    // + date, datetime, time, timestamp: STRING -> the type
)

// castFormat translates a CAST or SAFE_CAST whose type items typeItems hold
// FORMAT at index k; src is the value's items.
func (e *emitter) castFormat(c *call, safe bool, src, typeItems []*item, k int) string {
	p := &typeParser{e: e, items: typeItems[:k]}
	_, base, ok := p.parse()
	if !ok {
		return ""
	}
	if p.pos < k {
		e.invalid(typeItems[p.pos], "Syntax error: Unexpected %s", describe(typeItems[p.pos]))
		return ""
	}
	fmtItems, tzItems := typeItems[k+1:], []*item(nil)
	for j := 0; j+2 < len(fmtItems); j++ {
		if fmtItems[j].is("AT") && fmtItems[j+1].is("TIME") && fmtItems[j+2].is("ZONE") {
			fmtItems, tzItems = fmtItems[:j], fmtItems[j+3:]
			if len(tzItems) == 0 {
				e.invalid(c.it, "Syntax error: AT TIME ZONE in %s needs a time zone", c.name)
				return ""
			}
			break
		}
	}
	if len(fmtItems) == 0 {
		e.invalid(c.it, "Syntax error: FORMAT in %s needs a format string", c.name)
		return ""
	}
	x, f := e.text(src), "bq_str("+e.text(fmtItems)+")"
	tz := "'UTC'"
	if tzItems != nil {
		if base != "STRING" && base != "TIMESTAMP" {
			e.invalid(c.it, "AT TIME ZONE is only allowed in a CAST … FORMAT from or to TIMESTAMP")
			return ""
		}
		tz = "bq_str(" + e.text(tzItems) + ")"
	}
	s := strconv.FormatBool(safe)
	switch base {
	case "STRING":
		switch e.exprType(src) {
		case "INT64", "FLOAT64", "NUMERIC", "BIGNUMERIC":
			e.unsupported(c.it, "%s … FORMAT from a number to STRING is not supported", c.name)
			return ""
		}
		if _, isNum := numberLiteral(src); isNum {
			e.unsupported(c.it, "%s … FORMAT from a number to STRING is not supported", c.name)
			return ""
		}
		return castToStringFunc + "(" + x + ", " + f + ", " + tz + ", " + s + ")"
	case "BYTES":
		return castToBytesFunc + "(bq_str(" + x + "), " + f + ", " + s + ")"
	case "DATE", "DATETIME", "TIME", "TIMESTAMP":
		return castParseFunc + strings.ToLower(base) + "(bq_str(" + x + "), " + f + ", " + tz + ", get_current_timestamp(), " + s + ")"
	}
	e.unsupported(c.it, "%s … FORMAT to %s is not supported", c.name, base)
	return ""
}

// A format element of a date/time format string: one of the names below, or
// literal text (name "").
type timeElem struct {
	name string // upper-case element name; "" for literal text
	text string // the element as written (its letter case decides the output's), or the literal
}

// timeElemNames are the date/time format elements, longest first so that
// matching takes the longest (MONTH before MON before MM and MI).
var timeElemNames = []string{"SSSSS", "MONTH", "HH24", "HH12", "YYYY", "RRRR", "A.M.", "P.M.",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FF7", "FF8", "FF9",
	"YYY", "MON", "DDD", "DAY", "TZH", "TZM", "YY", "RR", "MM", "DD", "DY", "HH", "MI", "SS", "AM", "PM", "Y", "D"}

// timeElemUnsupported are BigQuery format elements the functions do not
// implement: refused, never read as literal text.
var timeElemUnsupported = []string{"Y,YYY", "SYYYY", "IYYY", "IYY", "IY", "SCC", "CC", "RM", "IW", "WW", "TZR", "TZD", "FM", "FX", "SP", "TH", "Q", "W", "J", "I"}

// timeElemCategory is each element's category, named as in BigQuery's
// errors; a category may appear once.
var timeElemCategory = map[string]string{
	"YYYY": "YEAR", "YYY": "YEAR", "YY": "YEAR", "Y": "YEAR", "RRRR": "YEAR", "RR": "YEAR",
	"MM": "MONTH", "MON": "MONTH", "MONTH": "MONTH",
	"DD": "DAY", "DDD": "DAY", "D": "DAY", "DAY": "DAY", "DY": "DAY",
	"HH": "HOUR", "HH12": "HOUR", "HH24": "HOUR", "SSSSS": "HOUR",
	"MI": "MINUTE", "SS": "SECOND", "AM": "MERIDIAN_INDICATOR", "PM": "MERIDIAN_INDICATOR",
	"A.M.": "MERIDIAN_INDICATOR", "P.M.": "MERIDIAN_INDICATOR", "TZH": "TIME_ZONE", "TZM": "TIME_ZONE",
}

func elemCategory(name string) string {
	if strings.HasPrefix(name, "FF") {
		return "SUBSECOND"
	}
	return timeElemCategory[name]
}

// elemAllowed reports whether typ (DATE, DATETIME, TIME, TIMESTAMP) has
// the element's category.
func elemAllowed(typ, category string) bool {
	switch category {
	case "YEAR", "MONTH", "DAY":
		return typ != "TIME"
	case "TIME_ZONE":
		return typ == "TIMESTAMP"
	}
	return typ != "DATE"
}

// errCastFormatLimit marks the format elements and combinations the bridge
// does not implement (Explain reports them unsupported).
type errCastFormatLimit string

func (e errCastFormatLimit) Error() string { return string(e) + " is not supported" }

// splitTimeFormat splits a date/time format string into elements.
func splitTimeFormat(f string) ([]timeElem, error) {
	var out []timeElem
	for i := 0; i < len(f); {
		switch ch := f[i]; {
		case ch == '"':
			// Quoted literal text; \" and \\ escape.
			var b strings.Builder
			j := i + 1
			for ; j < len(f) && f[j] != '"'; j++ {
				if f[j] == '\\' && j+1 < len(f) {
					j++
				}
				b.WriteByte(f[j])
			}
			if j >= len(f) {
				return nil, fmt.Errorf("Cannot find matching \" for quoted literal at %d", i)
			}
			out = append(out, timeElem{text: b.String()})
			i = j + 1
			continue
		case strings.IndexByte("-./,';: \t\n", ch) >= 0:
			// A '.' that starts A.M. is not reached: elements match first.
			out = append(out, timeElem{text: f[i : i+1]})
			i++
			continue
		}
		up := strings.ToUpper(f[i:])
		matched := false
		for _, n := range timeElemNames {
			if strings.HasPrefix(up, n) {
				out = append(out, timeElem{name: n, text: f[i : i+len(n)]})
				i += len(n)
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		for _, n := range timeElemUnsupported {
			if strings.HasPrefix(up, n) {
				return nil, errCastFormatLimit("CAST … FORMAT element '" + n + "'")
			}
		}
		return nil, fmt.Errorf("Cannot find matched format element at %d", i)
	}
	return out, nil
}

// caseLike writes word (capitalised, "January") in the letter case of the
// element as written: MONTH -> JANUARY, Month -> January, month -> january.
func caseLike(elem, word string) string {
	var letters []byte
	for i := 0; i < len(elem); i++ {
		if c := elem[i]; (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			letters = append(letters, c)
		}
	}
	switch {
	case len(letters) > 0 && letters[0] >= 'a':
		return strings.ToLower(word)
	case len(letters) > 1 && letters[1] <= 'Z':
		return strings.ToUpper(word)
	}
	return word
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// formatTimeElems renders t (civil fields; for TIMESTAMP, in the zone
// whose offset is off seconds) with a CAST format of type typ.
func formatTimeElems(t time.Time, off int, typ, f string) (string, error) {
	elems, err := splitTimeFormat(f)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, el := range elems {
		if el.name == "" {
			b.WriteString(el.text)
			continue
		}
		if !elemAllowed(typ, elemCategory(el.name)) {
			return "", fmt.Errorf("%s does not support '%s'", typ, el.name)
		}
		y := t.Year()
		switch el.name {
		case "YYYY", "RRRR":
			b.WriteString(pad(y, 4))
		case "YYY":
			b.WriteString(pad(y%1000, 3))
		case "YY", "RR":
			b.WriteString(pad(y%100, 2))
		case "Y":
			b.WriteString(pad(y%10, 1))
		case "MM":
			b.WriteString(pad(int(t.Month()), 2))
		case "MON":
			b.WriteString(caseLike(el.text, t.Month().String()[:3]))
		case "MONTH":
			b.WriteString(caseLike(el.text, t.Month().String()))
		case "DD":
			b.WriteString(pad(t.Day(), 2))
		case "DDD":
			b.WriteString(pad(t.YearDay(), 3))
		case "D":
			b.WriteString(strconv.Itoa(int(t.Weekday()) + 1)) // Sunday is 1
		case "DAY":
			b.WriteString(caseLike(el.text, t.Weekday().String()))
		case "DY":
			b.WriteString(caseLike(el.text, t.Weekday().String()[:3]))
		case "HH", "HH12":
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(h, 2))
		case "HH24":
			b.WriteString(pad(t.Hour(), 2))
		case "MI":
			b.WriteString(pad(t.Minute(), 2))
		case "SS":
			b.WriteString(pad(t.Second(), 2))
		case "SSSSS":
			b.WriteString(pad(t.Hour()*3600+t.Minute()*60+t.Second(), 5))
		case "AM", "PM", "A.M.", "P.M.":
			m := "Am" // capitalised, as caseLike takes it
			if t.Hour() >= 12 {
				m = "Pm"
			}
			if strings.Contains(el.name, ".") {
				m = m[:1] + "." + m[1:] + "."
			}
			b.WriteString(caseLike(el.text, m))
		case "TZH":
			sign, a := "+", off
			if off < 0 {
				sign, a = "-", -off
			}
			b.WriteString(sign + pad(a/3600, 2))
		case "TZM":
			a := off
			if a < 0 {
				a = -a
			}
			b.WriteString(pad(a%3600/60, 2))
		default: // FFn
			n := int(el.name[2] - '0')
			frac := t.Nanosecond()
			for k := n; k < 9; k++ {
				frac /= 10
			}
			b.WriteString(pad(frac, n))
		}
	}
	return b.String(), nil
}

// civilFields are the parts a CAST … FORMAT parse collects.
type civilFields struct {
	year, month, day, hour, min, sec, nanos int
	offset                                  int // seconds east of UTC, when hasZone
	hasZone                                 bool
}

// parseTimeElems parses s with a CAST format of output type typ. now is
// the query's timestamp: a missing year or month is the current one (in
// UTC, BigQuery's default zone), a missing day 1, missing time 0.
func parseTimeElems(s, f, typ string, now time.Time) (civilFields, error) {
	elems, err := splitTimeFormat(f)
	if err != nil {
		return civilFields{}, err
	}
	now = now.UTC()
	r := civilFields{year: now.Year(), month: int(now.Month()), day: 1}
	seen := map[string]string{}
	for _, el := range elems {
		if el.name == "" {
			continue
		}
		cat := elemCategory(el.name)
		if !elemAllowed(typ, cat) {
			return r, fmt.Errorf("Format element in category %s ('%s') is not allowed for output type %s", cat, el.name, typ)
		}
		if prev, dup := seen[cat]; dup && !(cat == "TIME_ZONE" && prev != el.name) {
			if prev == el.name {
				return r, fmt.Errorf("Format element '%s' appears more than once in the format string", el.name)
			}
			return r, fmt.Errorf("More than one format element in category %s exist: '%s' and '%s'", cat, prev, el.name)
		}
		seen[cat] = el.name
		switch el.name {
		case "D", "DAY", "DY", "DDD":
			// A day of the week or of the year against the date read
			// elsewhere is not implemented.
			return r, errCastFormatLimit("CAST … FORMAT parsing of '" + el.name + "'")
		}
	}
	_, mer := seen["MERIDIAN_INDICATOR"]
	if h12 := seen["HOUR"] == "HH" || seen["HOUR"] == "HH12"; h12 != mer {
		// BigQuery's reading of a 12-hour clock without AM/PM (or AM/PM
		// beside a 24-hour clock) is not implemented.
		return r, errCastFormatLimit("CAST … FORMAT parsing of a 12-hour clock without a meridian indicator, or the reverse,")
	}
	pos := 0
	digits := func(el string, max int) (int, error) {
		j := pos
		for j < len(s) && j-pos < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == pos {
			return 0, fmt.Errorf("Failed to parse input string %q: no digits for '%s' at %d", s, el, pos)
		}
		v, _ := strconv.Atoi(s[pos:j])
		pos = j
		return v, nil
	}
	word := func(el string, words []string) (int, error) {
		for k, w := range words {
			if len(s)-pos >= len(w) && strings.EqualFold(s[pos:pos+len(w)], w) {
				pos += len(w)
				return k, nil
			}
		}
		return 0, fmt.Errorf("Failed to parse input string %q: no match for '%s' at %d", s, el, pos)
	}
	var months, mons []string
	for m := time.January; m <= time.December; m++ {
		months, mons = append(months, m.String()), append(mons, m.String()[:3])
	}
	pm, tzSign, tzh, tzm := false, 1, 0, 0
	for _, el := range elems {
		var err error
		v := 0
		switch el.name {
		case "":
			if strings.TrimSpace(el.text) == "" {
				for pos < len(s) && strings.IndexByte(" \t\n\r\v\f", s[pos]) >= 0 {
					pos++
				}
				continue
			}
			if !strings.HasPrefix(s[pos:], el.text) {
				return r, fmt.Errorf("Mismatch between format %q and string %q at string index %d", el.text, s, pos)
			}
			pos += len(el.text)
			continue
		case "YYYY", "RRRR", "YYY", "YY", "Y", "RR":
			start := pos
			if v, err = digits(el.name, len(el.name)); err != nil {
				return r, err
			}
			n := pos - start
			switch {
			case el.name == "RR" || (el.name == "RRRR" && n <= 2):
				cur := r.year % 100
				century := r.year - cur
				switch {
				case v < 50 && cur >= 50:
					r.year = century + 100 + v
				case v >= 50 && cur < 50:
					r.year = century - 100 + v
				default:
					r.year = century + v
				}
			case el.name == "YYYY" || el.name == "RRRR":
				r.year = v
			default:
				mod := map[string]int{"YYY": 1000, "YY": 100, "Y": 10}[el.name]
				r.year = r.year - r.year%mod + v
			}
		case "MM":
			r.month, err = digits(el.name, 2)
		case "MON":
			v, err = word(el.name, mons)
			r.month = v + 1
		case "MONTH":
			v, err = word(el.name, months)
			r.month = v + 1
		case "DD":
			r.day, err = digits(el.name, 2)
		case "HH", "HH12":
			if r.hour, err = digits(el.name, 2); err == nil && (r.hour < 1 || r.hour > 12) {
				err = fmt.Errorf("Hour %d is out of range for '%s' (1 to 12)", r.hour, el.name)
			}
		case "HH24":
			r.hour, err = digits(el.name, 2)
		case "MI":
			r.min, err = digits(el.name, 2)
		case "SS":
			r.sec, err = digits(el.name, 2)
		case "SSSSS":
			if v, err = digits(el.name, 5); err == nil {
				r.hour, r.min, r.sec = v/3600, v%3600/60, v%60
			}
		case "AM", "PM", "A.M.", "P.M.":
			words := []string{"AM", "PM"}
			if strings.Contains(el.name, ".") {
				words = []string{"A.M.", "P.M."}
			}
			v, err = word(el.name, words)
			pm = v == 1
		case "TZH":
			if pos < len(s) && (s[pos] == '+' || s[pos] == '-') {
				if s[pos] == '-' {
					tzSign = -1
				}
				pos++
				tzh, err = digits(el.name, 2)
			} else {
				err = fmt.Errorf("Failed to parse input string %q: '%s' needs a sign at %d", s, el.name, pos)
			}
			r.hasZone = true
		case "TZM":
			tzm, err = digits(el.name, 2)
			r.hasZone = true
		default: // FFn: n digits at most, kept to the microsecond
			start := pos
			if v, err = digits(el.name, int(el.name[2]-'0')); err == nil {
				for k := pos - start; k < 9; k++ {
					v *= 10
				}
				r.nanos = v / 1000 * 1000
			}
		}
		if err != nil {
			return r, err
		}
	}
	for pos < len(s) && strings.IndexByte(" \t\n\r\v\f", s[pos]) >= 0 {
		pos++
	}
	if pos < len(s) {
		return r, fmt.Errorf("Illegal non-space trailing data '%s' in string %q", s[pos:], s)
	}
	if mer {
		r.hour %= 12
		if pm {
			r.hour += 12
		}
	}
	if tzh > 14 || tzm > 59 {
		return r, fmt.Errorf("Time zone offset %d:%02d is out of range", tzh, tzm)
	}
	r.offset = tzSign * (tzh*3600 + tzm*60)
	if r.year < 1 || r.year > 9999 || r.month < 1 || r.month > 12 || r.hour > 23 || r.min > 59 || r.sec > 59 ||
		r.day < 1 || r.day > time.Date(r.year, time.Month(r.month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return r, fmt.Errorf("Invalid result from parsing %q with format %q: %04d-%02d-%02d %02d:%02d:%02d", s, f, r.year, r.month, r.day, r.hour, r.min, r.sec)
	}
	return r, nil
}
