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
// The package reads no files: the command (clinsql agree) and the judge's
// agreement test build the [Item]s, so it depends on nothing of the judge.
package agreement
