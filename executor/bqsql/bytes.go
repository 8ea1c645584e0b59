package bqsql

// bytesMacros give BYTES (DuckDB BLOB) arguments BigQuery's meaning where
// DuckDB's function takes only VARCHAR. They dispatch on typeof(), which is
// constant for a query, so only one branch runs; the casts in the others
// only make them bind.
//
//   - bq_length: LENGTH counts characters of a STRING and bytes of BYTES;
//     any other type is BigQuery's signature error (DuckDB's length would
//     also take a list).
//   - bq_string_join: STRING_AGG's result from the list of its non-NULL
//     values, NULL when there are none. list_reduce keeps the element
//     type, so BYTES join into BYTES and STRING into STRING (DuckDB's
//     string_agg takes only VARCHAR); another type is BigQuery's signature
//     error (the THEN branch only binds for it).
//   - bq_byte_length: BYTE_LENGTH and OCTET_LENGTH, bytes of a STRING's
//     UTF-8 or of BYTES (DuckDB's strlen takes only VARCHAR).
//   - bq_bytes_text: BYTES as text, one character a byte (byte b is code
//     point b, and 0 is 256 since DuckDB text holds no NUL), so STRPOS
//     and LIKE over the text count and match bytes exactly. Its argument
//     appears once (the lambda binds its hex text): DuckDB expands macros
//     in place, and an argument written three times made nested calls
//     grow exponentially (10 s to bind one LIKE ALL over CASTs).
//   - bq_strpos: STRPOS of STRING in STRING or of BYTES in BYTES; a mix is
//     BigQuery's signature error.
const bytesMacros = `
CREATE OR REPLACE TEMP MACRO bq_length(x) AS CASE
	WHEN typeof(x) = 'BLOB' THEN octet_length(CAST(x AS BLOB))
	WHEN typeof(x) IN ('VARCHAR', '"NULL"') THEN length(CAST(x AS VARCHAR))
	ELSE CAST('No matching signature for function LENGTH for argument types: ' || typeof(x) AS BIGINT) END;
CREATE OR REPLACE TEMP MACRO bq_string_join(l, s) AS CASE
	WHEN typeof(l) NOT IN ('VARCHAR[]', 'BLOB[]', '"NULL"[]') THEN CASE WHEN CAST(
		'No matching signature for function STRING_AGG for argument types: ' || replace(typeof(l), '[]', '') AS BIGINT) = 0
		THEN l[1] END
	WHEN len(l) = 0 THEN NULL ELSE list_reduce(l, (bq_a, bq_b) -> bq_a || s || bq_b) END;
CREATE OR REPLACE TEMP MACRO bq_byte_length(x, f) AS CASE
	WHEN typeof(x) = 'BLOB' THEN octet_length(CAST(x AS BLOB))
	WHEN typeof(x) IN ('VARCHAR', '"NULL"') THEN strlen(CAST(x AS VARCHAR))
	ELSE CAST('No matching signature for function ' || f || ' for argument types: ' || typeof(x) AS BIGINT) END;
CREATE OR REPLACE TEMP MACRO bq_bytes_text(b) AS list_transform([hex(b)], bq_h -> array_to_string(list_transform(
	range(len(bq_h) // 2), bq_i -> chr(CASE WHEN substr(bq_h, 2 * bq_i + 1, 2) = '00' THEN 256
		ELSE CAST('0x' || substr(bq_h, 2 * bq_i + 1, 2) AS INTEGER) END)), ''))[1];
CREATE OR REPLACE TEMP MACRO bq_strpos(s, t) AS CASE
	WHEN typeof(s) IN ('BLOB', '"NULL"') AND typeof(t) IN ('BLOB', '"NULL"') AND (typeof(s) = 'BLOB' OR typeof(t) = 'BLOB')
		THEN strpos(bq_bytes_text(CAST(s AS BLOB)), bq_bytes_text(CAST(t AS BLOB)))
	WHEN typeof(s) IN ('VARCHAR', '"NULL"') AND typeof(t) IN ('VARCHAR', '"NULL"') THEN strpos(CAST(s AS VARCHAR), CAST(t AS VARCHAR))
	ELSE CAST('No matching signature for function STRPOS for argument types: ' || typeof(s) || ', ' || typeof(t) AS BIGINT) END;
`

// byteLength renders BYTE_LENGTH and OCTET_LENGTH, naming the one written
// in the signature error.
func byteLength(c *call) string {
	return "bq_byte_length(" + c.arg(0) + ", '" + c.name + "')"
}

// substr renders SUBSTR and SUBSTRING: over bytes where the bridge knows
// the value is BYTES, over characters otherwise.
func substr(c *call) string {
	name := "bq_substr("
	if c.e.isBytes(c.args[0]) {
		name = "bq_bytes_substr("
	}
	return name + c.argsText() + ")"
}

// isBytes reports whether the bridge knows items to be a BYTES value: a
// bytes literal, a CAST to BYTES or a column of that type.
func (e *emitter) isBytes(items []*item) bool {
	return e.exprType(items) == "BYTES"
}

// bytesText is BYTES text x as bq_bytes_text's one character a byte, so
// that DuckDB's LIKE, which takes no BLOB, matches bytes as BigQuery does.
func bytesText(x string) string {
	return "bq_bytes_text(CAST(" + x + " AS BLOB))"
}

// anyBytes reports whether a LIKE ANY/ALL pattern list is of BYTES: one of
// the patterns in (p, …), or one element of UNNEST([…]), is known to be.
func (e *emitter) anyBytes(g, unnestArgs *item, unnest bool) bool {
	var elems [][]*item
	switch {
	case unnest:
		if kids := unnestArgs.kids; len(kids) == 1 && kids[0].isGroup("[") {
			elems = splitTop(kids[0].kids)
		}
	case g.isGroup("(") && !isSubquery(g):
		elems = splitTop(g.kids)
	}
	for _, el := range elems {
		if e.isBytes(el) {
			return true
		}
	}
	return false
}

// bytesLike rewrites x [NOT] LIKE p where the bridge knows x or p to be
// BYTES into a LIKE over bq_bytes_text, with BigQuery's backslash escape.
// DuckDB has no LIKE over BLOB; BYTES operands it cannot see as such stay
// "LIKE on BYTES is not supported".
func (e *emitter) bytesLike(items []*item) []*item {
	for i := 0; i < len(items); i++ {
		if !items[i].is("LIKE") {
			continue
		}
		next := at(items, i+1)
		if next.is("ANY") || next.is("SOME") || next.is("ALL") {
			continue
		}
		op, start, end := likeLeft(items, i)
		pe := primaryEnd(items, i+1)
		if start == end || pe < 0 {
			continue
		}
		left, right := items[start:end], items[i+1:pe+1]
		if !e.isBytes(left) && !e.isBytes(right) {
			continue
		}
		raw := "(" + bytesText(e.text(left)) + " " + op + " " + bytesText(e.text(right)) + ` ESCAPE '\')`
		items = e.replaceRaw(items, start, pe+1, raw)
		i = start
	}
	return items
}
