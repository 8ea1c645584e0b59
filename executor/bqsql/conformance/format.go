package conformance

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/clinsql/clinsql/executor/bqsql"
)

// maxFile bounds one compliance file (the largest is about 300 KB).
const maxFile = 8 << 20

// Case is one compliance test case.
type Case struct {
	File, Name string
	Line       int // 1-based line of the case's first line in File
	Query      string
	// Tables are the [prepare_database] tables defined before the case,
	// by name: CREATE TABLE name AS <select>.
	Tables   map[string]string
	Features []string // required_features
	// Skip says why BigQuery could not run the case as written; "" when it
	// is applicable.
	Skip   string
	Expect string // the expected result text after "--"
}

var (
	optionLine  = regexp.MustCompile(`^\[([a-zA-Z_ ]+)(?:=(.*))?\]\s*$`) // option names are case-insensitive ([required_Features=…] occurs)
	createTable = regexp.MustCompile(`(?is)^\s*CREATE\s+TABLE\s+([A-Za-z_][A-Za-z_0-9]*)\s*(\(.*?\))?\s*AS\s+(.*?);?\s*$`)
	createConst = regexp.MustCompile(`(?is)^\s*CREATE\s+CONSTANT\s+([A-Za-z_][A-Za-z_0-9]*)`)
	// Types and type names BigQuery does not have; a case that names one
	// in its query, tables or expected result is not applicable.
	foreignType = regexp.MustCompile(`(?i)\b(INT32|UINT32|UINT64|FLOAT|UUID|GEOGRAPHY|TOKENLIST)\b\s*([<(,>)\s]|$)|zetasql_test__|\b(PROTO|ENUM|RANGE|MAP)\s*<|\bNEW\s+\w`)
	// Features BigQuery lacks or that change the language away from it.
	foreignFeatures = map[string]bool{
		"TIMESTAMP_NANOS": true, "RANGE_TYPE": true, "UUID_TYPE": true, "COLLATION_SUPPORT": true,
		"ANNOTATION_FRAMEWORK": true, "PROTO_BASE": true, "MAP_TYPE": true, "GEOGRAPHY": true,
		"DISALLOW_GROUP_BY_FLOAT": true, "TIME_BUCKET_FUNCTIONS": true,
		// BigQuery does not order arrays: ORDER BY, MIN/MAX and < over an
		// ARRAY are its type errors, so ZetaSQL's expected rows are not
		// BigQuery's.
		"ARRAY_ORDERING": true,
		// Nor compare them: [1, 2] = [1, 2] is BigQuery's error "Equality
		// is not defined for arguments of type ARRAY<INT64>" (quoted in
		// jOOQ issue 17056, 2024, and dbt-adapters issue 1782, 2026),
		// which the bridge gives too.
		"ARRAY_EQUALITY": true,
	}
	utcZones = map[string]bool{"+00": true, "Etc/UTC": true, "UTC": true, "+00:00": true}
)

