// Command clinsql judges clinical text-to-SQL models: see the README.
package main

import (
	"os"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
