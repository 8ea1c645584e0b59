// Package sqlite is the SQLite engine behind the executor contract, built for
// the EHRSQL 2024 database (mimic_iv.sqlite), whose official scorer runs each
// query through Python's sqlite3 module.
//
// Contract:
//
//   - The file is opened read-only, and with immutable=1 (no locking, no
//     change detection) when no write permission bit is set on it, or when
//     Options.Immutable says so. A missing or non-database file fails Open.
//   - Exactly one statement runs, as Python's Cursor.execute accepts it:
//     SQLite compiles the first statement and the rest must be whitespace
//     (space, \t, \n, \f, \r) or comments, else the query is refused with
//     Python's message "You can only execute one statement at a time.".
//     Empty SQL or SQL that is only comments returns no columns and no rows,
//     as Python returns []. A NUL character is refused, as Python refuses it.
//   - Only reading is allowed: an authorizer admits SELECT, table reads,
//     function calls and recursive CTEs and denies everything else (DML, DDL,
//     PRAGMA, ATTACH, transactions) as executor.ClassRefused. Python would run
//     such statements; refusing them keeps pooled connections unchanged and
//     the database intact, and is a documented deviation.
//   - Each query has a timeout (Options.Limits.Timeout, default 30 s) that
//     interrupts SQLite itself (sqlite3_interrupt through the connection's
//     progress handler), not just the caller; the caller's context
//     cancellation does the same.
//   - At most Limits.MaxRows rows (default 100,000) are kept; the rest are
//     stepped through and counted in Result.TotalRows.
//   - Values follow the storage class of each cell, whatever the declared
//     column type, exactly as Python's sqlite3 module returns them: INTEGER
//     int64, REAL float64, TEXT string (decoded as UTF-8 with undecodable
//     bytes dropped, Python's errors="ignore"), BLOB []byte, NULL nil. TEXT in
//     TIMESTAMP-declared columns stays a string (drivers built on
//     database/sql, such as mattn/go-sqlite3, turn it into time.Time).
//   - Column types are reported in BigQuery's vocabulary from what the
//     column holds: INT64, FLOAT64 (also for a mix of integers and reals),
//     STRING, BYTES. A column with no non-NULL value, or with mixed storage
//     classes, is typed from its declared type by SQLite's affinity rules
//     (INT64, STRING, BYTES, FLOAT64; date and time declarations are STRING,
//     as SQLite stores them as text; no declared type is STRING).
//   - Double-quoted string literals are enabled (SQLite's default, and
//     Python's), so `WHERE x = "abc"` compares with a string as it does in
//     the official scorer.
//
// The engine is github.com/ncruces/go-sqlite3, SQLite compiled to WebAssembly
// and run by wazero: it exposes storage classes, the statement tail and
// interruption by context, needs no cgo, and is about twice as slow as
// native SQLite. Its SQLite is newer than the 3.40 that CPython ships here;
// both have the math and soundex functions and LIKE_DOESNT_MATCH_BLOBS.
//
// A DB is safe for concurrent use: it keeps a pool of connections, one per
// query in flight.
package sqlite
