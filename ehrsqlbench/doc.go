// Package ehrsqlbench benchmarks models on the EHRSQL 2024 reliable
// text-to-SQL task, with the abstention strategies of the shared task's
// best teams side by side, and scores them exactly as the official scorer
// (package reliability).
//
// # Pipeline
//
//  1. [Generate]: each model answers each question of a split with SQLite
//     SQL for mimic_iv.sqlite. The prompt ([Prompter]) holds the database's
//     own DDL ([SchemaText]), optionally the nearest train examples
//     ([Retriever]: TF-IDF over the questions, no external service) and,
//     when a strategy has the model step, an invitation to answer null.
//     refine's loop (refine.Solver with these prompts) runs each answer on
//     SQLite after the official post-processing (reliability.PostProcessSQL)
//     and feeds SQLite's error back for up to the model's rounds. With the
//     consistency step a question gets k answers (samples 1..k-1 at the
//     consistency temperature, each its own cache entry and seed); with the
//     logprob step every call asks for token log-probabilities. Each item's
//     [Record] (samples, attempts, log-probabilities, normalised results) is
//     written when finished: a killed run resumes, replies come from the
//     cache.
//  2. [Calibrate]: strategies with a threshold (logprob: mean token
//     log-probability; consistency: share of samples agreeing on the
//     normalised execution result) get the thresholds that maximise RS(c)
//     (default c = 10) on the calibration split, scored by the official
//     scoring. Only that split's records and labels are read.
//  3. [Evaluate]: the thresholds are applied unchanged to the evaluation
//     split ([Decide]: the steps of a strategy in order, the first to
//     abstain decides, and says why); each model x strategy gets the
//     official prediction.json, decisions.json, and its RS(0), RS(5),
//     RS(10), RS(N) with bootstrap intervals.
//
// [Run] chains the three. [Job] is a run as clinsql generate --benchmark
// ehrsql (or clinsql run with an EHRSQL config, [RunConfig.Job]) asks for
// it: [Job.Open] reads its inputs, [Job.Estimate] plans its calls,
// [Job.Run] runs it under a lock on its folder. The run-folder layout is
// in layout.go alone.
//
// # Strategies
//
// A strategy is a "+"-joined list of steps: model (the model's own null),
// logprob, consistency, ensemble (a quorum of named models of the run give
// the same result), executable (abstain when the answer fails or returns no
// rows). A reply that is null or holds no query is always a null
// prediction: there is nothing else to submit.
package ehrsqlbench
