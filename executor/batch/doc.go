// Package batch runs many queries on one executor and records each outcome:
// the result CSV of every success (written as it finishes, through
// executor.WriteCSV) and summary.json with the totals, every failure as
// {task, class, error}, per-query outcomes and latency. Failures are data: a
// failed or interrupted item never stops the others, a stale CSV of a failed
// item is removed, and the summary is written even when the run is
// interrupted, marked as such.
package batch
