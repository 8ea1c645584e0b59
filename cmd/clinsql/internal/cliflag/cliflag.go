package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agnivade/levenshtein"
)

// UsageError is an error in the command line itself.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef formats a UsageError.
func Usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }

// Nearest returns the candidate closest to s in edit distance, or "" when
// none is close enough to be a likely typo.
func Nearest(s string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := levenshtein.ComputeDistance(s, c)
		if strings.HasPrefix(c, s) && len(s) >= 2 {
			d = min(d, 1) // an abbreviation is as good as one typo
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len(s)/3) {
		return ""
	}
	return best
}

// DeprecatedPrefix starts the usage of an old flag name kept working
// (Alias); PrintDefaults leaves such flags out.
const DeprecatedPrefix = "deprecated alias of --"

// Alias keeps an old flag name working for the flag now called name; using
// it prints a warning naming the new one.
func Alias(fs *flag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	fs.Var(f.Value, old, DeprecatedPrefix+name)
}

// PrintDefaults prints the flags of fs, without the deprecated aliases,
// each spelt with two dashes as in the README.
func PrintDefaults(fs *flag.FlagSet) {
	var b strings.Builder
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(&b)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Usage, DeprecatedPrefix) {
			shown.Var(f.Value, f.Name, f.Usage)
		}
	})
	shown.PrintDefaults()
	io.WriteString(fs.Output(), strings.ReplaceAll("\n"+b.String(), "\n  -", "\n  --")[1:])
}

// Parse parses args and rejects positional arguments. A mistyped flag
// gets one line naming the nearest flag rather than the whole usage, and -h
// prints the usage followed by footer (flag.ErrHelp).
func Parse(fs *flag.FlagSet, args []string, footer func(io.Writer)) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		usage()
		fmt.Fprintln(out)
		footer(out)
		return err
	}
	if err != nil {
		return UsageError{flagError(fs, err)}
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q; run \"%s -h\" for every flag", fs.Arg(0), fs.Name())
	}
	fs.Visit(func(f *flag.Flag) {
		if name, ok := strings.CutPrefix(f.Usage, DeprecatedPrefix); ok {
			fmt.Fprintf(out, "%s: warning: --%s is deprecated; use --%s\n", fs.Name(), f.Name, name)
		}
	})
	return nil
}

// ParseInterleaved is Parse for a command that takes positional arguments
// among its flags: it returns them, in order.
func ParseInterleaved(fs *flag.FlagSet, args []string, footer func(io.Writer)) ([]string, error) {
	var pos []string
	for {
		rest := []string{}
		err := Parse(fs, args, footer)
		var ue UsageError
		if errors.As(err, &ue) && fs.NArg() > 0 && strings.HasPrefix(ue.Msg, "unexpected argument") {
			pos = append(pos, fs.Arg(0))
			rest = fs.Args()[1:]
		} else if err != nil {
			return nil, err
		} else {
			return pos, nil
		}
		args = rest
	}
}

// flagError rewrites the flag package's message in the command's terms.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	hint := fmt.Sprintf("; run \"%s -h\" for every flag", fs.Name())
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = "unknown flag --" + name
		if s := Nearest(name, names); s != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", s)
		}
		return msg + hint
	}
	return strings.ReplaceAll(msg, "flag -", "flag --") + hint
}

// StringList is a repeatable string flag.
type StringList []string

func (s *StringList) String() string     { return strings.Join(*s, ",") }
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }
