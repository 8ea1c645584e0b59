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
`
