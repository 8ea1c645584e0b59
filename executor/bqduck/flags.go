package bqduck

import (
	"flag"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/duckdb"
)

// Flags are the engine's command-line flags (AddFlags).
type Flags struct {
	DB, Memory   string
	Threads      int
	ZeroDivision string
}

// AddFlags registers --db, --memory, --threads and --zero-division on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.DB, "db", "", "database file (duckdb engine: built by clinsql db build)")
	fs.StringVar(&f.Memory, "memory", duckdb.DefaultMemoryLimit, "engine memory limit")
	fs.IntVar(&f.Threads, "threads", duckdb.DefaultThreads, "engine threads per query (1, the default, gives identical results run to run)")
	fs.StringVar(&f.ZeroDivision, "zero-division", string(ZeroDivisionAuto), ZeroDivisionHelp)
	return f
}

// Options are the options the flags give, with the caller's limits and
// connections; a bad --zero-division is a *UsageError.
func (f *Flags) Options(limits executor.Limits, conns int) (Options, error) {
	z, err := ParseZeroDivision(f.ZeroDivision)
	return Options{DB: f.DB, Limits: limits, Memory: f.Memory, Threads: f.Threads, Conns: conns, ZeroDivision: z}, err
}
