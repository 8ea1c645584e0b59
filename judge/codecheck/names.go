package codecheck

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Column names and rubric text are compared as sets of canonical tokens:
// "avg_los_days", "mean length of stay (days)" and "meanLOS_days" all become
// {mean, los, day}. Canonicalisation folds the spellings the released
// rubrics and model outputs use for the same statistic, never two
// different statistics.

// phrases are rewritten before tokenising (on lower-case text with "_"
// and "-" turned into spaces).
var phrases = []struct {
	re  *regexp.Regexp
	out string
}{
	{regexp.MustCompile(`\blength (?:of )?(?:hospital |icu )?stays?\b`), " los "},
	{regexp.MustCompile(`\bstandard deviations?\b|\bstd dev\b`), " sd "},
	{regexp.MustCompile(`\binter ?quartile ranges?\b`), " iqr "},
	// "percentile_90bpm", "percentile of 7 days": the rank of a value,
	// not the 90th percentile.
	{regexp.MustCompile(`\bpercentiles? (?:of |for |at )?(\d{1,3}) ?(bpm|mmhg|days?|d|hours?|hrs?|h|c|f|mg)\b`), " prank $1 $2 "},
	{regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)? percentiles?\b`), " p$1 "},
	{regexp.MustCompile(`\bpercentiles? (\d{1,2})\b`), " p$1 "},
	{regexp.MustCompile(`\b(?:pctl?|perc|percentile) ?(\d{1,2})\b`), " p$1 "},
	// "iqr_25", "iqr_75": the quartiles, not the range.
	{regexp.MustCompile(`\biqr (25|75)\b`), " p$1 "},
	{regexp.MustCompile(`\b(?:first|lower) quartile\b|\bq1\b`), " p25 "},
	{regexp.MustCompile(`\b(?:third|upper) quartile\b|\bq3\b`), " p75 "},
	{regexp.MustCompile(`\bmedian\b|\bp50\b`), " p50 "},
	{regexp.MustCompile(`\bpercentile ranks?\b|\bpct ?rank\b`), " prank "},
	// A percentile without a number left is a rank ("calculated
	// percentile for a heart rate of 90").
	{regexp.MustCompile(`\bpercentiles?\b`), " prank "},
	{regexp.MustCompile(`\btime (?:to|until|of) death\b`), " ttd "},
	// Comparisons name strata ("LOS > 7 days", los_gt_7): keep them.
	{regexp.MustCompile(`>=|≥`), " ge "},
	{regexp.MustCompile(`<=|≤`), " le "},
	{regexp.MustCompile(`>`), " gt "},
	{regexp.MustCompile(`<`), " lt "},
	{regexp.MustCompile(`\bheart rates?\b`), " hr "},
	{regexp.MustCompile(`\brespiratory rates?\b|\bresp rate\b`), " rr "},
	{regexp.MustCompile(`\bsystolic (?:blood pressure|bp)\b`), " sbp "},
	{regexp.MustCompile(`\bdiastolic (?:blood pressure|bp)\b`), " dbp "},
	{regexp.MustCompile(`\bmean arterial pressure\b`), " map "},
	{regexp.MustCompile(`\bin ?hospital\b|\bin hosp\b|\binhosp\b`), " hosp "},
	{regexp.MustCompile(`\bpercentage points?\b`), " pp "},
	{regexp.MustCompile(`\b(\d+) ?(?:days?|d)\b`), " ${1}d "},
	{regexp.MustCompile(`\b(\d+) ?(?:hours?|hrs?|h)\b`), " ${1}h "},
	{regexp.MustCompile(`\bnumber of\b`), " count "},
}

// synonyms folds single tokens.
var synonyms = map[string]string{
	"avg": "mean", "average": "mean", "averaged": "mean", "mu": "mean",
	"pct": "pct", "percent": "pct", "percentage": "pct", "perc": "pct", "pcnt": "pct", "%": "pct",
	"sd": "sd", "std": "sd", "stddev": "sd", "stdev": "sd", "sdev": "sd", "stdv": "sd",
	"n": "count", "num": "count", "number": "count", "cnt": "count", "count": "count", "counts": "count",
	"pts": "patient", "patients": "patient", "subjects": "patient", "subject": "patient",
	"admissions": "admission", "admits": "admission", "admit": "admission", "hadm": "admission",
	"hospitalization": "admission", "hospitalizations": "admission", "encounters": "admission", "encounter": "admission",
	"mortality": "mortality", "death": "mortality", "deaths": "mortality", "died": "mortality", "dead": "mortality",
	"expire": "mortality", "expired": "mortality", "mort": "mortality",
	"readmission": "readmission", "readmissions": "readmission", "readmit": "readmission", "readmitted": "readmission",
	"readmits": "readmission",
	"minimum":  "min", "maximum": "max", "difference": "diff", "differences": "diff", "delta": "diff",
	"absolute": "abs", "relative": "rel", "prev": "prevalence",
	"hgb": "hemoglobin", "hb": "hemoglobin", "haemoglobin": "hemoglobin",
	"glu": "glucose", "trop": "troponin", "tnt": "troponin", "plt": "platelet", "platelets": "platelet",
	"days": "day", "hours": "hour", "hrs": "hour", "yrs": "year", "years": "year", "weeks": "week", "months": "month",
	"minutes": "minute", "mins": "minute", "min.": "minute",
	"proportion": "pct", "prop": "pct", "fraction": "pct", "share": "pct", "ratio": "pct", "rate": "pct", "rates": "pct",
	"tertile": "tertile", "tertiles": "tertile", "quartile": "quartile", "quartiles": "quartile",
	"quintile": "quintile", "quintiles": "quintile", "decile": "decile", "deciles": "decile",
	"total": "count", "size": "count",
	"thirty": "30", "sixty": "60", "ninety": "90", "seven": "7", "fourteen": "14",
	"lte": "le", "gte": "ge",
	"stays": "stay", "categories": "category", "cat": "category", "grp": "group", "groups": "group",
}

// stopwords carry no meaning for matching.
var stopwords = setOf("the a an of for in on to with by per and or is are be been must should shall exists exist existing " +
	"column columns col name named names e g eg ie i.e e.g related representing represents represent value values validation " +
	"validate validating primary secondary output outputs contains contain containing that this which field fields result results " +
	"metric metrics data key answer relevant each all any calculated computed specific etc such as like exact exactly " +
	"present presence provided required requirement there it its their at least one some from cohort's s " +
	"clinically plausible acceptable range within expected check verify ensure correct correctly")

// qualifiers are tokens that refine a statistic without naming it (units,
// the form of a rate). They weigh less in a match, so "mortality_pct"
// still matches "mortality rate (%)".
var qualifiers = setOf("pct day hour year hosp pp rate overall value score level group")

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var (
	camel   = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	nonWord = regexp.MustCompile(`[^a-z0-9%]+`)
)

// tokenMemo caches Tokens: the same column names and rubric texts are
// tokenised over and over, and the regexps are the checks' main cost.
var tokenMemo struct {
	sync.Mutex
	m map[string][]string
}

// Tokens returns the canonical tokens of a column name or a phrase, in
// order, without stopwords. The result must not be modified.
func Tokens(s string) []string {
	tokenMemo.Lock()
	out, ok := tokenMemo.m[s]
	tokenMemo.Unlock()
	if ok {
		return out
	}
	out = tokens(s)
	tokenMemo.Lock()
	if tokenMemo.m == nil || len(tokenMemo.m) > 200_000 {
		tokenMemo.m = map[string][]string{}
	}
	tokenMemo.m[s] = out
	tokenMemo.Unlock()
	return out
}

func tokens(s string) []string {
	s = camel.ReplaceAllString(s, "$1 $2")
	s = strings.ToLower(s)
	s = strings.NewReplacer("_", " ", "-", " ", "–", " ", "/", " ", ".", " ", "’", "'").Replace(s)
	s = strings.ReplaceAll(s, "%", " % ")
	s = letterDigit.ReplaceAllStringFunc(s, splitLetterDigit)
	for _, p := range phrases {
		s = p.re.ReplaceAllString(s, p.out)
	}
	var out []string
	for _, w := range nonWord.Split(s, -1) {
		if w == "" || stopwords[w] {
			continue
		}
		if c, ok := synonyms[w]; ok {
			w = c
		} else if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "is") {
			w = strings.TrimSuffix(w, "s")
			if c, ok := synonyms[w]; ok {
				w = c
			}
		}
		if m := numberUnit.FindStringSubmatch(w); m != nil {
			w = m[1] // "48h", "30d", "36c": the number is what identifies
		}
		if stopwords[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

var (
	// letterDigit finds words mixing letters and digits ("first48",
	// "day1", "p75"), which splitLetterDigit separates unless they are a
	// percentile ("p75") or a number with a unit ("48h").
	letterDigit = regexp.MustCompile(`[a-z]+[0-9]+[a-z0-9]*|[0-9]+[a-z]+[a-z0-9]*`)
	keepMixed   = regexp.MustCompile(`^(?:p[0-9]{1,2}|q[1-4]|[0-9]+(?:h|hr|hrs|d|st|nd|rd|th|c|f)?)$`)
	splitter    = regexp.MustCompile(`[a-z]+|[0-9]+`)
	numberUnit  = regexp.MustCompile(`^([0-9]+)(?:h|d|c|f|st|nd|rd|th)$`)
)

func splitLetterDigit(w string) string {
	if keepMixed.MatchString(w) {
		return w
	}
	// Keep a leading percentile ("p75los" is rare; "p75" common).
	parts := splitter.FindAllString(w, -1)
	var out []string
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		// Re-attach a unit to its number: "first48h" -> "first 48h".
		if i+1 < len(parts) && p[0] >= '0' && p[0] <= '9' && keepMixed.MatchString(p+parts[i+1]) {
			p += parts[i+1]
			i++
		}
		out = append(out, p)
	}
	return strings.Join(out, " ")
}

// normName is a name with case and separators removed, for exact matching:
// "Avg_LOS_days" and "avg los days" are the same name.
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// tokenSet is a weighted set of canonical tokens.
type tokenSet map[string]float64

func newTokenSet(s string) tokenSet {
	ts := tokenSet{}
	for _, t := range Tokens(s) {
		ts[t] = weight(t)
	}
	return ts
}

func weight(t string) float64 {
	if qualifiers[t] {
		return 0.25
	}
	return 1
}

func (ts tokenSet) total() float64 {
	var w float64
	for _, v := range ts {
		w += v
	}
	return w
}

// core returns the tokens that are not qualifiers, sorted.
func (ts tokenSet) core() []string {
	var out []string
	for t := range ts {
		if !qualifiers[t] {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// overlap is the weight of the tokens ts shares with o.
func (ts tokenSet) overlap(o tokenSet) float64 {
	var w float64
	for t, v := range ts {
		if _, ok := o[t]; ok {
			w += v
		}
	}
	return w
}

// identRe finds identifiers in rubric text: quoted or back-quoted names and
// bare snake_case words.
var (
	quotedIdent = regexp.MustCompile("[`'\"‘“]([A-Za-z][A-Za-z0-9_]*)[`'\"’”]")
	snakeIdent  = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b`)
	egList      = regexp.MustCompile(`(?i)\be\.?g\.?,?\s*:?\s*([^)]*)`)
	bareIdent   = regexp.MustCompile(`^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$`)
)

// Identifiers returns the column names a rubric text gives as examples:
// quoted names, snake_case words, and the items of an "e.g." list.
func Identifiers(text string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	for _, m := range quotedIdent.FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "_") || isLowerIdent(m[1]) {
			add(m[1])
		}
	}
	for _, m := range snakeIdent.FindAllString(text, -1) {
		add(m)
	}
	for _, m := range egList.FindAllStringSubmatch(text, -1) {
		for _, item := range strings.Split(m[1], ",") {
			item = strings.Trim(strings.TrimSpace(item), "`'\"‘’“”.")
			if bareIdent.MatchString(item) && !stopwords[item] && item != "or" {
				add(item)
			}
		}
	}
	return out
}

func isLowerIdent(s string) bool { return bareIdent.MatchString(s) && len(s) > 1 }

// stripIdentifiers removes quoted names and e.g. lists from a text, leaving
// its description: "Column exists for hospital mortality (e.g.,
// 'mortality_rate')" -> "Column exists for hospital mortality".
func stripIdentifiers(text string) string {
	text = egList.ReplaceAllString(text, " ")
	text = quotedIdent.ReplaceAllString(text, " ")
	return text
}
