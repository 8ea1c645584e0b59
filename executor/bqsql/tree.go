package bqsql

import (
	"fmt"
	"strings"
)

// item is one node of the bracket tree the rewrite rules work on: a token, a
// bracketed group with its contents, or a synthetic node produced by a
// rewrite. Whitespace and comments are not items; each item only remembers
// whether it was preceded by some, so the output keeps the input's layout
// closely enough to stay readable.
type item struct {
	tok   Token
	kids  []*item // group contents, without the brackets
	close Token   // closing bracket of a group
	group bool
	nl    bool // trivia before this item contained a newline
	sp    bool // trivia before this item was non-empty

	// Synthetic nodes: exactly one of these is set.
	path  *pathNode // a (project.)dataset.table path or a dotted name
	sub   *subNode  // base[index]
	div   *divNode  // left / right
	raw   string    // already-translated text
	isRaw bool      // raw is set (it may legitimately be empty)

	// up memoises upper() of an identifier: the rules compare keywords
	// and function names many times per item, and an item's token never
	// changes once built.
	up string
}

// pathNode is a dotted path with backticks resolved into components.
type pathNode struct {
	parts []string // unquoted component names
	table bool     // rewritten to a MIMIC table reference
	out   string   // DuckDB text
	end   int      // byte offset just past the path in the source
	// alias is the name BigQuery gives the path as an unaliased FROM item:
	// its last identifier, which for one backticked identifier holding the
	// whole dotted path is that whole text (see rangeVarName).
	alias string
}

// subNode is an array subscript: base[OFFSET(i)] and friends.
type subNode struct {
	base  []*item
	index *item // the [ ] group
}

// divNode is a division, restructured so it can become bq_div(left, right).
type divNode struct {
	left, right []*item
	op          *item // the / token, for positions
}

// is reports whether the item is the identifier word, compared as BigQuery
// compares keywords and function names: ASCII letters without case (a
// non-ASCII letter never spells a keyword).
func (it *item) is(word string) bool {
	// The length first: it rules out most items at once.
	return it != nil && len(it.tok.Text) == len(word) && it.tok.Kind == Ident && !it.group && !it.synthetic() && asciiEqualFold(it.tok.Text, word)
}

// asciiEqualFold reports whether a and b are equal with ASCII letters
// compared without case.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func (it *item) isPunct(p string) bool {
	return it != nil && it.tok.Kind == Punct && !it.group && !it.synthetic() && it.tok.Text == p
}

func (it *item) isGroup(open string) bool {
	return it != nil && it.group && it.tok.Text == open
}

func (it *item) synthetic() bool {
	return it.path != nil || it.sub != nil || it.div != nil || it.isRaw
}

// upper is the upper-cased text of an identifier item, "" otherwise.
func (it *item) upper() string {
	if it == nil || it.tok.Kind != Ident || it.group || it.synthetic() {
		return ""
	}
	if it.up == "" {
		it.up = strings.ToUpper(it.tok.Text)
	}
	return it.up
}

// pos is the byte offset of the item's first token.
func (it *item) pos() int {
	switch {
	case it.sub != nil && len(it.sub.base) > 0:
		return it.sub.base[0].pos()
	case it.div != nil && len(it.div.left) > 0:
		return it.div.left[0].pos()
	}
	return it.tok.Pos
}

// end is the byte offset just past the item in the source, or -1 for
// text a rule wrote.
func (it *item) end() int {
	switch {
	case it.path != nil:
		return it.path.end
	case it.sub != nil:
		return it.sub.index.end()
	case it.div != nil && len(it.div.right) > 0:
		return it.div.right[len(it.div.right)-1].end()
	case it.isRaw:
		return -1
	case it.group:
		return it.close.Pos + len(it.close.Text)
	}
	return it.tok.Pos + len(it.tok.Text)
}

// maxNesting bounds how deep brackets nest. BigQuery documents no bound;
// the embedded engine has one: DuckDB refuses an expression nested deeper
// than its max_expression_depth, 1000 by default, and the translation's
// passes walk the tree once per level (100,000 nested brackets took 7
// minutes, issue 25). Deeper nesting is unsupported, not the query's
// fault.
const maxNesting = 1000

func errNesting() *Error {
	return &Error{Kind: KindUnsupported, Msg: fmt.Sprintf("brackets nested more than %d deep (the embedded engine's limit: DuckDB's max_expression_depth)", maxNesting)}
}

// buildTree groups tokens by brackets. Unbalanced brackets are a syntax error
// in BigQuery, reported with BigQuery's wording; brackets nested deeper than
// maxNesting are unsupported.
func buildTree(src string, toks []Token) ([]*item, error) {
	type frame struct {
		open  *item
		items []*item
	}
	stack := []frame{{}}
	// The items in one allocation: a query's tree lives as long as its
	// translation.
	n := 0
	for _, t := range toks {
		if t.Kind != Space && t.Kind != Comment {
			n++
		}
	}
	slab := make([]item, n)
	var nl, sp bool
	for _, t := range toks {
		switch t.Kind {
		case Space:
			sp = true
			nl = nl || strings.ContainsAny(t.Text, "\n\r")
			continue
		case Comment:
			sp = true
			// A line comment ends at a newline that stays a Space token;
			// block comments may span lines.
			nl = nl || strings.ContainsAny(t.Text, "\n\r")
			continue
		}
		it := &slab[0]
		slab = slab[1:]
		*it = item{tok: t, nl: nl, sp: sp}
		nl, sp = false, false
		top := &stack[len(stack)-1]
		if t.Kind == Punct {
			switch t.Text {
			case "(", "[":
				if len(stack) > maxNesting {
					return nil, errNesting()
				}
				it.group = true
				stack = append(stack, frame{open: it})
				continue
			case ")", "]":
				want := "("
				if t.Text == "]" {
					want = "["
				}
				if top.open == nil || top.open.tok.Text != want {
					return nil, errAt(src, t.Pos, KindInvalid, "Syntax error: Unexpected %q", t.Text)
				}
				top.open.kids = top.items
				top.open.close = t
				stack = stack[:len(stack)-1]
				parent := &stack[len(stack)-1]
				parent.items = append(parent.items, top.open)
				continue
			}
		}
		top.items = append(top.items, it)
	}
	if len(stack) > 1 {
		open := stack[len(stack)-1].open
		want := ")"
		if open.tok.Text == "[" {
			want = "]"
		}
		return nil, errAt(src, len(src), KindInvalid, "Syntax error: Expected %q but got end of input", want)
	}
	return stack[0].items, nil
}

// splitTop splits items at top-level commas.
func splitTop(items []*item) [][]*item {
	if len(items) == 0 {
		return nil
	}
	out := make([][]*item, 0, 4)
	start := 0
	for i := 0; i < len(items); i++ {
		it := items[i]
		if (it.is("ARRAY") || it.is("STRUCT")) && at(items, i+1).isPunct("<") {
			// The commas of ARRAY<STRUCT<a INT64, b INT64>> separate fields,
			// not arguments.
			i = closingAngle(items, i+1)
			continue
		}
		if it.isPunct(",") {
			out = append(out, items[start:i])
			start = i + 1
		}
	}
	return append(out, items[start:])
}

// closingAngle returns the index of the > (or >>) that closes the < at
// items[open], or open when none closes it exactly.
func closingAngle(items []*item, open int) int {
	depth := 0
	for j := open; j < len(items); j++ {
		switch {
		case items[j].isPunct("<"):
			depth++
		case items[j].isPunct(">"):
			depth--
		case items[j].isPunct(">>"):
			depth -= 2
		}
		if depth == 0 {
			return j
		}
		if depth < 0 {
			return open
		}
	}
	return open
}

// indexWord returns the index of the first identifier item equal to word,
// or -1.
func indexWord(items []*item, word string) int {
	for i, it := range items {
		if it.is(word) {
			return i
		}
	}
	return -1
}
