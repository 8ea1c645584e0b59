package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// The dialect's Go functions (scalar UDFs such as FARM_FINGERPRINT) must
// be registered in the process that holds the database: the engine's
// worker (worker.go), which is this same binary started again. Go code
// cannot travel over the worker's pipe, so a dialect registers its
// functions under a name, in an init function of its package, and
// Options.Functions lists the names: both processes run the same init
// functions before main, so the worker finds them by name.
var functions = struct {
	sync.Mutex
	byName map[string]func(context.Context, *sql.Conn) error
}{byName: map[string]func(context.Context, *sql.Conn) error{}}

// RegisterFunctions makes register known as name to every engine of this
// binary: an engine whose Options.Functions lists name runs it once, on one
// connection of its database, when it opens (functions are registered
// database-wide). Call it from an init function, before any engine opens;
// registering a name twice panics.
func RegisterFunctions(name string, register func(ctx context.Context, conn *sql.Conn) error) {
	functions.Lock()
	defer functions.Unlock()
	if _, dup := functions.byName[name]; dup {
		panic(fmt.Sprintf("duckdb: functions %q registered twice", name))
	}
	functions.byName[name] = register
}

func registered(name string) (func(context.Context, *sql.Conn) error, bool) {
	functions.Lock()
	defer functions.Unlock()
	f, ok := functions.byName[name]
	return f, ok
}
