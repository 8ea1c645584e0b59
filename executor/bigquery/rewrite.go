package bigquery

import (
	"maps"
	"slices"
	"strings"
)

// datasetMap rewrites table paths whose project and dataset are mapped
// (physionet-data.mimiciv_3_1_hosp -> my-project.hosp), in every spelling
// GoogleSQL accepts: one backticked path, backticked parts, unquoted parts and
// an unquoted dashed project name. String literals and comments are left
// alone. It also maps names in BigQuery's error messages back, so a model
// reads the names it wrote.
type datasetMap struct {
	to   map[string]string // "project.dataset" -> "project.dataset"
	back []string          // replacer pairs for messages
}

func newDatasetMap(m map[string]string) *datasetMap {
	if len(m) == 0 {
		return nil
	}
	d := &datasetMap{to: make(map[string]string, len(m))}
	for _, from := range slices.Sorted(maps.Keys(m)) {
		to := m[from]
		d.to[from] = to
		fp, fd := splitDataset(from)
		tp, td := splitDataset(to)
		// BigQuery writes "project:dataset.table" in most messages and
		// "project.dataset.table" in some.
		d.back = append(d.back, tp+":"+td+".", fp+":"+fd+".", tp+"."+td+".", fp+"."+fd+".")
	}
	return d
}

func splitDataset(s string) (project, dataset string) {
	i := strings.LastIndex(s, ".")
	return s[:i], s[i+1:]
}

// messageBack maps target names in a BigQuery message back to the names the
// SQL used.
func (d *datasetMap) messageBack(msg string) string {
	if d == nil {
		return msg
	}
	return strings.NewReplacer(d.back...).Replace(msg)
}

// rewrite returns sql with mapped table paths replaced. Text other than the
// rewritten paths is kept byte for byte.
func (d *datasetMap) rewrite(sql string) string {
	if d == nil {
		return sql
	}
	toks := lex(sql)
	var b strings.Builder
	last := 0
	for i := 0; i < len(toks); {
		if !toks[i].pathPart() {
			i++
			continue
		}
		end, parts := scanPath(sql, toks, i)
		if end <= i { // not a path after all (an unterminated backtick)
			i++
			continue
		}
		if repl, ok := d.mapPath(parts); ok {
			b.WriteString(sql[last:toks[i].start])
			b.WriteString(repl)
			last = toks[end-1].end
		}
		i = end
	}
	if last == 0 {
		return sql
	}
	b.WriteString(sql[last:])
	return b.String()
}

// mapPath maps a path whose first two parts are a mapped dataset.
func (d *datasetMap) mapPath(parts []string) (string, bool) {
	if len(parts) < 2 {
		return "", false
	}
	to, ok := d.to[parts[0]+"."+parts[1]]
	if !ok {
		return "", false
	}
	return "`" + to + strings.Join(append([]string{""}, parts[2:]...), ".") + "`", true
}

// scanPath reads a dotted path starting at toks[i] and returns the index
// after it and its parts. A backticked part may hold several dotted parts;
// unquoted words joined by '-' without spaces form one part (a project id
// such as physionet-data).
func scanPath(sql string, toks []token, i int) (int, []string) {
	var parts []string
	for i < len(toks) {
		t := toks[i]
		text := sql[t.start:t.end]
		switch t.kind {
		case tokBacktick:
			if len(text) < 2 || text[len(text)-1] != '`' {
				return i, parts // unterminated: BigQuery rejects the query
			}
			inner := strings.ReplaceAll(text[1:len(text)-1], "\\`", "`")
			parts = append(parts, strings.Split(inner, ".")...)
			i++
		case tokWord:
			word := text
			i++
			for i+1 < len(toks) && toks[i].kind == tokPunct && sql[toks[i].start:toks[i].end] == "-" &&
				toks[i].start == toks[i-1].end && toks[i+1].kind == tokWord && toks[i+1].start == toks[i].end {
				word += "-" + sql[toks[i+1].start:toks[i+1].end]
				i += 2
			}
			parts = append(parts, word)
		default:
			return i, parts
		}
		// Continue only over a dot directly followed by another part.
		if i+1 < len(toks) && toks[i].kind == tokPunct && sql[toks[i].start:toks[i].end] == "." && toks[i+1].pathPart() {
			i++
			continue
		}
		return i, parts
	}
	return i, parts
}

type tokKind int

const (
	tokWord     tokKind = iota // identifier or keyword or number
	tokBacktick                // `quoted identifier or path`
	tokString                  // any string or bytes literal
	tokComment
	tokSpace
	tokPunct
)

type token struct {
	kind       tokKind
	start, end int
}

func (t token) pathPart() bool { return t.kind == tokWord || t.kind == tokBacktick }

// lex splits GoogleSQL text into tokens, enough to tell code from string
// literals ('...', "...", triple-quoted, with r/b prefixes), comments (--, #,
// /* */) and quoted identifiers. An unterminated literal or comment runs to
// the end, as BigQuery would then reject the query anyway.
func lex(s string) []token {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			for i < len(s) && strings.IndexByte(" \t\n\r\f\v", s[i]) >= 0 {
				i++
			}
			toks = append(toks, token{tokSpace, start, i})
		case c == '#' || (c == '-' && strings.HasPrefix(s[i:], "--")):
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(s)
			}
			toks = append(toks, token{tokComment, start, i})
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
			toks = append(toks, token{tokComment, start, i})
		case c == '`':
			i = scanQuoted(s, i+1, "`")
			toks = append(toks, token{tokBacktick, start, i})
		case c == '\'' || c == '"':
			i = scanString(s, i)
			toks = append(toks, token{tokString, start, i})
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			// String prefixes: r, b, rb, br (any case) directly before a quote.
			if j < len(s) && (s[j] == '\'' || s[j] == '"') && isStringPrefix(s[i:j]) {
				i = scanString(s, j)
				toks = append(toks, token{tokString, start, i})
				continue
			}
			i = j
			toks = append(toks, token{tokWord, start, i})
		default:
			i++
			toks = append(toks, token{tokPunct, start, i})
		}
	}
	return toks
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "b", "rb", "br":
		return true
	}
	return false
}

// scanString scans a literal starting at its opening quote at s[i] and
// returns the index after its closing quote.
func scanString(s string, i int) int {
	q := s[i : i+1]
	if strings.HasPrefix(s[i:], q+q+q) {
		return scanQuoted(s, i+3, q+q+q)
	}
	return scanQuoted(s, i+1, q)
}

// scanQuoted finds the closing quote from i; backslash escapes the next
// character, in raw strings too: in GoogleSQL a quote after a backslash
// never closes a literal.
func scanQuoted(s string, i int, quote string) int {
	for i < len(s) {
		if s[i] == '\\' {
			i += 2
			continue
		}
		if strings.HasPrefix(s[i:], quote) {
			return i + len(quote)
		}
		i++
	}
	return len(s)
}
