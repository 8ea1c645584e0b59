package bqsql

import (
	"errors"
	"sort"
	"strings"

	"github.com/sqlc-dev/zetajones/parser"
)

// Scripts in BigQuery's procedural language. BigQuery runs a multi-statement
// query whose statements may be procedural: DECLARE, SET, EXECUTE
// IMMEDIATE, BEGIN … END (with EXCEPTION), CASE, IF, labels, LOOP, REPEAT,
// WHILE, BREAK/LEAVE, CONTINUE/ITERATE, FOR … IN, BEGIN/COMMIT/ROLLBACK
// TRANSACTION, RAISE, RETURN and CALL (procedural language reference,
// https://cloud.google.com/bigquery/docs/reference/standard-sql/procedural-language),
// and ASSERT (debugging statements reference). The embedded engine runs a
// query or a script of queries (script, translate.go) but keeps no
// variables and no control flow, so a script with any of these statements
// is valid BigQuery it cannot answer: unsupported, never the model's
// error, unless BigQuery's parser would reject the script, which is then
// the query's syntax error.

// proceduralStarts are the words that begin a procedural (or debugging)
// statement; no query statement begins with one.
var proceduralStarts = wordSet(`DECLARE SET EXECUTE BEGIN CASE IF LOOP REPEAT WHILE BREAK LEAVE
	CONTINUE ITERATE FOR COMMIT ROLLBACK RAISE RETURN CALL ASSERT`)

// blockWords end a procedural statement's head: the statement list of a
// block, a branch or a loop body starts after them.
var blockWords = wordSet(`BEGIN THEN ELSE DO LOOP REPEAT`)

// proceduralStart is the source position of the first statement of a
// script (toks, split into stmts by statementSpans) that is procedural, or
// -1. A script's first procedural statement is one of its top-level
// statements: a block word is part of one.
func proceduralStart(toks []Token, stmts [][2]int) int {
	for _, sp := range stmts {
		i := sort.Search(len(toks), func(k int) bool { return toks[k].Pos >= sp[0] })
		for ; i < len(toks) && (toks[i].Kind == Space || toks[i].Kind == Comment); i++ {
		}
		if i == len(toks) {
			continue
		}
		if t := toks[i]; t.Kind == Ident && (inWordSet(proceduralStarts, t.Text) || nextSignificant(toks, i) == ":") {
			return t.Pos
		}
	}
	return -1
}

// scriptShape is what one forward scan of a procedural script's tokens
// tells.
type scriptShape struct {
	// unread: the script has a statement the GoogleSQL parser the bridge
	// links does not read although BigQuery does (a CASE statement, a
	// label), so its syntax errors are no verdict.
	unread bool
	// inQuery[i] says whether toks[i] belongs to a query (a query
	// statement or a bracketed subquery) rather than to procedural syntax.
	inQuery []bool
}

// shapeOf scans toks once, tracking statement starts (after a top-level
// semicolon or a block word of a procedural statement), bracket nesting
// and CASE expressions (whose THEN and ELSE start no statement).
func shapeOf(toks []Token) scriptShape {
	sh := scriptShape{inQuery: make([]bool, len(toks))}
	var stack []bool // per open bracket: whether it holds a query
	start := true    // the next significant token starts a statement
	query := false   // the current top-level statement is a query
	caseDepth := 0   // CASE expressions open in a procedural statement
	for i, t := range toks {
		if t.Kind == Space || t.Kind == Comment {
			continue
		}
		word := ""
		if t.Kind == Ident {
			word = strings.ToUpper(t.Text)
		}
		if len(stack) == 0 && start {
			start, caseDepth = false, 0
			query = word == "SELECT" || word == "WITH" || t.Text == "("
			switch {
			case word == "CASE":
				// A CASE statement: the parser does not read it.
				sh.unread = true
			case t.Kind == Ident && nextSignificant(toks, i) == ":":
				// A label.
				sh.unread = true
			}
		}
		in := query
		if n := len(stack); n > 0 {
			in = stack[n-1]
		}
		sh.inQuery[i] = in
		switch {
		case t.Kind == Punct && (t.Text == "(" || t.Text == "["):
			w := strings.ToUpper(nextSignificant(toks, i))
			stack = append(stack, in || w == "SELECT" || w == "WITH")
		case t.Kind == Punct && (t.Text == ")" || t.Text == "]"):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case len(stack) > 0:
		case t.Kind == Punct && t.Text == ";":
			start = true
		case query:
		case word == "CASE":
			caseDepth++
		case word == "END" && caseDepth > 0:
			caseDepth--
		case caseDepth == 0 && blockWords[word]:
			start = true
		}
	}
	return sh
}

// nextSignificant is the text of the first token after toks[i] that is
// not space or comment, or "".
func nextSignificant(toks []Token, i int) string {
	for _, t := range toks[i+1:] {
		if t.Kind != Space && t.Kind != Comment {
			return t.Text
		}
	}
	return ""
}

// proceduralScript returns nil when sql has no procedural statement, and
// otherwise the script's error: unsupported, or invalid where the
// GoogleSQL parser rejects the script's procedural syntax (BigQuery's
// grammar; its message is BigQuery's). A parse error inside a query, or in
// a script with a statement the parser does not read, is no verdict: the
// parser refuses some queries BigQuery runs (QUALIFY without WHERE), so
// the script is then unsupported.
func proceduralScript(sql string, toks []Token, stmts [][2]int) *Error {
	first := proceduralStart(toks, stmts)
	if first < 0 {
		return nil
	}
	sh := shapeOf(toks)
	unsupported := errAt(sql, first, KindUnsupported,
		"a script's procedural statements (DECLARE, SET, BEGIN … END, IF, loops, CALL, …): only a query or a script of queries runs, without variables or control flow")
	if sh.unread || len(sql) > maxModelBytes {
		return unsupported
	}
	_, err := parser.ParseScript(sql)
	var pe *parser.Error
	if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(pe.Message, "Syntax error:") {
		return unsupported
	}
	// The token the error points at, or the last one before it.
	at := -1
	for i, t := range toks {
		if t.Pos > pe.Offset {
			break
		}
		if t.Kind != Space && t.Kind != Comment {
			at = i
		}
	}
	if at >= 0 && sh.inQuery[at] {
		return unsupported
	}
	return errAt(sql, pe.Offset, KindInvalid, "%s", pe.Message)
}

// ProceduralScript reports whether sql is a BigQuery script with a
// procedural statement (see proceduralScript), which the translator
// classifies itself: the engine does not ask DuckDB's parser what kind of
// statement it is (DuckDB reads SET, CALL and EXECUTE as its own
// statements).
func ProceduralScript(sql string) bool {
	toks, err := Tokenize(sql)
	return err == nil && proceduralStart(toks, statementSpans(toks)) >= 0
}
