package bqsql

// havingAggs are the aggregates whose HAVING MAX/MIN form is translated,
// with their result over the qualifying values vs (a DuckDB list).
var havingAggs = map[string]func(vs string) string{
	// COUNT of no rows is 0 (list() of no rows is NULL).
	"COUNT":     func(vs string) string { return "coalesce(len(list_filter(" + vs + ", bq_e -> bq_e IS NOT NULL)), 0)" },
	"SUM":       func(vs string) string { return "list_sum(" + vs + ")" },
	"AVG":       func(vs string) string { return "list_avg(" + vs + ")" },
	"MIN":       func(vs string) string { return "list_min(" + vs + ")" },
	"MAX":       func(vs string) string { return "list_max(" + vs + ")" },
	"ANY_VALUE": func(vs string) string { return "list_any_value(" + vs + ")" },
}

// havingModifiers rewrites AGG(x HAVING MAX k) and AGG(x HAVING MIN k):
// BigQuery aggregates only the group's rows whose k equals the group's
// maximum (minimum) of k; rows with a NULL k never qualify. DuckDB has no
// such modifier, so the group's (k, x) pairs are collected into a list,
// filtered to the extreme k and aggregated with the list function of the
// same meaning. Other aggregates, DISTINCT and analytic use are refused as
// unsupported.
func (e *emitter) havingModifiers(items []*item) []*item {
	for i := 0; i+1 < len(items); i++ {
		g := items[i+1]
		name := items[i].upper()
		if name == "" || !g.isGroup("(") || isSubquery(g) {
			continue
		}
		h := indexWord(g.kids, "HAVING")
		if h < 0 || !(at(g.kids, h+1).is("MAX") || at(g.kids, h+1).is("MIN")) {
			continue
		}
		agg, ok := havingAggs[name]
		switch {
		case !ok || len(splitTop(g.kids[:h])) != 1 || h == 0:
			e.unsupported(items[i], "HAVING MAX or MIN in an aggregate other than COUNT, SUM, AVG, MIN, MAX or ANY_VALUE is not supported")
			return items
		case g.kids[0].is("DISTINCT") || at(items, i+2).is("OVER"):
			e.unsupported(items[i], "HAVING MAX or MIN with DISTINCT or OVER is not supported")
			return items
		}
		key := g.kids[h+2:]
		if len(key) == 0 {
			e.invalid(g.kids[h+1], "Syntax error: Unexpected \")\"")
			return items
		}
		val := "1"
		if arg := g.kids[:h]; !(len(arg) == 1 && arg[0].isPunct("*")) {
			val = e.text(arg)
		} else if name != "COUNT" {
			e.invalid(arg[0], "Syntax error: Unexpected \"*\"")
			return items
		}
		extreme := "list_max"
		if g.kids[h+1].is("MIN") {
			extreme = "list_min"
		}
		l := "list(struct_pack(k := " + e.text(key) + ", v := " + val + "))"
		vs := "list_transform(list_filter(" + l + ", bq_e -> bq_e.k = " + extreme + "(list_transform(" + l +
			", bq_e -> bq_e.k))), bq_e -> bq_e.v)"
		items = e.replaceRaw(items, i, i+2, "("+agg(vs)+")")
	}
	return items
}
