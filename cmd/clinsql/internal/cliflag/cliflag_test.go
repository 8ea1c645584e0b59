package cliflag

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	names := []string{"judge", "rescore", "report", "db build"}
	for _, tc := range []struct{ in, want string }{
		{"jduge", "judge"}, {"rep", "report"}, {"resocre", "rescore"}, {"xyz", ""}, {"db buld", "db build"},
	} {
		if got := Nearest(tc.in, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func newSet() (*flag.FlagSet, *strings.Builder) {
	var out strings.Builder
	fs := flag.NewFlagSet("clinsql test", flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.String("tasks", "", "task folder")
	fs.Int("limit", 0, "tasks kept")
	Alias(fs, "task-dir", "tasks")
	return fs, &out
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for no error
	}{
		{[]string{"--tasks", "a"}, ""},
		{[]string{"--taks", "a"}, `unknown flag --taks (did you mean --tasks?); run "clinsql test -h" for every flag`},
		{[]string{"--limit", "x"}, `invalid value "x" for flag --limit`},
		{[]string{"extra"}, `unexpected argument "extra"; run "clinsql test -h" for every flag`},
	} {
		fs, _ := newSet()
		err := Parse(fs, tc.args, func(io.Writer) {})
		var ue UsageError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (!errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, tc.want)):
			t.Errorf("%v: error %v, want a usage error %q", tc.args, err, tc.want)
		}
	}
}

func TestHelpPrintsFooter(t *testing.T) {
	fs, out := newSet()
	fs.Usage = func() { io.WriteString(fs.Output(), "usage: clinsql test\n") }
	err := Parse(fs, []string{"-h"}, func(w io.Writer) { io.WriteString(w, "exit codes: ...\n") })
	if !errors.Is(err, flag.ErrHelp) || out.String() != "usage: clinsql test\n\nexit codes: ...\n" {
		t.Errorf("error %v, output %q", err, out)
	}
}

func TestAliasWarnsAndHides(t *testing.T) {
	fs, out := newSet()
	if err := Parse(fs, []string{"--task-dir", "a"}, func(io.Writer) {}); err != nil {
		t.Fatal(err)
	}
	if fs.Lookup("tasks").Value.String() != "a" || !strings.Contains(out.String(), "--task-dir is deprecated; use --tasks") {
		t.Errorf("tasks %q, output %q", fs.Lookup("tasks").Value, out)
	}
	out.Reset()
	PrintDefaults(fs)
	if strings.Contains(out.String(), "task-dir") || !strings.Contains(out.String(), "  --tasks string") {
		t.Errorf("defaults:\n%s", out)
	}
}

func TestParseInterleaved(t *testing.T) {
	fs, _ := newSet()
	pos, err := ParseInterleaved(fs, []string{"A", "--limit", "3", "B", "--tasks", "t"}, func(io.Writer) {})
	if err != nil || len(pos) != 2 || pos[0] != "A" || pos[1] != "B" || fs.Lookup("limit").Value.String() != "3" {
		t.Errorf("positional %q, error %v", pos, err)
	}
}
