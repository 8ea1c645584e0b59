package duckdb

import (
	"fmt"
	"sync"
)

// The dialect's Go functions must be registered in the process that holds
// the database: the engine's worker (worker.go), which is this same binary
// started again. Go code cannot travel over the worker's pipe, so a
// dialect defines its functions under a name, in an init function of its
// package, and Options.Functions lists the names: both processes run the
// same init functions before main, so the worker finds them by name.
var functionSets = struct {
	sync.Mutex
	byName map[string]func() []Function
}{byName: map[string]func() []Function{}}

// DefineFunctions makes the functions fns lists known as name to every
// engine of this binary: an engine whose Options.Functions lists name
// registers them (RegisterFunctions) when its database opens. Call it
// from an init function, before any engine opens; defining a name twice
// panics.
func DefineFunctions(name string, fns func() []Function) {
	functionSets.Lock()
	defer functionSets.Unlock()
	if _, dup := functionSets.byName[name]; dup {
		panic(fmt.Sprintf("duckdb: functions %q defined twice", name))
	}
	functionSets.byName[name] = fns
}

func definedFunctions(name string) (func() []Function, bool) {
	functionSets.Lock()
	defer functionSets.Unlock()
	f, ok := functionSets.byName[name]
	return f, ok
}
