// Package csqlite is a minimal cgo binding to the system SQLite library
// (libsqlite3, the one CPython's sqlite3 module links on Debian), exposing
// what the sqlite executor needs and database/sql drivers hide: the storage
// class and size of each cell, the unparsed tail of a prepared statement,
// sqlite3_interrupt, and the limits (sqlite3_limit,
// sqlite3_hard_heap_limit64).
//
// A Conn is used by one goroutine at a time; Interrupt may be called from
// any goroutine.
package csqlite

/*
#cgo LDFLAGS: -lsqlite3
#include <sqlite3.h>
#include <stdlib.h>

// readOnlyAuth admits what a read-only query needs and denies everything
// else (DML, DDL, PRAGMA, ATTACH, transactions, temp objects).
static int readOnlyAuth(void *p, int action, const char *a, const char *b, const char *c, const char *d) {
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	}
	return SQLITE_DENY;
}

static int csqlite_read_only(sqlite3 *db) {
	return sqlite3_set_authorizer(db, readOnlyAuth, 0);
}

// sqlite3_db_config is variadic, which cgo cannot call.
static int csqlite_dqs(sqlite3 *db, int on) {
	int r1 = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, on, (int*)0);
	if (r1 != SQLITE_OK) return r1;
	return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, on, (int*)0);
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Open flags.
const (
	OpenReadOnly  = C.SQLITE_OPEN_READONLY
	OpenReadWrite = C.SQLITE_OPEN_READWRITE
	OpenCreate    = C.SQLITE_OPEN_CREATE
	OpenURI       = C.SQLITE_OPEN_URI
	OpenNoMutex   = C.SQLITE_OPEN_NOMUTEX
)

// Storage classes.
const (
	Integer = C.SQLITE_INTEGER
	Float   = C.SQLITE_FLOAT
	Text    = C.SQLITE_TEXT
	Blob    = C.SQLITE_BLOB
	Null    = C.SQLITE_NULL
)

// Primary result codes the executor tells apart.
const (
	CodeError     = C.SQLITE_ERROR
	CodeInternal  = C.SQLITE_INTERNAL
	CodePerm      = C.SQLITE_PERM
	CodeBusy      = C.SQLITE_BUSY
	CodeLocked    = C.SQLITE_LOCKED
	CodeNoMem     = C.SQLITE_NOMEM
	CodeReadOnly  = C.SQLITE_READONLY
	CodeInterrupt = C.SQLITE_INTERRUPT
	CodeIOErr     = C.SQLITE_IOERR
	CodeCorrupt   = C.SQLITE_CORRUPT
	CodeFull      = C.SQLITE_FULL
	CodeCantOpen  = C.SQLITE_CANTOPEN
	CodeProtocol  = C.SQLITE_PROTOCOL
	CodeMisuse    = C.SQLITE_MISUSE
	CodeNoLFS     = C.SQLITE_NOLFS
	CodeAuth      = C.SQLITE_AUTH
	CodeNotADB    = C.SQLITE_NOTADB
	CodeTooBig    = C.SQLITE_TOOBIG
)

// Limit categories (sqlite3_limit).
const (
	// LimitLength is the largest string, BLOB or row, in bytes.
	LimitLength = C.SQLITE_LIMIT_LENGTH
	// LimitLikePatternLength is the longest LIKE or GLOB pattern.
	LimitLikePatternLength = C.SQLITE_LIMIT_LIKE_PATTERN_LENGTH
)

// HardHeapLimit sets the most memory SQLite may allocate, for the whole
// process (sqlite3_hard_heap_limit64): an allocation past it fails, and the
// statement with SQLITE_NOMEM. n <= 0 only reads it. It returns the limit
// in force before the call.
func HardHeapLimit(n int64) int64 {
	if n <= 0 {
		n = -1
	}
	return int64(C.sqlite3_hard_heap_limit64(C.sqlite3_int64(n)))
}

// Error is an SQLite error: the primary code, the extended code and
// SQLite's message (sqlite3_errmsg), which is what Python shows.
type Error struct {
	Code     int
	Extended int
	Msg      string
}

func (e *Error) Error() string { return e.Msg }

// Version is the SQLite library version (sqlite3_libversion).
func Version() string { return C.GoString(C.sqlite3_libversion()) }

// Conn is a database connection.
type Conn struct {
	db *C.sqlite3
}

// Open opens filename (a path, or a file: URI with OpenURI) with flags.
func Open(filename string, flags int) (*Conn, error) {
	cname := C.CString(filename)
	defer C.free(unsafe.Pointer(cname))
	var db *C.sqlite3
	rc := C.sqlite3_open_v2(cname, &db, C.int(flags), nil)
	if rc != C.SQLITE_OK {
		var err error = &Error{Code: int(rc) & 0xff, Extended: int(rc), Msg: C.GoString(C.sqlite3_errstr(rc))}
		if db != nil {
			err = errorOf(db, rc)
			C.sqlite3_close_v2(db)
		}
		return nil, err
	}
	C.sqlite3_extended_result_codes(db, 1)
	return &Conn{db: db}, nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	if c.db == nil {
		return nil
	}
	rc := C.sqlite3_close_v2(c.db)
	c.db = nil
	if rc != C.SQLITE_OK {
		return &Error{Code: int(rc) & 0xff, Extended: int(rc), Msg: C.GoString(C.sqlite3_errstr(rc))}
	}
	return nil
}

// Exec runs sql, any number of statements, discarding rows (sqlite3_exec).
func (c *Conn) Exec(sql string) error {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	if rc := C.sqlite3_exec(c.db, csql, nil, nil, nil); rc != C.SQLITE_OK {
		return errorOf(c.db, rc)
	}
	return nil
}

// ReadOnlyAuthorizer installs an authorizer that admits only SELECT, table
// reads, function calls and recursive CTEs.
func (c *Conn) ReadOnlyAuthorizer() error {
	if rc := C.csqlite_read_only(c.db); rc != C.SQLITE_OK {
		return errorOf(c.db, rc)
	}
	return nil
}

// DoubleQuotedStrings turns SQLite's double-quoted string literal
// misfeature on or off for this connection.
func (c *Conn) DoubleQuotedStrings(on bool) error {
	v := C.int(0)
	if on {
		v = 1
	}
	if rc := C.csqlite_dqs(c.db, v); rc != C.SQLITE_OK {
		return errorOf(c.db, rc)
	}
	return nil
}

// SetLimit sets one of the connection's limits (sqlite3_limit) and returns
// its previous value; SQLite lowers a value past its compile-time maximum
// to it.
func (c *Conn) SetLimit(id int, v int) int {
	return int(C.sqlite3_limit(c.db, C.int(id), C.int(v)))
}

// Interrupt stops the statements running on the connection
// (sqlite3_interrupt); safe from any goroutine while c is open.
func (c *Conn) Interrupt() { C.sqlite3_interrupt(c.db) }

// Prepare compiles the first statement of sql and returns it with the rest
// of sql that SQLite did not consume. When sql holds no statement (empty,
// only comments or semicolons) stmt is nil. sql must not contain NUL.
func (c *Conn) Prepare(sql string) (stmt *Stmt, tail string, err error) {
	if len(sql) >= 1<<31-1 {
		return nil, "", &Error{Code: C.SQLITE_TOOBIG, Extended: C.SQLITE_TOOBIG, Msg: "query string is too large"}
	}
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var s *C.sqlite3_stmt
	var ctail *C.char
	rc := C.sqlite3_prepare_v2(c.db, csql, C.int(len(sql)+1), &s, &ctail)
	if rc != C.SQLITE_OK {
		return nil, "", errorOf(c.db, rc)
	}
	if ctail != nil {
		off := int(uintptr(unsafe.Pointer(ctail)) - uintptr(unsafe.Pointer(csql)))
		if off >= 0 && off <= len(sql) {
			tail = sql[off:]
		}
	}
	if s == nil {
		return nil, tail, nil
	}
	return &Stmt{c: c, s: s}, tail, nil
}

// Stmt is a prepared statement.
type Stmt struct {
	c *Conn
	s *C.sqlite3_stmt
}

// Step advances to the next row; it returns false at the end or on error.
func (s *Stmt) Step() (bool, error) {
	switch rc := C.sqlite3_step(s.s); rc {
	case C.SQLITE_ROW:
		return true, nil
	case C.SQLITE_DONE:
		return false, nil
	default:
		return false, errorOf(s.c.db, rc)
	}
}

// Finalize releases the statement.
func (s *Stmt) Finalize() {
	if s.s != nil {
		C.sqlite3_finalize(s.s)
		s.s = nil
	}
}

// ColumnCount is the number of result columns.
func (s *Stmt) ColumnCount() int { return int(C.sqlite3_column_count(s.s)) }

// ColumnName is the name of result column i.
func (s *Stmt) ColumnName(i int) string { return C.GoString(C.sqlite3_column_name(s.s, C.int(i))) }

// ColumnDeclType is the declared type of result column i, "" for an
// expression.
func (s *Stmt) ColumnDeclType(i int) string {
	p := C.sqlite3_column_decltype(s.s, C.int(i))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// ColumnType is the storage class of cell i of the current row.
func (s *Stmt) ColumnType(i int) int { return int(C.sqlite3_column_type(s.s, C.int(i))) }

// Int64 reads cell i as an integer.
func (s *Stmt) Int64(i int) int64 { return int64(C.sqlite3_column_int64(s.s, C.int(i))) }

// Float reads cell i as a real.
func (s *Stmt) Float(i int) float64 { return float64(C.sqlite3_column_double(s.s, C.int(i))) }

// Bytes is the size in bytes of cell i of the current row (TEXT as UTF-8,
// BLOB): what Text or Blob would copy.
func (s *Stmt) Bytes(i int) int { return int(C.sqlite3_column_bytes(s.s, C.int(i))) }

// Text returns the UTF-8 bytes of cell i (a copy), embedded NULs included.
func (s *Stmt) Text(i int) []byte {
	p := C.sqlite3_column_text(s.s, C.int(i))
	n := C.sqlite3_column_bytes(s.s, C.int(i))
	if p == nil || n == 0 {
		return []byte{}
	}
	return C.GoBytes(unsafe.Pointer(p), n)
}

// Blob returns the bytes of cell i (a copy); never nil.
func (s *Stmt) Blob(i int) []byte {
	p := C.sqlite3_column_blob(s.s, C.int(i))
	n := C.sqlite3_column_bytes(s.s, C.int(i))
	if p == nil || n == 0 {
		return []byte{}
	}
	return C.GoBytes(p, n)
}

func errorOf(db *C.sqlite3, rc C.int) error {
	msg := C.GoString(C.sqlite3_errmsg(db))
	ext := int(C.sqlite3_extended_errcode(db))
	if ext&0xff != int(rc)&0xff {
		ext = int(rc)
	}
	return &Error{Code: int(rc) & 0xff, Extended: ext, Msg: msg}
}

// Is reports whether err is an SQLite error with primary code code.
func Is(err error, code int) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
