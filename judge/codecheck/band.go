package codecheck

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Band is an acceptable interval for a value, read from a rubric leaf such
// as "Acceptable Range (2-5)", "(0.01 to 0.40)", "between 5 and 90",
// "(0-50%)" or "(>0.01 and <0.1)".
type Band struct {
	Lo, Hi float64
	// LoOpen and HiOpen mark strict bounds ("> 0.01").
	LoOpen, HiOpen bool
	// Percent reports that the band is stated in percent ("%", "percent",
	// "pp").
	Percent bool
	// Unit is the unit written after the band ("days", "mmHg"), lower case.
	Unit string
	// Label names the group the band applies to when the leaf gives one band
	// per group ("Home: 60-95%, Facility: 30-70%").
	Label string
	// Text is the span of the leaf the band was read from.
	Text string
}

// Contains reports whether v lies in the band.
func (b Band) Contains(v float64) bool {
	lo := v > b.Lo || (!b.LoOpen && v == b.Lo)
	hi := v < b.Hi || (!b.HiOpen && v == b.Hi)
	return lo && hi
}

// String renders the band as interval notation: [2, 5], (0.01, 0.1);
// a band with one bound as the bound: >= 1, < 0.5.
func (b Band) String() string {
	l, r := "[", "]"
	if b.LoOpen {
		l = "("
	}
	if b.HiOpen {
		r = ")"
	}
	var s string
	switch {
	case math.IsInf(b.Hi, 1) && !math.IsInf(b.Lo, -1):
		s = map[bool]string{true: "> ", false: ">= "}[b.LoOpen] + fmtNum(b.Lo)
	case math.IsInf(b.Lo, -1) && !math.IsInf(b.Hi, 1):
		s = map[bool]string{true: "< ", false: "<= "}[b.HiOpen] + fmtNum(b.Hi)
	default:
		s = fmt.Sprintf("%s%s, %s%s", l, fmtNum(b.Lo), fmtNum(b.Hi), r)
	}
	if b.Percent {
		s += " %"
	} else if b.Unit != "" {
		s += " " + b.Unit
	}
	if b.Label != "" {
		s = b.Label + ": " + s
	}
	return s
}

