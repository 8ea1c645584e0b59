// Package reports turns scored ClinSQL runs of any number of models into the
// tables and pictures a paper needs.
//
// Inputs are recorded judge decisions (a detailed_grading.json in the
// reference format, the model name taken from its summary; the files of one
// model for different splits make one model) and run folders (the reference
// inference layout: execution summaries, result CSVs,
// benchmark_summary.json, with clinsql judge's output in judge/: the
// per-split detailed_grading.json that gives the scores, the ledger that
// says who decided each leaf, why and at what cost, and
// judge_summary.json). A run folder whose judge/ holds no decisions lends
// its outputs (final SQL, result preview, refinement attempts) to the
// grading file of the same model.
// [Build] scores every model's decisions in both aggregation modes through
// package scoring (reference, which reproduces the published numbers
// exactly, and strict) and computes:
//
//   - the leaderboard: SQL and execution score per split x difficulty and
//     overall, per scenario and per scenario x difficulty, each cell with its
//     task count, the invalid leaves behind it and a 95% percentile-bootstrap
//     interval that resamples tasks; models ranked by a chosen metric; paired
//     differences between models over the tasks both answered, with their
//     own bootstrap interval; beside them RS(0) and RS(10), the EHRSQL 2024
//     reliability scores (package reliability) over the final SQL
//     (abstention = the marker, "null" by default) and the execution
//     score. Point estimates are the reference's: the
//     unweighted mean over tasks rounded to 6 decimals, shown x100 with two
//     decimals. Every bootstrap draws from a generator seeded from the
//     report's seed and the cell's name, so the intervals depend on the seed
//     alone, not on the order or number of models;
//   - the error taxonomy: every leaf is tagged with one bucket by the first
//     matching row of [Rules] (tree, top-level category, leaf text), and
//     each model gets a failure rate per bucket and its most often failed
//     leaves;
//   - refinement: tasks whose SQL ran after attempt 1, 2, 3 and how many
//     each round rescued, from the execution summaries and checked against
//     benchmark_summary.json;
//   - judge health: invalid, missing and skipped leaves, who decided the
//     others (code, LLM, replay, or the recorded reference judge), tokens
//     and cost where the judge recorded them.
//
// With an [EHRSQL] section (read by ehrsqlbench.Section), the report also
// shows the EHRSQL 2024 results: RS(c) per model x strategy, risk and RS(c)
// against coverage, the calibration sweep and every question's decision;
// the section may stand alone ([NewEHRSQLReport]).
//
// [Report.Write] writes Markdown, CSV (gocsv), JSON (the reference's
// summary shapes per model plus report.json), LaTeX (leaderboard.tex),
// every chart as its own SVG under figures/, and one self-contained HTML
// file. A task page there shows the transcript: each attempt's SQL, reply,
// error fed back, tokens, cost and latency (clinsql's record in
// execution_summary.json, read with refine/refinefmt), and each judge
// call's prompt and replies (the judge's transcript.jsonl, read with
// judge/judgefmt). The package links neither an LLM client nor a database
// engine: it reads those files through their format packages, never
// through refine, judge or llm (TestLinksNoClient). The bulky data is gzip-compressed JSON in
// base64, one part per model, decompressed in the browser when a page
// needs it. In the HTML, everything that came from a model or a judge
// reaches the page through html/template's contextual escaping: the static
// tables and SVG charts are template output, and the drill-down data is a
// JSON value in a script context that the page's script turns into text
// nodes only, never markup.
package reports
