package reliability

import (
	"regexp"
	"strings"

	"github.com/clinsql/clinsql/internal/pyval"
)

// The fixed "now" of the EHRSQL 2024 database.
const (
	nowDate = "2100-12-31"
	nowTime = "23:59:00"
	now     = nowDate + " " + nowTime
)

// mysqlDate is the official TIME_PATTERN. Python's str patterns are Unicode
// aware: \w is a letter, a number or '_', \d a decimal digit (category Nd).
var mysqlDate = regexp.MustCompile(`(DATE_SUB|DATE_ADD)\(([\p{L}\p{N}_]+\(\)|'[^']+')[, ]+ INTERVAL (\p{Nd}+) (MONTH|YEAR|DAY)\)`)

var (
	vitalLower     = regexp.MustCompile(`[ \n]+([a-zA-Z0-9_]+_lower)`)
	vitalUpper     = regexp.MustCompile(`[ \n]+([a-zA-Z0-9_]+_upper)`)
	vitalLowerName = regexp.MustCompile(`([a-zA-Z0-9_]+)_lower`)
	vitalUpperName = regexp.MustCompile(`([a-zA-Z0-9_]+)_upper`)
)

// vitalRanges are the official normal ranges, written as Python prints the
// floats in an f-string.
var vitalRanges = map[string][2]string{
	"temperature":  {"35.5", "38.1"},
	"sao2":         {"95.0", "100.0"},
	"heart rate":   {"60.0", "100.0"},
	"respiration":  {"12.0", "18.0"},
	"systolic bp":  {"90.0", "120.0"},
	"diastolic bp": {"60.0", "90.0"},
	"mean bp":      {"60.0", "110.0"},
}

// PostProcessSQL is the official post_process_sql, applied to gold labels and
// predictions alike, step by step:
//
//  1. every "\n" becomes a space, runs of spaces (not tabs or \r) collapse to
//     one, leading and trailing whitespace (Python's str.strip()) goes; then
//     "> =", "< =", "! =" become ">=", "<=", "!=";
//  2. MySQL DATE_SUB/DATE_ADD(x, INTERVAL n MONTH|YEAR|DAY) becomes
//     datetime(x, '∓n unit[s]');
//  3. the fixed "now": current_time, current_date, 'now', NOW(), CURDATE(),
//     CURTIME(), as plain case-sensitive substrings (inside identifiers too);
//  4. vital-sign placeholders such as heart_rate_lower/heart_rate_upper
//     become the official normal range;
//  5. "%y" becomes "%Y" and "%j" becomes "%J", string literals included.
func PostProcessSQL(q string) string {
	q = normalizeSpace(q)
	q = strings.ReplaceAll(q, "> =", ">=")
	q = strings.ReplaceAll(q, "< =", "<=")
	q = strings.ReplaceAll(q, "! =", "!=")

	q = mysqlDate.ReplaceAllStringFunc(q, func(m string) string {
		g := mysqlDate.FindStringSubmatch(m)
		fn, arg, n, unit := g[1], g[2], g[3], strings.ToLower(g[4])
		if n != "1" {
			unit += "s"
		}
		sign := "+"
		if fn == "DATE_SUB" {
			sign = "-"
		}
		return "datetime(" + arg + ", '" + sign + n + " " + unit + "')"
	})

	for _, r := range [][2]string{
		{"current_time", "'" + now + "'"},
		{"current_date", "'" + nowDate + "'"},
		{"'now'", "'" + now + "'"},
		{"NOW()", "'" + now + "'"},
		{"CURDATE()", "'" + nowDate + "'"},
		{"CURTIME()", "'" + nowTime + "'"},
	} {
		q = strings.ReplaceAll(q, r[0], r[1])
	}

	lo, up := vitalLower.FindStringSubmatch(q), vitalUpper.FindStringSubmatch(q)
	if lo != nil && up != nil {
		loExpr, upExpr := lo[1], up[1]
		names := map[string]bool{}
		for _, m := range vitalLowerName.FindAllStringSubmatch(loExpr, -1) {
			names[m[1]] = true
		}
		for _, m := range vitalUpperName.FindAllStringSubmatch(upExpr, -1) {
			names[m[1]] = true
		}
		if len(names) == 1 {
			for name := range names {
				if r, ok := vitalRanges[strings.ReplaceAll(name, "_", " ")]; ok {
					q = strings.ReplaceAll(q, loExpr, r[0])
					q = strings.ReplaceAll(q, upExpr, r[1])
				}
			}
		}
	}

	q = strings.ReplaceAll(q, "%y", "%Y")
	return strings.ReplaceAll(q, "%j", "%J")
}

// normalizeSpace is step 1's whitespace handling: re.sub('[ ]+', ' ',
// q.replace('\n', ' ')).strip().
func normalizeSpace(q string) string {
	q = strings.ReplaceAll(q, "\n", " ")
	var b strings.Builder
	b.Grow(len(q))
	space := false
	for i := 0; i < len(q); i++ {
		if q[i] == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteByte(q[i])
	}
	return pyval.Strip(b.String())
}
