// Package judge decides the leaves of a ClinSQL task's two rubric trees
// for a model's answer, and scores the answer from those decisions.
//
// # Pipeline
//
// [Pair] matches a run's outputs (the reference inference layout:
// execution_summary.json and result_<id>.csv per task) with their tasks;
// [LoadAnswer] reads one answer: the final SQL, whether it ran, its error,
// and its result [Table]. [Run] then judges every task, appending one
// [Record] per leaf to an append-only [Ledger] as soon as the leaf is
// decided. [Score] evaluates the decisions with package rubric, and
// [Scored.WriteFiles] writes detailed_grading.json, the reference's three
// scoring summaries (through package scoring) and judge_summary.json.
//
// Within a task, leaves are decided in three ways, recorded in
// [Record.Source]:
//
//   - code: [CheckLeaf] decides the results-rubric leaves that code can
//     decide with confidence, and explains each decision with its evidence
//     (the column, the values, the band). See "Code checks" below.
//   - a [Backend]: an [LLMJudge] over any OpenAI-compatible or Azure
//     endpoint (package llm), or [Replay], which serves recorded decisions
//     (a reference detailed_grading.json) so published runs can be
//     re-scored and compared offline.
//   - skip: a leaf whose verdict can no longer change the score (after a
//     failed sequential sibling, beside a failed critical sibling where the
//     mode honours it, under a critical ancestor that cannot pass; see
//     rubric.Skippable) is recorded as skipped, with the gate that blocks
//     it. Scores are identical to judging every leaf.
//
// Code checks run first for every leaf (they are free and their verdicts
// feed the skipping); the remaining leaves go to the backend in a plan
// order that puts gates first (critical children before their siblings,
// sequential children in order), each as soon as the gates before it are
// decided, concurrently within and across tasks (errgroup limits; the
// endpoint's own concurrency, RPM and TPM limits bound the calls).
//
// # Code checks
//
// [KindOf] classifies a results leaf: csv_exists, column_exists, no_null
// (under the output-format category), band (a value leaf stating an
// interval), or other. [Check] then decides:
//
//   - Without a result every results leaf fails, with the reason (the
//     query failed and its error, no SQL, no rows, an unreadable file).
//     "CSV File Exists" means exactly this: the query ran and returned at
//     least one row. The reference writes the same placeholder CSV (one
//     column "result", one empty value) for a failed query and for an
//     empty result, so the placeholder is no result; an engine that writes
//     an empty result with its header is judged the same way. (The recorded
//     judge passed the placeholder of a failed or empty run in 624 of 1,066
//     cases.)
//   - csv_exists passes with the row and column counts.
//   - column_exists passes when a column has a name the leaf gives (quoted,
//     back-quoted or in an "e.g." list), up to case, separators, synonyms
//     (avg/mean, pct/percent/rate, sd/stddev, median/p50, "length of
//     stay"/los, ...) and word order kept; it fails when no column, and no
//     row label of a long-format result, shares any word with the required
//     quantity. Names that are related but differ (other words, another
//     order, a grouping column) are a judgement: they go to the backend.
//   - no_null passes when no cell is NULL (empty, NULL, NaN, None); fails
//     when a column the leaf names, or any column of an unscoped leaf, has
//     one; leaves with an "expected"/"acceptable" exception, or NULLs only
//     outside the named columns, go to the backend.
//   - band reads the interval from the leaf ([ParseBands]: "(2-5)", "(0.01
//     to 0.40)", "between 5 and 90", "(>0.01 and <0.1)", units, percent,
//     per-group bands "Home: 60-95%"), binds it to a numeric column through
//     the names and words of the leaf and its parent(s) (nearest first,
//     exact names first, then the best token overlap by a clear margin; the
//     only numeric column of a small result), selects the rows of a group
//     the rubric names, and passes when every value lies in the band, fails
//     when none does or the value is NULL. Mixed values over unselected
//     rows, a unit or percent/fraction scale mismatch, columns that tie
//     with different verdicts, and unbound values go to the backend.
//
// SQL-rubric leaves are decided by code only when there is no SQL (they
// fail); everything else goes to the backend.
//
// # LLM judge
//
// [BuildPrompt] gives the leaf's requirement with its enclosing
// requirements, the evaluation target, the question, the candidate SQL,
// the execution status and error, and a bounded preview of the result
// (first rows, row and column counts, numbers to 6 significant digits);
// [Options.ReferenceGuided] adds the gold SQL and gold result, and every
// output says so. The reply must be one JSON object {"reasoning",
// "verdict": "pass"|"fail"} (sent as a JSON schema where the endpoint
// supports it) and is parsed strictly by [ParseVerdict]: prose such as
// "Score: 1", fenced JSON, unknown verdicts and truncated replies are
// retried by the client and then recorded as invalid, never as a pass or
// a fail; so is every infrastructure error after its retries. With k
// samples ([LLMOptions.Samples], odd) the majority decides, sampling stops
// as soon as a verdict has a majority (or none can), and the summary
// reports the flip rate.
//
// # Ledger, resume and cost
//
// The ledger (ledger.jsonl, see [Record]) is the judge's durable output.
// Each record is written with one write as soon as its leaf is decided, so
// a process killed at any point leaves whole lines (a torn last line is
// dropped when the ledger is reopened). Together with the llm cache, which
// stores each reply before the leaf is recorded, a resumed run repeats no
// finished call and loses no decision; a finished run makes no call. A
// ledger can only be resumed with the settings that started it
// ([LedgerHeader]). Each record carries its tokens and dollars; the
// summary totals them per task and for the run. A budget cap (llm.Meter)
// stops the run cleanly between calls: nothing is recorded for refused
// calls and the run can be resumed.
package judge
