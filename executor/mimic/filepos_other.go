//go:build !linux

package mimic

// filePosition is unknown off Linux: progress then shows elapsed time only.
func filePosition(abs string) (int64, bool) { return 0, false }
