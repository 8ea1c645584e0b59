package cli

import (
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
