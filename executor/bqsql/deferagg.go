package bqsql

import "strings"

// BigQuery evaluates the branches of IF, CASE, COALESCE and IFNULL only
// when they are taken, and an aggregate in a branch not taken does not
// raise the error of its argument: IF(SUM(x) >= 0, SUM(x), SUM(1/x)) is
// SUM(x) where some x is 0. DuckDB computes every aggregate of the query
// before it chooses a branch, so the division raised. An aggregate in such
// a branch computes its argument under try() and counts the rows where it
// failed; the branch raises only when it is taken.

// markDeferredAggregates records the aggregate calls (their name items)
// that stand in a conditional branch of the query.
func (e *emitter) markDeferredAggregates(items []*item) {
	for i := 0; i < len(items); i++ {
		it := items[i]
		switch {
		case it.group:
			e.markDeferredAggregates(it.kids)
		case it.is("CASE"):
			// Everything after the first THEN, to the END, is conditional.
			depth, from := 0, -1
			for k := i + 1; k < len(items); k++ {
				x := items[k]
				switch {
				case x.is("CASE"):
					depth++
				case x.is("END") && depth > 0:
					depth--
				case x.is("END"):
					if from >= 0 {
						e.markBranch(items[from:k])
					}
					k = len(items)
				case x.is("THEN") && depth == 0 && from < 0:
					from = k + 1
				}
			}
		case (it.is("IF") || it.is("COALESCE") || it.is("IFNULL")) && at(items, i+1).isGroup("(") && !at(items, i-1).isPunct("."):
			args := splitTop(items[i+1].kids)
			for k, a := range args {
				if k > 0 {
					e.markBranch(a)
				}
			}
		}
	}
}

// markBranch marks the aggregate calls of a conditional branch, outside
// subqueries (which aggregate on their own).
func (e *emitter) markBranch(seq []*item) {
	for i, it := range seq {
		if it.group {
			if !isSubquery(it) {
				e.markBranch(it.kids)
			}
			continue
		}
		if it.tok.Kind != Ident || it.synthetic() || !at(seq, i+1).isGroup("(") || at(seq, i-1).isPunct(".") || at(seq, i+2).is("OVER") {
			continue
		}
		if sig, ok := signatures[it.upper()]; ok && sig.kind == aggregateFn {
			if e.deferred == nil {
				e.deferred = map[*item]bool{}
			}
			e.deferred[it] = true
		}
	}
}

// deferErrors rewrites the translation out of the aggregate call c, marked
// by markDeferredAggregates, so that an error of an argument raises only
// where the call's value is used. Arguments that cannot fail (a column, a
// literal) or that try() refuses (volatile functions, subqueries) are
// left alone.
func (e *emitter) deferErrors(c *call, out string) string {
	if !e.deferred[c.it] || c.over != nil {
		return out
	}
	var divided, failed []string
	for k := range c.args {
		a, ok := c.texts[k]
		if !ok || !mayFail(a) || containsSubquery(c.args[k]) || !strings.Contains(out, a) {
			continue
		}
		guarded := "try({'v': " + a + "})"
		out = strings.ReplaceAll(out, a, guarded+".v")
		failed = append(failed, "count(*) FILTER (WHERE "+guarded+" IS NULL) > 0")
		if strings.Contains(a, "bq_div(") {
			// A row that fails only where a / 0 raises is a division by
			// zero: its error keeps BigQuery's prefix, which RelaxDivision
			// recognises on a sample database.
			relaxed := "try({'v': " + strings.ReplaceAll(a, "bq_div(", "bq_safe_divide(") + "})"
			divided = append(divided, "count(*) FILTER (WHERE "+guarded+" IS NULL AND "+relaxed+" IS NOT NULL) > 0")
		}
	}
	if len(failed) == 0 {
		return out
	}
	// The failure is raised by a failing cast in the subscript of a
	// one-element list of the value, not by error(): DuckDB takes error()
	// for a side effect and then refuses a HAVING, GROUP BY or ORDER BY
	// that names the select-list alias holding it ("Alias … referenced -
	// but the expression has side effects"), which BigQuery allows. The
	// subscript keeps the value's own type, whatever it is.
	div := ""
	if len(divided) > 0 {
		div = "WHEN " + strings.Join(divided, " OR ") + " THEN CAST('division by zero: in an argument of " + c.name + "' AS BIGINT) "
	}
	return "[" + out + "][CASE " + div + "WHEN " + strings.Join(failed, " OR ") + " THEN CAST('" + deferredFailure(c.name) + "' AS BIGINT) ELSE 1 END]"
}

// deferredFailure is the error of a taken branch whose aggregate's
// argument failed on some row: try() does not keep the argument's own
// message.
func deferredFailure(name string) string {
	return "An argument of " + name + " failed on a row (such as an invalid cast or an overflow)"
}

// mayFail reports whether translated text can raise an error on some
// row: it calls a function or casts (a bare column or literal cannot),
// and try() accepts it (no volatile function).
func mayFail(text string) bool {
	if !strings.Contains(text, "(") {
		return false
	}
	lower := strings.ToLower(text)
	for _, v := range []string{"random(", "uuid(", "nextval(", "setseed("} {
		if strings.Contains(lower, v) {
			return false
		}
	}
	return true
}

// containsSubquery reports whether items hold a subquery at any depth.
func containsSubquery(items []*item) bool {
	for _, it := range items {
		if isSubquery(it) || (it.group && containsSubquery(it.kids)) {
			return true
		}
	}
	return false
}