// ReadFile parses the compliance file at path.
func ReadFile(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cases, err := Parse(filepath.Base(path), io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

// Parse reads compliance test cases; name is the file's name, for Case.File.
func Parse(name string, r io.Reader) ([]Case, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxFile)
	var (
		chunk     []string
		chunkLine = 1
		line      int
		total     int
		out       []Case
		tables    = map[string]string{}
		defaults  []string
		zone      = "America/Los_Angeles" // ZetaSQL's reference default
		constants []string
	)
	flush := func() error {
		c, tbl, err := parseChunk(chunk, chunkLine)
		if err != nil {
			return fmt.Errorf("line %d: %w", chunkLine, err)
		}
		switch {
		case tbl != nil:
			for _, f := range tbl.defaults {
				defaults = append(defaults, f)
			}
			if tbl.zone != "" {
				zone = tbl.zone
			}
			if tbl.name != "" {
				tables[tbl.name] = tbl.body
			}
			if tbl.constant != "" {
				constants = append(constants, tbl.constant)
			}
		case c != nil:
			c.File = name
			c.Tables = tables
			c.Features = append(c.Features, defaults...)
			for _, k := range constants {
				if c.Skip == "" && reads(c.Query, k) {
					c.Skip = "named constant (CREATE CONSTANT)"
				}
			}
			if c.Skip == "" {
				c.Skip = applicability(c, zone)
			}
			out = append(out, *c)
		}
		return nil
	}
	for sc.Scan() {
		line++
		total += len(sc.Bytes()) + 1
		if total > maxFile {
			return nil, fmt.Errorf("over %d bytes", maxFile)
		}
		if sc.Text() == "==" {
			if err := flush(); err != nil {
				return nil, err
			}
			chunk, chunkLine = nil, line+1
			continue
		}
		chunk = append(chunk, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// setup is what a chunk that is not a case contributes: a table, file
// defaults, the default time zone.
type setup struct {
	name, body string
	defaults   []string
	zone       string
	constant   string // CREATE CONSTANT name
}

// typedColumns gives a query the column names and types of a CREATE
// TABLE's column list: a CTE has no column list, so an empty first branch
// of a UNION ALL, which names and types the result, carries them.
func typedColumns(list, body string) (string, error) {
	inner := strings.TrimSpace(list[1 : len(list)-1])
	var cols []string
	for _, def := range splitTopCommas(inner) {
		f := strings.Fields(def)
		if len(f) < 2 {
			return "", fmt.Errorf("column definition %q", def)
		}
		cols = append(cols, fmt.Sprintf("CAST(NULL AS %s) AS %s", strings.Join(f[1:], " "), f[0]))
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM (SELECT 1) WHERE FALSE\nUNION ALL\n" + body, nil
}

// splitTopCommas splits s at commas outside brackets.
func splitTopCommas(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// parseChunk reads one "=="-separated chunk: comment and option lines, the
// query, "--", the expected result.
func parseChunk(lines []string, first int) (*Case, *setup, error) {
	c := &Case{Line: first}
	st := &setup{}
	prepare := false
	i := 0
	for ; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		m := optionLine.FindStringSubmatch(l)
		if m == nil && strings.HasPrefix(l, "[") {
			// An option may span lines (the files list query parameters
			// one a line inside one [parameters=...]): join up to the line
			// that closes it.
			for j := i + 1; j < len(lines); j++ {
				l += " " + strings.TrimSpace(lines[j])
				if strings.HasSuffix(l, "]") {
					if m = optionLine.FindStringSubmatch(l); m != nil {
						i = j
					}
					break
				}
			}
		}
		if m == nil {
			break
		}
		switch key, val := strings.ToLower(strings.TrimSpace(m[1])), m[2]; key {
		case "name":
			c.Name = val
		case "prepare_database":
			prepare = true
		case "required_features":
			c.Features = append(c.Features, strings.Split(val, ",")...)
		case "default required_features":
			st.defaults = append(st.defaults, strings.Split(val, ",")...)
		case "default_time_zone":
			st.zone = val
		case "parameters":
			c.Skip = "query parameters"
		case "forbidden_features":
			c.Skip = "forbidden-feature variant"
		}
	}
	var query, expect []string
	seen := false
	for ; i < len(lines); i++ {
		if lines[i] == "--" && !seen {
			seen = true
			continue
		}
		if seen {
			expect = append(expect, lines[i])
		} else {
			query = append(query, lines[i])
		}
	}
	q := strings.TrimSpace(strings.Join(query, "\n"))
	if prepare {
		if m := createConst.FindStringSubmatch(q); m != nil {
			st.constant = m[1]
			return nil, st, nil
		}
		m := createTable.FindStringSubmatch(q)
		if m == nil {
			return nil, nil, fmt.Errorf("[prepare_database] without CREATE TABLE name [(columns)] AS SELECT")
		}
		st.name, st.body = m[1], strings.TrimSpace(m[3])
		if m[2] != "" {
			body, err := typedColumns(m[2], st.body)
			if err != nil {
				return nil, nil, fmt.Errorf("table %s: %w", m[1], err)
			}
			st.body = body
		}
		return nil, st, nil
	}
	if c.Name == "" {
		if q != "" {
			return nil, nil, fmt.Errorf("case without [name=...]")
		}
		return nil, st, nil
	}
	if !seen {
		return nil, nil, fmt.Errorf("case %s: no \"--\" before the expected result", c.Name)
	}
	c.Query = q
	c.Expect = strings.TrimSpace(strings.Join(expect, "\n"))
	return c, nil, nil
}

// applicability says why BigQuery could not run c as written, or "".
func applicability(c *Case, zone string) string {
	sql := c.SQL()
	text := sql + "\n" + c.Expect
	switch {
	case sql == "":
		return "recursive WITH over prepared tables"
	case strings.Contains(c.Query, "{{"):
		return "alternation"
	case strings.Contains(c.Expect, "ALTERNATION GROUP"):
		return "alternation"
	case foreignType.MatchString(text):
		return "type BigQuery lacks: " + strings.ToUpper(strings.TrimSpace(strings.TrimRight(foreignType.FindString(text), "<(,>) \n\t")))
	case !utcZones[zone] && strings.Contains(strings.ToUpper(text), "TIMESTAMP"):
		return "TIMESTAMP under default zone " + zone
	}
	for _, f := range c.Features {
		if foreignFeatures[strings.TrimSpace(f)] {
			return "feature BigQuery lacks: " + f
		}
	}
	if analyticApprox.MatchString(c.Query) {
		return "construct BigQuery rejects: an approximate aggregate with OVER"
	}
	if setOpAll.MatchString(c.Query) {
		return "construct BigQuery rejects: INTERSECT ALL or EXCEPT ALL"
	}
	if expiredClockBound(c.Query, time.Now()) {
		return "expected value expired: the current time compared with a past date"
	}
	return ""
}

// clockBound finds the current time bounded above by a literal:
// CURRENT_DATETIME <= DATETIME '2025-12-31 23:59:59' or the literal first.
// CURRENT_* is the time the statement starts (date and time functions
// reference), so such a comparison is TRUE only until the literal's date:
// a case written before then expects TRUE, and BigQuery gives FALSE on any
// later day. Once the date has passed the case tests the calendar, not the
// engine, and is not applicable.
var clockBound = []*regexp.Regexp{
	regexp.MustCompile(`(?is)\bCURRENT_(?:DATE|DATETIME|TIMESTAMP)\b(?:\s*\(\s*\))?\s*<=?\s*(?:DATE|DATETIME|TIMESTAMP)\s*['"](\d{4}-\d{2}-\d{2})`),
	regexp.MustCompile(`(?is)\b(?:DATE|DATETIME|TIMESTAMP)\s*['"](\d{4}-\d{2}-\d{2})[^'"]*['"]\s*>=?\s*CURRENT_(?:DATE|DATETIME|TIMESTAMP)\b`),
}

// expiredClockBound reports whether query bounds the current time above by
// a date before now's.
func expiredClockBound(query string, now time.Time) bool {
	for _, re := range clockBound {
		for _, m := range re.FindAllStringSubmatch(query, -1) {
			if d, err := time.Parse(time.DateOnly, m[1]); err == nil && d.Before(now.UTC().Truncate(24*time.Hour)) {
				return true
			}
		}
	}
	return false
}

// analyticApprox finds an approximate aggregate called with OVER. ZetaSQL
// allows it; BigQuery's reference gives these functions no OVER clause, and
// BigQuery refused it in a released run ("Analytic function
// APPROX_QUANTILES is not supported.", grok-4-fast-non-reasoning's
// answer to validation Patient_Demographics_and_Admissions medium 076 and
// others, which the replay counts as rejected by both).
var analyticApprox = regexp.MustCompile(`(?is)\bAPPROX_(?:QUANTILES|TOP_COUNT|TOP_SUM|COUNT_DISTINCT)\s*\((?:[^()]|\([^()]*\))*\)\s*OVER\b`)

// setOpAll finds INTERSECT ALL and EXCEPT ALL. ZetaSQL has them; BigQuery's
// set operators are UNION ALL, UNION DISTINCT, INTERSECT DISTINCT and EXCEPT
// DISTINCT only (query syntax reference, "Set operators"), and the bridge
// refuses the two as the model's error, as BigQuery does. The compliance
// files expect ZetaSQL's rows, which are not BigQuery's answer.
var setOpAll = regexp.MustCompile(`(?i)\b(?:INTERSECT|EXCEPT)\s+ALL\b`)

// SQL is the case's query with the prepared tables it reads inlined as
// CTEs, as one statement: WITH T AS (<select>) <query>.
func (c *Case) SQL() string {
	return bigQuerySpelling(c.sql())
}

// bigQuerySpelling writes ZetaSQL's DOUBLE, BigQuery's FLOAT64 (the same
// type), outside literals and quoted names.
func bigQuerySpelling(sql string) string {
	toks, _ := bqsql.Tokenize(sql)
	var b strings.Builder
	for _, t := range toks {
		if t.Kind == bqsql.Ident && strings.EqualFold(t.Text, "DOUBLE") {
			b.WriteString("FLOAT64")
			continue
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

func (c *Case) sql() string {
	var names []string
	for name := range c.Tables {
		if reads(c.Query, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return c.Query
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("WITH ")
	for i, n := range names {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "%s AS (%s)", n, c.Tables[n])
	}
	q := c.Query
	if m := leadingWith.FindStringIndex(q); m != nil {
		if leadingRecursive.MatchString(q) {
			return "" // a recursive WITH cannot take the tables in front; left unrun
		}
		b.WriteString(",\n")
		b.WriteString(q[m[1]:])
		return b.String()
	}
	b.WriteString("\n")
	b.WriteString(q)
	return b.String()
}

var (
	leadingWith      = regexp.MustCompile(`(?is)^\s*WITH\s+`)
	leadingRecursive = regexp.MustCompile(`(?is)^\s*WITH\s+RECURSIVE\b`)
)

// reads reports whether query names table as a word (case-insensitively,
// as GoogleSQL resolves table names in the reference implementation).
func reads(query, table string) bool {
	re := regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_.])` + regexp.QuoteMeta(table) + `($|[^A-Za-z0-9_])`)
	return re.MatchString(query)
}
