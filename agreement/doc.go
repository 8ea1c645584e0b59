// Package agreement measures how well two raters of rubric leaves agree:
// two judges, a judge and the published decisions, code checks and an LLM.
//
// The unit is a leaf decision of one model's answer to one task. [Compute]
// pairs the decisions both raters made as pass or fail (invalid, skipped
// and missing decisions are counted, not paired) and reports, per slice
// (overall, per rubric tree, leaf kind and deciding source, each over all
// answers and over answers with a result), the raw agreement and Cohen's
// kappa with a percentile bootstrap interval over tasks: a task's leaves
// are resampled together, since they share one answer and are not
// independent. Every disagreement is kept with both verdicts and
// explanations.
//
// A replayed decision paired with the recorded one it replays agrees by
// construction ([Replayed]): it is counted under its source only, never in
// the overall, tree and kind slices; slices also cross kind with source.
// Code decisions of SQL leaves (answers without SQL) are the source
// [SourceNoSQL].
//
// [Score] measures one judge against labels (package labelset's label
// sets): per slice (overall, source, kind, kind x source; all answers,
// with a result, without) the error rate, false pass and false fail
// shares, precision and recall of fail with Wilson intervals, and the
// error rate weighted back to the population the labels were drawn from.
// Arguable labels and undecided leaves are counted, never rated.
//
// The package reads no files: the command (clinsql agree, through package
// agreement/judged) and the judge's agreement test build the [Item]s, so
// it depends on nothing of the judge.
package agreement
