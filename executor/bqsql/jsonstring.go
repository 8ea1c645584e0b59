package bqsql

import (
	"strconv"
	"strings"
)

// TO_JSON_STRING(value[, pretty_print]) writes a value as JSON with
// BigQuery's encodings (JSON functions reference, "JSON encodings"):
//   - INT64 as a number within ±2^53, a string outside;
//   - NUMERIC and BIGNUMERIC as a number when integral within ±2^53, a
//     string otherwise;
//   - FLOAT64 as a number, its infinities and NaN as the strings
//     "Infinity", "-Infinity" and "NaN";
//   - STRING escaped as JSON requires; BYTES as base64;
//   - DATE, DATETIME (T between date and time), TIMESTAMP (T, and Z for
//     UTC) and TIME as strings, a fraction of a second in groups of three
//     digits; INTERVAL in ISO 8601 (P1Y2M3DT4H5M6.5S);
//   - ARRAY as an array, STRUCT as an object with its fields in order,
//     NULL as null.
//
// The encoding follows the value's type, which the statement model gives
// (a STRUCT's field names and order included). Where it cannot tell the
// type, a scalar is written by its engine type (dynamicJSON) and DuckDB's
// to_json writes the rest, which agrees for strings, booleans, integers,
// dates and their arrays and structs; an array or struct holding another
// type is then refused at run time (unsupported, listed in the README), as
// is pretty_print.

func toJSONString(c *call) string {
	if len(c.args) == 2 {
		if v, ok := c.e.literalBool(c.args[1]); !ok || v {
			c.e.unsupported(c.it, "TO_JSON_STRING with pretty_print is not supported")
			return ""
		}
	}
	t := baseType(c.e.exprType(c.args[0]))
	return "list_transform([" + c.arg(0) + "], bq_j0 -> " + jsonEncode("bq_j0", t, 0) + ")[1]"
}

// jsonEncode is SQL writing the value x of BigQuery type t as JSON text
// (never NULL: a NULL is 'null'); depth names nested lambda parameters.
func jsonEncode(x, t string, depth int) string {
	quoted := func(s string) string { return `'"' || ` + s + ` || '"'` }
	var enc string
	switch {
	case t == "STRING":
		enc = "to_json(" + x + ")::VARCHAR"
	case t == "BOOL":
		enc = "CASE WHEN " + x + " THEN 'true' ELSE 'false' END"
	case t == "INT64":
		enc = "CASE WHEN " + x + " BETWEEN -9007199254740992 AND 9007199254740992 THEN CAST(" + x + " AS VARCHAR) ELSE " +
			quoted("CAST("+x+" AS VARCHAR)") + " END"
	case t == "NUMERIC" || t == "BIGNUMERIC":
		enc = "CASE WHEN " + x + " = trunc(" + x + ") AND " + x + " BETWEEN -9007199254740992 AND 9007199254740992 THEN bq_to_string(" + x + ") ELSE " +
			quoted("bq_to_string("+x+")") + " END"
	case t == "FLOAT64":
		enc = "CASE WHEN isnan(" + x + ") THEN '\"NaN\"' WHEN " + x + " = CAST('inf' AS DOUBLE) THEN '\"Infinity\"' WHEN " + x +
			" = CAST('-inf' AS DOUBLE) THEN '\"-Infinity\"' ELSE bq_to_string(" + x + ") END"
	case t == "DATE" || t == "TIME":
		enc = quoted("bq_to_string(" + x + ")")
	case t == "DATETIME":
		enc = quoted("replace(bq_to_string(" + x + "), ' ', 'T')")
	case t == "TIMESTAMP":
		enc = quoted("regexp_replace(replace(bq_to_string(" + x + "), ' ', 'T'), '\\+00$', 'Z')")
	case t == "BYTES":
		enc = quoted("to_base64(" + x + ")")
	case t == "INTERVAL":
		enc = quoted("bq_interval_iso(" + x + ")")
	case elementType(t) != "":
		v := "bq_j" + strconv.Itoa(depth+1)
		enc = "'[' || array_to_string(list_transform(" + x + ", " + v + " -> " + jsonEncode(v, elementType(t), depth+1) + "), ',') || ']'"
	default:
		fields, ok := typeFields(t)
		if !ok || len(fields) == 0 || !namedFields(fields) {
			return dynamicJSON(x)
		}
		parts := make([]string, len(fields))
		for k, f := range fields {
			key := strings.ReplaceAll(strconvQuote(f.name), "'", "''")
			sep := ","
			if k == 0 {
				sep = ""
			}
			parts[k] = "'" + sep + key + ":' || " + jsonEncode("struct_extract("+x+", "+duckString(f.name)+")", f.typ, depth)
		}
		enc = "'{' || " + strings.Join(parts, " || ") + " || '}'"
	}
	return "CASE WHEN " + x + " IS NULL THEN 'null' ELSE " + enc + " END"
}

