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
//     and LIKE over the text count and match bytes exactly.
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
CREATE OR REPLACE TEMP MACRO bq_bytes_text(b) AS array_to_string(list_transform(range(octet_length(b)),
	bq_i -> chr(CASE WHEN substr(hex(b), 2 * bq_i + 1, 2) = '00' THEN 256
		ELSE CAST('0x' || substr(hex(b), 2 * bq_i + 1, 2) AS INTEGER) END)), '');
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
	if len(items) == 1 && items[0].tok.Kind == Bytes && !items[0].synthetic() && !items[0].group {
		return true
	}
	return e.exprType(items) == "BYTES"
}
