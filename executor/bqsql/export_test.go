package bqsql

// PublicVocabulary reports whether an upper-case word is BigQuery's: a
// reserved keyword or a function name (the real-query golden keeps such
// words in error families, blanking the query's own names).
func PublicVocabulary(up string) bool {
	_, sig := signatures[up]
	return bqReserved[up] || bqFunctions[up] || sig
}

// ModelParses reports whether the statement model reads sql (see
// buildModel).
func ModelParses(sql string) bool { return buildModel(sql, nil) != nil }
