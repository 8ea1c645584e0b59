package cli

import (
	"strings"

	"github.com/clinsql/clinsql/internal/progress"
)

// newBar starts the progress line of a long step on env.Stderr: redrawn in
// place on a terminal, one summary line at Finish otherwise. It returns nil
// (no progress; every Bar method accepts it) when quiet.
func newBar(env *Env, label string, total int, quiet bool) *progress.Bar {
	if quiet {
		return nil
	}
	b := progress.New(env.Stderr, label, total, progress.IsTerminal(env.Stderr))
	b.Start()
	return b
}

// newByteBar starts the progress line of a download on env.Stderr, its
// size unknown until the response gives it (progress.Bar.Restart).
func newByteBar(env *Env, label string) *progress.Bar {
	b := progress.NewBytes(env.Stderr, label, -1, progress.IsTerminal(env.Stderr))
	b.Start()
	return b
}

// barLog is an io.Writer of log lines that prints them above the progress
// line (plainly when there is none).
type barLog struct{ bar *progress.Bar }

func (l barLog) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.bar.Log("%s", line)
	}
	return len(p), nil
}
