package refine

import (
	"errors"
	"regexp"
	"strings"
)

// Extraction methods, recorded with every attempt so that a report can tell
// well-formatted answers from rescued ones.
const (
	MethodSQLFence      = "sql_fence"      // last closed ```sql (or other SQL dialect) block
	MethodFence         = "fence"          // last closed block without a SQL info string whose text is a query
	MethodUnclosedFence = "unclosed_fence" // a ```sql block never closed (a reply cut at max_tokens)
	MethodTags          = "tags"           // last [sql]...[/sql] or <sql>...</sql>
	MethodBare          = "bare"           // the whole reply is a query
	MethodStatement     = "statement"      // a query found at the start of a line in prose
)

// ErrNoSQL is returned (wrapped) by [Extract] when a reply holds no query.
var ErrNoSQL = errors.New("no SQL query found in the reply")

// Extraction is the query found in a model's reply.
type Extraction struct {
	SQL    string
	Method string
}

// sqlInfo are the fence info strings taken as SQL.
var sqlInfo = map[string]bool{
	"sql": true, "bigquery": true, "googlesql": true, "standardsql": true, "bq": true,
	"postgresql": true, "postgres": true, "psql": true, "mysql": true, "sqlite": true, "duckdb": true, "plsql": true, "tsql": true,
}

// Extract finds the query in a model's reply. In order of preference:
//
//  1. the last closed fenced block (``` or ~~~) whose info string is sql or
//     another SQL dialect;
//  2. the last closed fenced block without such an info string whose text
//     starts, after comments, with SELECT, WITH or "(";
//  3. an unclosed ```sql block (a reply cut at the token limit), to the end;
//  4. the last [sql]...[/sql] or <sql>...</sql> pair;
//  5. the whole reply, if it is a query (direct answers without a fence);
//  6. the first line that starts a query (SELECT, or WITH name AS), with the
//     comment lines right above it, up to the first line ending in ";" or
//     the end of the reply.
//
// A reasoning model's <think>...</think> section is searched only when the
// text after it holds no query. The query is returned as written: comments,
// CTEs and the text's own case are kept; only surrounding blank space is
// trimmed and CRLF becomes LF. Nothing is ever cut at a word such as "with"
// (the reference implementation's defect). A reply without a query is an
// error wrapping [ErrNoSQL] that says what was looked for.
func Extract(reply string) (Extraction, error) {
	text := strings.ReplaceAll(reply, "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		return Extraction{}, errNoSQL("the reply is empty")
	}
	if i := strings.LastIndex(lowerASCII(text), "</think>"); i >= 0 {
		if x, ok := extract(text[i+len("</think>"):]); ok {
			return x, nil
		}
	}
	if x, ok := extract(text); ok {
		return x, nil
	}
	return Extraction{}, errNoSQL("no ```sql code block and no SELECT or WITH statement")
}

func errNoSQL(detail string) error {
	return &noSQLError{detail}
}

type noSQLError struct{ detail string }

func (e *noSQLError) Error() string { return ErrNoSQL.Error() + ": " + e.detail }
func (e *noSQLError) Unwrap() error { return ErrNoSQL }

func extract(text string) (Extraction, bool) {
	blocks := fences(text)
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; b.closed && sqlInfo[b.lang] && strings.TrimSpace(b.body) != "" {
			return Extraction{SQL: trimSQL(b.body), Method: MethodSQLFence}, true
		}
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; b.closed && !sqlInfo[b.lang] && looksLikeQuery(b.body) {
			return Extraction{SQL: trimSQL(b.body), Method: MethodFence}, true
		}
	}
	if n := len(blocks); n > 0 {
		if b := blocks[n-1]; !b.closed && (sqlInfo[b.lang] || b.lang == "" && looksLikeQuery(b.body)) && strings.TrimSpace(b.body) != "" {
			return Extraction{SQL: trimSQL(b.body), Method: MethodUnclosedFence}, true
		}
	}
	if s, ok := lastTagged(text); ok {
		return Extraction{SQL: s, Method: MethodTags}, true
	}
	if len(blocks) == 0 && looksLikeQuery(text) {
		return Extraction{SQL: trimSQL(text), Method: MethodBare}, true
	}
	if s, ok := statement(text); ok {
		return Extraction{SQL: s, Method: MethodStatement}, true
	}
	return Extraction{}, false
}

// block is one fenced code block.
type block struct {
	lang   string // first word of the info string, lower case
	body   string
	closed bool
}

// fences finds the fenced code blocks of text as CommonMark does (a line of
// at least three backticks or tildes, indented at most three spaces, opens a
// block that a line of at least as many of the same character closes), with
// one leniency models need: a closing ``` at the end of the last code line
// ("SELECT 1```") also closes the block.
func fences(text string) []block {
	lines := strings.SplitAfter(text, "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		ch, n, info, ok := fenceOpen(lines[i])
		if !ok {
			continue
		}
		lang := strings.ToLower(firstWord(info))
		var body strings.Builder
		closed := false
		j := i + 1
		for ; j < len(lines); j++ {
			if fenceClose(lines[j], ch, n) {
				closed = true
				break
			}
			line := strings.TrimRight(lines[j], " \t\n")
			if strings.HasSuffix(line, strings.Repeat(string(ch), 3)) && ch == '`' {
				body.WriteString(strings.TrimRight(strings.TrimRight(line, "`"), " \t"))
				closed = true
				break
			}
			body.WriteString(lines[j])
		}
		out = append(out, block{lang: lang, body: body.String(), closed: closed})
		i = j
	}
	return out
}

// fenceOpen reports whether line opens a fenced block, and with which
// character, how many of it, and the info string.
func fenceOpen(line string) (ch byte, n int, info string, ok bool) {
	s := strings.TrimRight(line, "\n")
	indent := len(s) - len(strings.TrimLeft(s, " "))
	if indent > 3 {
		return 0, 0, "", false
	}
	s = s[indent:]
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0, "", false
	}
	ch = s[0]
	for n < len(s) && s[n] == ch {
		n++
	}
	if n < 3 {
		return 0, 0, "", false
	}
	info = strings.TrimSpace(s[n:])
	if ch == '`' && strings.Contains(info, "`") {
		// "```sql SELECT 1```" on one line: CommonMark reads an inline code
		// span, not a fence.
		return 0, 0, "", false
	}
	return ch, n, info, true
}

func fenceClose(line string, ch byte, n int) bool {
	s := strings.TrimRight(line, " \t\r\n")
	indent := len(s) - len(strings.TrimLeft(s, " "))
	if indent > 3 {
		return false
	}
	s = s[indent:]
	if len(s) < n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != ch {
			return false
		}
	}
	return true
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t{"); i >= 0 {
		return s[:i]
	}
	return s
}

// trimSQL removes surrounding blank space, keeping everything else.
func trimSQL(s string) string {
	return strings.TrimSpace(s)
}

// leadingKeyword matches the start of a query: SELECT, or WITH followed by
// a CTE name and AS ( (prose such as "With the cohort ..." does not match).
var leadingKeyword = regexp.MustCompile("(?i)^(select\\b|with\\s+(recursive\\s+)?[`\"A-Za-z_][`\"\\w.-]*\\s+as\\s*\\()")

// looksLikeQuery reports whether s, after leading comments, blank space and
// opening parentheses, starts a query.
func looksLikeQuery(s string) bool {
	s = skipComments(s)
	s = strings.TrimLeft(s, "( \t\n")
	return leadingKeyword.MatchString(s)
}

// skipComments drops leading blank space, -- and # line comments and /* */
// block comments.
func skipComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "--"), strings.HasPrefix(s, "#"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return ""
			}
			s = s[i+4:]
		default:
			return s
		}
	}
}

var tagPairs = [][2]string{{"[sql]", "[/sql]"}, {"<sql>", "</sql>"}}

// lastTagged returns the text of the last non-empty tag pair holding a query.
func lastTagged(text string) (string, bool) {
	lower := lowerASCII(text) // byte offsets must match text
	best, bestAt := "", -1
	for _, p := range tagPairs {
		end := len(lower)
		for {
			c := strings.LastIndex(lower[:end], p[1])
			if c < 0 {
				break
			}
			o := strings.LastIndex(lower[:c], p[0])
			if o < 0 {
				break
			}
			body := text[o+len(p[0]) : c]
			if looksLikeQuery(body) {
				if o > bestAt {
					best, bestAt = trimSQL(body), o
				}
				break
			}
			end = o
		}
	}
	return best, bestAt >= 0
}

// queryStart matches a line that starts a query: SELECT, or WITH followed by
// a CTE name and AS (so that prose such as "With the cohort ..." does not).
var queryStart = regexp.MustCompile("(?i)^\\s*(select\\b|with\\s+(recursive\\s+)?[`\"A-Za-z_][`\"\\w.-]*\\s+as\\s*\\(|with\\s*$)")

// statement finds the first line that starts a query, takes the comment
// lines right above it, and ends at the first line ending in ";" or before a
// fence line.
func statement(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if !queryStart.MatchString(line) {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(line), "with") && (i+1 >= len(lines) || !queryStart.MatchString("with "+strings.TrimSpace(lines[i+1]))) {
			continue
		}
		start := i
		for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "--") {
			start--
		}
		end := len(lines)
		for j := i; j < len(lines); j++ {
			if t := strings.TrimSpace(lines[j]); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				end = j
				break
			}
			if strings.HasSuffix(strings.TrimSpace(lines[j]), ";") {
				end = j + 1
				break
			}
		}
		s := trimSQL(strings.Join(lines[start:end], "\n"))
		if s != "" {
			return s, true
		}
	}
	return "", false
}
