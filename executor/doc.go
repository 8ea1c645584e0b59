// Package executor runs one SQL query on a database engine and returns a typed
// result or a classified error.
//
// Every engine (the embedded DuckDB engine, BigQuery, SQLite for EHRSQL)
// implements [Executor]. Callers never inspect engine-specific errors: a failed
// query is an [*Error] whose [Class] says whose fault it was (the model's SQL,
// a configured limit, or the infrastructure), which is what the refinement loop
// and the reports need. A row cap truncates a result rather than failing it;
// [Result.TotalRows] keeps the true count when the engine knows it.
//
// Values in [Result.Rows] use a fixed set of Go types so that every engine's
// result is written to CSV, previewed and compared the same way:
//
//	NULL                 nil
//	INT64                int64
//	FLOAT64              float64
//	NUMERIC, BIGNUMERIC  *big.Rat (exact)
//	BOOL                 bool
//	STRING, JSON         string
//	BYTES                []byte
//	DATE                 civil.Date
//	DATETIME             civil.DateTime
//	TIME                 civil.Time
//	TIMESTAMP            time.Time (UTC)
//	INTERVAL             string (engine's canonical text)
//	ARRAY                []any
//	STRUCT               Struct
//
// # CSV
//
// [WriteCSV] writes a result the way the ClinSQL release's result CSVs were
// written (pandas to_csv over the BigQuery Python client's values), but per
// value, so that a value is written the same way whatever column or row it is
// in: a header row of column names, then one line per row, LF line endings,
// RFC 4180 quoting (a field is quoted when it holds a comma, a double quote,
// CR or LF; a one-column row holding the empty string is written "" so it is
// not an empty line). Values:
//
//	NULL       empty field
//	INT64      decimal digits: -42
//	FLOAT64    Python repr (internal/pyfmt): 1.0, 0.1, 1e-05, inf, -inf;
//	           NaN is an empty field, as pandas writes it
//	NUMERIC    plain decimal, no exponent, no trailing fractional zeros (Python
//	           str of the Decimal the client returns): 3, -0.5, 0.000000001;
//	           a *big.Rat without a finite decimal expansion is rounded half
//	           away from zero to 38 fractional digits (BIGNUMERIC's scale)
//	BOOL       True, False
//	STRING     the text itself
//	BYTES      standard base64 with padding (BigQuery's own representation)
//	DATE       2180-07-23
//	DATETIME   2180-07-23 12:35:00, with .ffffff only when the microseconds
//	           are not zero (Python str of datetime); no "T"
//	TIME       12:35:00[.ffffff]
//	TIMESTAMP  in UTC with its offset: 2180-07-23 12:35:00+00:00
//	INTERVAL   the engine's canonical text
//	ARRAY      Python repr of the list: [1, 2.5, None, 'a', Decimal('1.5'),
//	           datetime.date(2180, 7, 23), b'\x00']
//	STRUCT     Python repr of the dict: {'n': 3, 'label': 'x'}
//
// Inside ARRAY and STRUCT every value uses its Python repr (strings quoted,
// NULL as None, NaN as nan, datetimes as datetime.datetime(...)). The gold CSVs
// of the release show arrays in numpy's layout ("[ 5 16 21]"); comparisons of
// array columns must parse both forms rather than compare text.
package executor
