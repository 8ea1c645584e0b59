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

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/internal/buildinfo"
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// warned holds the task warnings already printed (warnTasks).
	warned map[string]bool
}

type command struct {
	name    string // one or two words: "rescore", "db build"
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// commands lists every command; the dispatcher picks the longest name that
// prefixes the arguments.
var commands = []command{
	{"version", "print the module version and the VCS revision this binary was built from", runVersion},
	{"db build", "build the embedded DuckDB database from MIMIC-IV CSV files", runDBBuild},
	{"db fetch-demo", "download the open MIMIC-IV demo from PhysioNet, checksums verified", runDBFetchDemo},
	{"db synth", "write a synthetic MIMIC-IV of N patients (PhysioNet CSV layout) for tests and benchmarks", runDBSynth},
	{"exec", "run SQL (one query, or every task's gold SQL) on an engine", runExec},
	{"rescore", "recompute scores from recorded judge decisions (detailed_grading.json)", runRescore},
	{"judge", "judge a model's run: code checks, an LLM judge or recorded decisions, gate-aware skipping", runJudge},
	{"audit", "measure a judge on gold answers and mutated gold answers, whose verdicts are known by construction; rubric lint", runAudit},
	{"agree", "agreement of two judges (judge folders, ledgers or recorded gradings): kappa per tree, leaf kind and source, every disagreement", runAgree},
	{"datasets fetch", "download public benchmark data (clinsql)", runDatasetsFetch},
	{"generate", "ask models for SQL per task, run it, refine failures; reference inference layout", runGenerate},
	{"run", "benchmark many models from one config: generate, judge and report, resuming what is done", runRun},
	{"report", "leaderboard, error taxonomy, refinement and judge health of many models, as Markdown, CSV, JSON and HTML", runReport},
	{"ehrsql score", "score EHRSQL 2024 predictions: reliability RS(0), RS(5), RS(10), RS(N)", runEHRSQLScore},
}

// ExitError carries a specific exit code (for example a query's error class
// mapped to a code) together with the message already printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// usageError marks errors in the command line itself (exit code 2).
// The flag grammar's own are cliflag.UsageError.
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
	if len(args) == 0 || isHelp(args[0]) || args[0] == "help" {
		if len(args) == 0 {
			printUsage(env.Stderr)
			return exitUsage
		}
		printUsage(env.Stdout)
		return exitOK
	}
	cmd, rest, ok := lookup(args)
	if !ok {
		return unknownCommand(env, args)
	}
	err := cmd.run(ctx, env, rest)
	var ue usageError
	var fe cliflag.UsageError
	var ee *ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue) || errors.As(err, &fe):
		fmt.Fprintf(env.Stderr, "clinsql %s: %v\n", cmd.name, err)
		return exitUsage
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled):
		// Whatever the command made of the cancellation ("context canceled"
		// deep in a query or a call), the user's word for it is this.
		fmt.Fprintf(env.Stderr, "clinsql %s: interrupted; what finished is kept on disk (run the same command again to resume)\n", cmd.name)
		return exitInterrupted
	case errors.As(err, &ee):
		if ee.Err != nil {
			fmt.Fprintf(env.Stderr, "clinsql %s: %v\n", cmd.name, ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(env.Stderr, "clinsql %s: %v\n", cmd.name, err)
	return exitFailure
}

func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "-help" }

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

// unknownCommand answers a command line that names no command: a group
// (db, ehrsql, datasets) lists its subcommands, anything else gets the
// nearest command's name.
func unknownCommand(env *Env, args []string) int {
	var sub []command
	for _, c := range commands {
		if group, _, ok := strings.Cut(c.name, " "); ok && group == args[0] {
			sub = append(sub, c)
		}
	}
	if len(sub) > 0 && (len(args) == 1 || isHelp(args[1])) {
		w, code := env.Stderr, exitUsage
		if len(args) > 1 {
			w, code = env.Stdout, exitOK
		}
		fmt.Fprintf(w, "usage: clinsql %s <subcommand> [flags]\n\nsubcommands:\n", args[0])
		for _, c := range sub {
			fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
		}
		fmt.Fprintf(w, "\nrun \"clinsql %s <subcommand> -h\" for a subcommand's flags\n", args[0])
		return code
	}
	name := args[0]
	if len(sub) > 0 {
		name = args[0] + " " + args[1]
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	fmt.Fprintf(env.Stderr, "clinsql: unknown command %q", name)
	if s := nearest(name, names); s != "" {
		fmt.Fprintf(env.Stderr, " (did you mean %q?)", s)
	}
	fmt.Fprintln(env.Stderr, "; run \"clinsql help\" for the list of commands")
	return exitUsage
}

func nearest(s string, candidates []string) string { return cliflag.Nearest(s, candidates) }

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
	fmt.Fprintln(w)
	printExitCodes(w)
}

// summaries maps a command's name to its one-line summary, for the default
// usage of commands without a usage text of their own. (Built in init:
// commands refers to the run functions, which use it.)
var summaries = map[string]string{}

func init() {
	for _, c := range commands {
		summaries[c.name] = c.summary
	}
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to env.Stderr. Its default usage is the command's
// summary and flags; parseFlags adds the exit codes to any usage.
func newFlagSet(env *Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("clinsql "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: clinsql %s [flags]\n\n%s.\n\nflags:\n", name, summaries[name])
		printFlags(fs)
	}
	return fs
}

// alias keeps an old flag name working for the flag now called name.
func alias(fs *flag.FlagSet, old, name string) { cliflag.Alias(fs, old, name) }

// printFlags prints the flags of fs, each spelt with two dashes.
func printFlags(fs *flag.FlagSet) { cliflag.PrintDefaults(fs) }

// parseFlags parses args (cliflag.Parse); -h prints the command's usage
// followed by the exit codes.
func parseFlags(fs *flag.FlagSet, args []string) error {
	return cliflag.Parse(fs, args, printExitCodes)
}

// parseInterleaved is parseFlags for a command that takes positional
// arguments among its flags: it returns them, in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	return cliflag.ParseInterleaved(fs, args, printExitCodes)
}

// stringList is a repeatable string flag.
type stringList = cliflag.StringList

func runVersion(_ context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "version")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "clinsql", buildinfo.Current())
	return nil
}
