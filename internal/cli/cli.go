package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

type command struct {
	name    string // one or two words: "rescore", "db build"
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// commands lists every command; the dispatcher picks the longest name that
// prefixes the arguments.
var commands = []command{
	{"version", "print the version", runVersion},
	{"db build", "build the embedded DuckDB database from MIMIC-IV CSV files", runDBBuild},
	{"db fetch-demo", "download the open MIMIC-IV demo from PhysioNet, checksums verified", runDBFetchDemo},
	{"exec", "run SQL (one query, or every task's gold SQL) on an engine", runExec},
	{"rescore", "recompute scores from recorded judge decisions (detailed_grading.json)", runRescore},
	{"judge", "judge a model's run: code checks, an LLM judge or recorded decisions, gate-aware skipping", runJudge},
	{"agree", "agreement of two judges (judge folders, ledgers or recorded gradings): kappa per tree, leaf kind and source, every disagreement", runAgree},
	{"datasets fetch", "download public benchmark data (clinsql)", runDatasetsFetch},
	{"generate", "ask models for SQL per task, run it, refine failures; reference inference layout", runGenerate},
	{"run", "benchmark many models from one config: generate, judge and report, resuming what is done", runRun},
	{"report", "leaderboard, error taxonomy, refinement and judge health of many models, as Markdown, CSV, JSON and HTML", runReport},
	{"ehrsql score", "score EHRSQL 2024 predictions: reliability RS(0), RS(5), RS(10), RS(N)", runEHRSQLScore},
}

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "dev"

// ExitError carries a specific exit code (for example a query's error class
// mapped to a code) together with the message already printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// usageError marks errors in the command line itself (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// Main runs the clinsql command line as a process and returns its exit code.
// An interrupt or SIGTERM cancels the context the command runs with, so work
// in flight stops cleanly and what is finished stays on disk.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
	return run(ctx, env, args)
}

func run(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(env.Stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, rest, ok := lookup(args)
	if !ok {
		fmt.Fprintf(env.Stderr, "clinsql: unknown command %q\n\n", strings.Join(args[:min(2, len(args))], " "))
		printUsage(env.Stderr)
		return 2
	}
	err := cmd.run(ctx, env, rest)
	var ue usageError
	var ee *ExitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "clinsql %s: %v\n", cmd.name, err)
		return 2
	case errors.As(err, &ee):
		if ee.Err != nil {
			fmt.Fprintf(env.Stderr, "clinsql %s: %v\n", cmd.name, ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(env.Stderr, "clinsql %s: %v\n", cmd.name, err)
	return 1
}

func lookup(args []string) (command, []string, bool) {
	if len(args) >= 2 {
		two := args[0] + " " + args[1]
		for _, c := range commands {
			if c.name == two {
				return c, args[2:], true
			}
		}
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c, args[1:], true
		}
	}
	return command{}, nil, false
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: clinsql <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	cs := append([]command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `run "clinsql <command> -h" for a command's flags`)
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to env.Stderr.
func newFlagSet(env *Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("clinsql "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

// parseFlags parses args and rejects positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runVersion(_ context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "version")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "clinsql", Version)
	return nil
}
