// Package llmfmt holds the values of a model call that other packages'
// files record: the message roles, the [Sampling] parameters (an
// endpoint's defaults in a models file, a run's settings in
// clinsql_generate.json and execution_summary.json, a cache key) and the
// [Logprobs] summary of a reply (a cache entry, a generation attempt).
// Package llm, the client, uses them as they are; they are defined here so
// that what reads those files (package refine/refinefmt, and through it
// the reports) links no LLM client: llmfmt imports nothing but the
// standard library.
package llmfmt