// fmtNum formats a number deterministically and briefly: integers without a
// decimal point, others with up to 6 significant digits.
func fmtNum(f float64) string {
	if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

const num = `[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-−]?\.\d+`

var (
	// unitRe is the optional unit after a number.
	unitRe = `(?:\s*(%|percent(?:age)?(?: points?)?|pp|days?|hours?|hrs?|h|mmhg|mg/dl|g/dl|k/ul|ng/ml|meq/l|mmol/l|bpm|years?|minutes?|mins?|breaths/min|x10\^?9/l|/min))?`
	// rangeRe: "2-5", "0.01 to 0.40", "5.0 – 15.0 days", "-80 to -10".
	rangeRe = regexp.MustCompile(`(?i)(?:^|[^\w.\-−])(` + num + `)` + unitRe + `\s*(?:-|–|—|to)\s*(` + num + `)` + unitRe + `(?:[^\w]|$)`)
	// betweenRe: "between 5 and 90", "between 5% and 50%".
	betweenRe = regexp.MustCompile(`(?i)\bbetween\s+(` + num + `)` + unitRe + `\s+and\s+(` + num + `)` + unitRe)
	// ineqRe: "> 0.01 and < 0.1", ">= 0, <= 100".
	ineqRe = regexp.MustCompile(`(?i)(>=|≥|>)\s*(` + num + `)` + unitRe + `\s*(?:and|,|&)\s*(<=|≤|<)\s*(` + num + `)` + unitRe)
	// intervalRe: interval notation, "[0, 100]", "([1, 3])": closed.
	intervalRe = regexp.MustCompile(`\[\s*(` + num + `)` + unitRe + `\s*,\s*(` + num + `)` + unitRe + `\s*\]`)
	// boundRe: one bound, in parentheses, "(>= 1)", "(count >= 0)",
	// "(Value > 0)": the other side is open.
	boundRe = regexp.MustCompile(`(?i)\(\s*(?:(?:the\s+)?(?:value|values|count|counts)\s*)?(>=|≥|>|<=|≤|<)\s*(` + num + `)` + unitRe + `\s*\)`)
	// labelRe finds a group label just before a band: "Home: 60-95%",
	// "for 'Hospice' (5-15)", "Ischemic Stroke (10 to 200)".
	labelColon  = regexp.MustCompile(`([A-Za-z][\w /'’\-]{0,40}?)\s*:\s*\(?\s*$`)
	labelQuoted = regexp.MustCompile(`['"‘“]([^'"’”]{1,40})['"’”][^'"’”(]{0,12}\(?\s*$`)
	labelParen  = regexp.MustCompile(`([A-Z][\w /\-]{0,40}?)\s*\(\s*$`)
)

var bandMemo struct {
	sync.Mutex
	m map[string][]Band
}

// ParseBands returns every band written in text, in order. The result must
// not be modified.
func ParseBands(text string) []Band {
	bandMemo.Lock()
	out, ok := bandMemo.m[text]
	bandMemo.Unlock()
	if ok {
		return out
	}
	out = parseBands(text)
	bandMemo.Lock()
	if bandMemo.m == nil || len(bandMemo.m) > 100_000 {
		bandMemo.m = map[string][]Band{}
	}
	bandMemo.m[text] = out
	bandMemo.Unlock()
	return out
}

func parseBands(text string) []Band {
	type hit struct {
		start, end int
		b          Band
	}
	var hits []hit
	overlaps := func(s, e int) bool {
		for _, h := range hits {
			if s < h.end && h.start < e {
				return true
			}
		}
		return false
	}
	for _, m := range ineqRe.FindAllStringSubmatchIndex(text, -1) {
		b, ok := makeBand(text, m[4], m[5], m[6], m[7], m[10], m[11], m[12], m[13])
		if !ok || b.Lo > b.Hi {
			continue // "> 10 and < 0" admits nothing
		}
		b.LoOpen = text[m[2]:m[3]] == ">"
		b.HiOpen = text[m[8]:m[9]] == "<"
		b.Text = text[m[0]:m[1]]
		hits = append(hits, hit{m[0], m[1], b})
	}
	for _, m := range intervalRe.FindAllStringSubmatchIndex(text, -1) {
		if overlaps(m[0], m[1]) {
			continue
		}
		if b, ok := makeBand(text, m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]); ok && b.Lo <= b.Hi {
			b.Text = text[m[0]:m[1]]
			hits = append(hits, hit{m[0], m[1], b})
		}
	}
	for _, m := range boundRe.FindAllStringSubmatchIndex(text, -1) {
		if overlaps(m[0], m[1]) {
			continue
		}
		v, ok := parseNum(text[m[4]:m[5]])
		if !ok {
			continue
		}
		b := Band{Lo: math.Inf(-1), Hi: math.Inf(1), Text: text[m[0]:m[1]]}
		switch op := text[m[2]:m[3]]; op {
		case ">=", "≥", ">":
			b.Lo, b.LoOpen = v, op == ">"
		default:
			b.Hi, b.HiOpen = v, op == "<"
		}
		if u := strings.ToLower(sub(text, m[6], m[7])); u == "%" || u == "pp" || strings.HasPrefix(u, "percent") {
			b.Percent = true
		} else {
			b.Unit = u
		}
		hits = append(hits, hit{m[0], m[1], b})
	}
	for _, m := range betweenRe.FindAllStringSubmatchIndex(text, -1) {
		if overlaps(m[0], m[1]) {
			continue
		}
		if b, ok := makeBand(text, m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]); ok {
			if b.Lo > b.Hi { // "between 90 and 5" is still a band
				b.Lo, b.Hi = b.Hi, b.Lo
			}
			b.Text = text[m[0]:m[1]]
			hits = append(hits, hit{m[0], m[1], b})
		}
	}
	for _, m := range rangeRe.FindAllStringSubmatchIndex(text, -1) {
		if overlaps(m[2], m[1]) {
			continue
		}
		b, ok := makeBand(text, m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9])
		if !ok || b.Lo > b.Hi {
			continue // "10-5" is no band
		}
		b.Text = strings.TrimSpace(strings.TrimRight(text[m[2]:m[1]], ").,;"))
		hits = append(hits, hit{m[2], m[1], b})
	}
	// Order by position and attach labels.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].start < hits[j-1].start; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	out := make([]Band, 0, len(hits))
	prevEnd := 0
	for _, h := range hits {
		h.b.Label = labelBefore(text[prevEnd:h.start])
		out = append(out, h.b)
		prevEnd = h.end
	}
	return out
}

// makeBand builds a band from the submatch offsets of two numbers and their
// units.
func makeBand(text string, lo0, lo1, u10, u11, hi0, hi1, u20, u21 int) (Band, bool) {
	lo, ok1 := parseNum(text[lo0:lo1])
	hi, ok2 := parseNum(text[hi0:hi1])
	if !ok1 || !ok2 {
		return Band{}, false
	}
	b := Band{Lo: lo, Hi: hi}
	for _, u := range []string{sub(text, u20, u21), sub(text, u10, u11)} {
		u = strings.ToLower(u)
		switch {
		case u == "":
		case u == "%" || u == "pp" || strings.HasPrefix(u, "percent"):
			b.Percent = true
		case b.Unit == "":
			b.Unit = u
		}
	}
	return b, true
}

func sub(s string, i, j int) string {
	if i < 0 {
		return ""
	}
	return s[i:j]
}

func parseNum(s string) (float64, bool) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, ",", ""), "−", "-")
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// labelBefore returns a group label written just before a band, or "".
func labelBefore(s string) string {
	if len(s) > 60 {
		s = s[len(s)-60:]
	}
	for _, re := range []*regexp.Regexp{labelQuoted, labelColon} {
		if m := re.FindStringSubmatch(s); m != nil {
			l := strings.TrimSpace(m[1])
			if !genericLabel[strings.ToLower(l)] {
				return l
			}
		}
	}
	if m := labelParen.FindStringSubmatch(s); m != nil {
		l := strings.TrimSpace(m[1])
		if !genericLabel[strings.ToLower(l)] && !strings.Contains(strings.ToLower(l), "range") &&
			!strings.Contains(strings.ToLower(l), "plausible") {
			return l
		}
	}
	return ""
}

// genericLabel holds words that precede a band without naming a group.
var genericLabel = map[string]bool{
	"acceptable range": true, "range": true, "clinically plausible": true, "plausible": true,
	"e.g.": true, "eg": true, "e.g": true, "acceptable": true, "plausible range": true, "values": true,
	"value": true, "expected": true, "expected range": true, "acceptable percentage": true,
	"clinically plausible range": true, "plausible range is": true,
}
