package bqsql

import "strings"

// implicitAlias returns the name a select-list element gives its column
// without AS (SELECT CAST(NULL AS INTERVAL) value, SELECT 1 id) and the
// expression before it. INTERVAL 1 DAY is an interval literal, not the
// literal INTERVAL 1 named day.
func implicitAlias(el []*item) (name *item, expr []*item, ok bool) {
	n := len(el)
	if n < 2 || !isName(el[n-1]) || !endsOperand(el[n-2]) {
		return nil, nil, false
	}
	if part := strings.TrimSuffix(el[n-1].upper(), "S"); isIntervalPart(el[n-1].upper()) || isIntervalPart(part) {
		for _, it := range el {
			if it.is("INTERVAL") {
				return nil, nil, false
			}
		}
	}
	return el[n-1], el[:n-1], true
}

// markImplicitAliases records, like scan does for AS, the names select
// lists give without AS: a bare name that a CTE defines so is typed from
// the CTE only where no other select list defines it too.
func (e *emitter) markImplicitAliases(items []*item) {
	eachSelectItem(items, func(el []*item) {
		if name, _, ok := implicitAlias(el); ok {
			e.redefined[strings.ToLower(e.identValue(name))] = true
		}
	})
}

// eachSelectItem calls fn with each item of every SELECT list in items, at
// any depth.
func eachSelectItem(items []*item, fn func(el []*item)) {
	for k, it := range items {
		if it.group {
			eachSelectItem(it.kids, fn)
			continue
		}
		if !it.is("SELECT") {
			continue
		}
		start, end := selectList(items, k)
		for _, el := range splitTop(items[start:end]) {
			fn(el)
		}
	}
}

// implicitAliased reports whether el ends in an implicit alias.
func implicitAliased(el []*item) bool {
	_, _, ok := implicitAlias(el)
	return ok
}
