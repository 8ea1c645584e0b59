package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/cmd/clinsql/internal/cliflag"
	"github.com/clinsql/clinsql/executor/batch"
	"github.com/creack/pty"
)

// TestCommandLineGrammar covers what every command shares: group commands
// list their subcommands, typos get a suggestion in one line, -h prints the
// full usage with the exit codes, and old flag names keep working with a
// warning.
func TestCommandLineGrammar(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"db lists its subcommands", []string{"db"}, 2, nil, []string{"db build ", "db fetch-demo ", "db synth "}},
		{"ehrsql lists its subcommands", []string{"ehrsql"}, 2, nil, []string{"ehrsql score "}},
		{"datasets lists its subcommands", []string{"datasets"}, 2, nil, []string{"datasets fetch "}},
		{"group -h", []string{"db", "-h"}, 0, []string{"db build ", "db fetch-demo ", "db synth "}, nil},
		{"mistyped command", []string{"exce"}, 2, nil, []string{`unknown command "exce" (did you mean "exec"?)`}},
		{"mistyped subcommand", []string{"db", "bulid"}, 2, nil, []string{`unknown command "db bulid" (did you mean "db build"?)`}},
		{"mistyped flag", []string{"exec", "--dbb", "x"}, 2, nil, []string{`unknown flag --dbb (did you mean --db?); run "clinsql exec -h"`}},
		{"mistyped flag, judge", []string{"judge", "--concurency", "2"}, 2, nil, []string{"did you mean --concurrency?"}},
		{"bad value", []string{"exec", "--timeout", "soon"}, 2, nil, []string{`invalid value "soon" for flag --timeout`}},
		{"datasets fetch -h", []string{"datasets", "fetch", "-h"}, 0, nil, []string{"usage: clinsql datasets fetch clinsql", "exit codes:"}},
		{"ehrsql score -h", []string{"ehrsql", "score", "-h"}, 0, nil, []string{"usage: clinsql ehrsql score", "EHRSQL", "--concurrency", "exit codes:", "130  interrupted"}},
		{"old flag name", []string{"ehrsql", "score", "--workers", "2", "--data-dir", "x"}, 2, nil, []string{"--workers is deprecated; use --concurrency", "--split is required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tc.code == 2 && strings.Count(stderr, "\n") > 12 {
				t.Errorf("a usage error prints %d lines; want a short message:\n%s", strings.Count(stderr, "\n"), stderr)
			}
		})
	}
}

// TestHelpEveryCommand: every command's -h prints its full usage (its own
// name, its flags and the exit-code table), not Go's bare flag listing.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands {
		args := append(strings.Fields(c.name), "-h")
		if c.name == "datasets fetch" {
			args = []string{"datasets", "fetch", "clinsql", "-h"}
		}
		code, _, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Errorf("%s -h: exit %d", c.name, code)
		}
		if !strings.HasPrefix(stderr, "usage: clinsql "+c.name) {
			t.Errorf("%s -h does not start with its usage line:\n%s", c.name, batch.FirstLine(stderr))
		}
		for _, w := range []string{"exit codes:", "  2  usage error", "  3  incomplete"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s -h lacks %q", c.name, w)
			}
		}
		if strings.Contains(stderr, "Usage of ") || strings.Contains(stderr, cliflag.DeprecatedPrefix) {
			t.Errorf("%s -h prints Go's bare usage or deprecated aliases:\n%s", c.name, stderr)
		}
	}
}

// TestInterrupted: a command cut short by Ctrl-C says "interrupted" (not
// "context canceled") and exits 130.
func TestInterrupted(t *testing.T) {
	db := buildMini(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	code := run(ctx, env, []string{"exec", "--db", db, "--zero-division", "error", "--sql", "SELECT 1"})
	if code != exitInterrupted || !strings.Contains(stderr.String(), "clinsql exec: interrupted") || strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("exit %d, stderr %q; want %d and \"interrupted\"", code, stderr.String(), exitInterrupted)
	}
}

// runInPty runs the command line with its standard error on a
// pseudo-terminal and returns what the terminal received.
func runInPty(t *testing.T, args ...string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptmx) // until the terminal side is closed
		got <- string(b)
	}()
	env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: tty, Getenv: func(k string) string {
		if k == "GEN_TEST_KEY" { // the fake model endpoints' key (generate, run)
			return genKey
		}
		return ""
	}}
	if code := run(context.Background(), env, args); code != 0 {
		t.Errorf("%v: exit %d", args, code)
	}
	tty.Close()
	return <-got
}