// namedFields reports whether every field has a name and a known type.
func namedFields(fields []column) bool {
	for _, f := range fields {
		if f.name == "" || f.typ == "" {
			return false
		}
	}
	return true
}

// strconvQuote writes s as a JSON string (Go's quoting agrees with JSON's
// for the names SQL allows).
func strconvQuote(s string) string { return strconv.Quote(s) }

// dynamicJSON writes a value of a type the bridge cannot tell. A scalar is
// written by its engine type as it runs (each DuckDB type stands for one
// BigQuery type: DOUBLE for FLOAT64, DECIMAL for NUMERIC and BIGNUMERIC,
// whose encodings agree, TIMESTAMP for DATETIME, TIMESTAMP WITH TIME ZONE
// for TIMESTAMP, HUGEINT for an INT64 sum); strings, booleans, integers,
// dates and their arrays and structs by DuckDB's to_json, which agrees; an
// array or struct holding another type is refused at run time.
func dynamicJSON(x string) string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, d := range dynamicJSONTypes {
		b.WriteString(" WHEN typeof(" + x + ") " + d.test + " THEN " + jsonEncode("TRY_CAST("+x+" AS "+d.duck+")", d.bq, 0))
	}
	b.WriteString(" WHEN regexp_matches(typeof(" + x + "), '(DOUBLE|FLOAT|DECIMAL|TIMESTAMP|TIME|BLOB|INTERVAL|HUGEINT|UNION|MAP|JSON)') THEN " +
		raise(jsonLimit, "VARCHAR") + " ELSE coalesce(to_json(" + x + ")::VARCHAR, 'null') END")
	return b.String()
}

// dynamicJSONTypes are the engine's scalar types whose JSON encoding
// differs from to_json's, and the BigQuery type each stands for.
var dynamicJSONTypes = []struct{ test, duck, bq string }{
	{"IN ('DOUBLE', 'FLOAT')", "DOUBLE", "FLOAT64"},
	{"LIKE 'DECIMAL(%'", "DECIMAL(38, 18)", "NUMERIC"},
	{"= 'HUGEINT'", "HUGEINT", "INT64"},
	{"= 'TIMESTAMP'", "TIMESTAMP", "DATETIME"},
	{"= 'TIMESTAMP WITH TIME ZONE'", "TIMESTAMPTZ", "TIMESTAMP"},
	{"= 'TIME'", "TIME", "TIME"},
	{"= 'BLOB'", "BLOB", "BYTES"},
	{"= 'INTERVAL'", "INTERVAL", "INTERVAL"},
}

const jsonLimit = "TO_JSON_STRING of an array or struct whose type the bridge cannot tell, holding FLOAT64, NUMERIC, a date and time or BYTES, is not supported"

// literalBool is the value of a TRUE or FALSE literal.
func (e *emitter) literalBool(items []*item) (v, ok bool) {
	if len(items) != 1 {
		return false, false
	}
	switch {
	case items[0].is("TRUE"):
		return true, true
	case items[0].is("FALSE"):
		return false, true
	}
	return false, false
}
