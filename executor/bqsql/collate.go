package bqsql

import "strings"

// collate translates `x COLLATE 'spec'` in ORDER BY (a query's or a
// window's). BigQuery's specifications are 'und:ci', the Unicode root
// collation ignoring case, and 'binary' or the empty string (byte order,
// the default).
// DuckDB's ICU collation "en" is CLDR's root collation (English has no
// tailoring) and nocase folds case first, so "en.nocase" orders and ties
// as 'und:ci' does. Other specifications are refused as unsupported.
func (e *emitter) collate(w *writer, items []*item, i int) int {
	next := at(items, i+1)
	if next == nil || next.tok.Kind != String || next.synthetic() || next.group {
		return 0
	}
	spec, err := next.tok.Value()
	if err != nil {
		return 0
	}
	switch strings.ToLower(spec) {
	case "und:ci":
		w.lead(items[i])
		w.write(`COLLATE "en.nocase"`)
	case "binary", "":
		// Byte order is DuckDB's default.
	default:
		e.unsupported(next, "COLLATE '%s' is not supported", spec)
	}
	return 2
}
