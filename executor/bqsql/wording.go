package bqsql

import (
	"regexp"
	"strings"
)

// The refinement loop shows a model the engine's error, and the model wrote
// BigQuery SQL: DuckDB's wording ("Binder Error: Referenced column "x" not
// found in FROM clause!", followed by the translated SQL it failed on) tells
// it about a query it never wrote. bigQueryMessage words the DuckDB errors
// that real model queries meet as BigQuery words the same mistake (each
// pair below was checked against BigQuery's recorded error for the same
// query in the released runs), and drops DuckDB's quotation of the
// translated SQL from any other.

// wordings are DuckDB messages (the part after "<Kind> Error: ") and
// BigQuery's for the same mistake; $1 is the name DuckDB quotes.
var wordings = []struct {
	re  *regexp.Regexp
	out string
}{
	{regexp.MustCompile(`^Referenced column "([^"]*)" not found`), `Unrecognized name: $1`},
	{regexp.MustCompile(`^Referenced table "([^"]*)" not found!`), `Unrecognized name: $1`},
	{regexp.MustCompile(`^Table with name ([^ ]*) does not exist because schema "?([^ "]*)"? does not exist`), `Not found: Dataset $2 was not found`},
	{regexp.MustCompile(`^Table with name ([^ ]*) does not exist!`), `Table "$1" must be qualified with a dataset (e.g. dataset.table).`},
	{regexp.MustCompile(`^(?:Table|Values list) "([^"]*)" does not have a column named "([^"]*)"`), `Name $2 not found inside $1`},
	{regexp.MustCompile(`^Ambiguous reference to column name "([^"]*)"`), `Column name $1 is ambiguous`},
	{regexp.MustCompile(`^column "([^"]*)" must appear in the GROUP BY clause or must be part of an aggregate function`),
		`SELECT list expression references column $1 which is neither grouped nor aggregated`},
	{regexp.MustCompile(`^aggregate function calls cannot contain window function calls`), `Analytic functions cannot be arguments to aggregate functions`},
	{regexp.MustCompile(`^WHERE clause cannot contain window functions!`), `Analytic function not allowed in WHERE clause`},
	{regexp.MustCompile(`^WHERE clause cannot contain aggregates!`), `Aggregate function not allowed in WHERE clause`},
	{regexp.MustCompile(`^More than one row returned by a subquery used as an expression`), `Scalar subquery produced more than one element`},
	{regexp.MustCompile(`^Scalar Function with name ([^ ]*) does not exist!`), `Function not found: $1`},
	{regexp.MustCompile(`^Could not convert string '([^']*)' to INT64`), `Bad int64 value: $1`},
	{regexp.MustCompile(`^Could not convert string '([^']*)' to DOUBLE`), `Bad double value: $1`},
	{regexp.MustCompile(`^Could not convert string '([^']*)' to BOOL`), `Bad bool value: $1`},
	// A pattern RE2 cannot parse: DuckDB passes on RE2's error (its code's
	// text, then the offending part); GoogleSQL prefixes the same RE2 error
	// with "Cannot parse regular expression: " (zetasql/public/functions/
	// regexp.cc). No released run recorded one.
	{regexp.MustCompile(`^(?:Pattern failed to parse, error: ')?((?:` + re2Errors + `)(?::.*?)?)'?$`), `Cannot parse regular expression: $1`},
}

// re2Errors are the texts of RE2's parse error codes (re2/regexp.cc).
const re2Errors = `invalid escape sequence|invalid character class range|invalid character class|missing \]|missing \)|unexpected \)|` +
	`trailing \\|no argument for repetition operator|invalid repetition size|bad repetition operator|invalid perl operator|` +
	`invalid UTF-8|invalid named capture group|pattern too large - compile failed`

// duckKind is the "<Kind> Error: " prefix of DuckDB's messages.
var duckKind = regexp.MustCompile(`^(?:Binder|Catalog|Parser|Conversion|Invalid Input|Out of Range|Not implemented|Invalid type|Type mismatch) Error: `)

// parserNear is DuckDB's syntax error, which names the token it stopped at.
var parserNear = regexp.MustCompile(`^syntax error at or near "([^"]*)"`)

// bigQueryMessage words msg as BigQuery would (see wordings), in BigQuery's
// type names, keeping only the first line of a DuckDB error: the rest is
// DuckDB's quotation of the translated SQL ("LINE 1: …" and a caret) or its
// suggestions in DuckDB's terms.
func bigQueryMessage(msg string) string {
	loc := duckKind.FindStringIndex(msg)
	if loc == nil {
		return bigQueryTypes(msg)
	}
	body := bigQueryTypes(firstLine(msg[loc[1]:]))
	if m := parserNear.FindStringSubmatch(body); m != nil {
		return "Syntax error: Unexpected " + describeToken(m[1])
	}
	for _, w := range wordings {
		if m := w.re.FindStringSubmatchIndex(body); m != nil {
			return string(w.re.ExpandString(nil, w.out, body, m))
		}
	}
	return body
}

// describeToken names a token as BigQuery's syntax errors do: keyword X,
// identifier "x", or the quoted text.
func describeToken(t string) string {
	switch {
	case bqReserved[strings.ToUpper(t)]:
		return "keyword " + strings.ToUpper(t)
	case t != "" && isIdentStart(t[0]):
		return `identifier "` + t + `"`
	}
	return `"` + t + `"`
}
