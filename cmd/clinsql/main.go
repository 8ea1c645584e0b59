// Command clinsql judges clinical text-to-SQL models: see the README.
package main

import (
	"os"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cli"
	"github.com/clinsql/clinsql/executor/duckdb"
)

func main() {
	// The duckdb engine runs queries in a worker process: this binary
	// started again, which serves and exits here.
	duckdb.ServeIfWorker()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
