// Package refine generates SQL with self-refinement: it asks models for a
// query per task, runs it, and asks for minimal fixes while it fails.
package refine
