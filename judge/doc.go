// Package judge decides the leaves of a ClinSQL task's two rubric trees
// for a model's answer, and scores the answer from those decisions.
//
// # Pipeline
//
// [Pair] matches a run's outputs (the reference inference layout:
// execution_summary.json and result_<id>.csv per task) with their tasks;
// codecheck.LoadAnswer reads one answer: the final SQL, whether it ran, its error,
// and its result table. [Run] then judges every task, appending one
// judgefmt.Record per leaf to an append-only judgefmt.Ledger as soon as the leaf is
// decided. [Score] evaluates the decisions with package rubric, and
// [Scored.WriteFiles] writes detailed_grading.json, the reference's three
// scoring summaries (through package scoring) and judge_summary.json.
//
// Within a task, leaves are decided in three ways, recorded in
// judgefmt.Record.Source:
//
//   - code: codecheck.CheckLeaf decides the results-rubric leaves that code can
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
// decided (it is then "ready"), concurrently within and across tasks
// (errgroup limits; the endpoint's own concurrency, RPM and TPM limits
// bound the calls). Ready leaves go to the backend one per call or several
// per call: see "Grouped judging".
//
// # Code checks
//
// Package codecheck holds the code checks (codecheck.CheckLeaf calls
// codecheck.Check for results leaves and codecheck.CheckSQL for SQL
// leaves): which leaves code decides, and how; see its documentation.
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
// # Grouped judging
//
// [Options.Group] sets the unit whose ready leaves share a backend call:
// [GroupLeaf] (the zero value) judges each leaf alone, [GroupCategory] the
// ready leaves under one top-level category of a tree together,
// [GroupTree] the ready leaves of one tree together (clinsql judge's
// default, [DefaultGroup]). Whenever a call returns, all its leaves are
// recorded first; then leaves that became skippable are skipped, and the
// leaves of each unit that are now ready go out as one call. A group thus
// holds only ready leaves, which leaf-by-leaf judging would judge too (on
// the released runs, exactly the same leaves).
// With [Options.GroupGated] a group also takes the leaves that wait only
// on gates in the same group (a critical sibling, an earlier sequential
// sibling): fewer calls, but when the gate fails their verdicts are paid
// for and cannot count. Scores never depend on the grouping: a leaf gets
// the same kind of decision alone or in a group, and a verdict behind a
// failed gate is not counted (rubric.Evaluate).
//
// TestReplayGrouping measures the options on the 16 released models'
// validation runs (3,040 tasks), replaying their recorded decisions with
// code checks and skipping, one call per group. Tokens are estimated from
// the prompts the LLM judge would send (llm.EstimateTokens) with 75
// completion tokens per verdict; "uncounted" are judged leaves whose
// verdict the score does not use (rubric.Score.Counted), "wasted" the
// tokens they cost (a call of such leaves only, or their share of a
// group's prompt and reply). Its reference-mode figures are the golden
// file testdata/grouping.md, which the README states verbatim
// (TestReadmeGroupingTable); the full table, with strict mode, is written
// to testdata/out/grouping.tsv.
//
// Tree is the default: it meets the target of at most 9 calls per task
// (the reference judge made 23.3) with the fewest wasted tokens, judges
// exactly the leaves leaf-by-leaf judging does, halves the tokens (the
// answer is sent once per call, not once per leaf) and keeps groups small,
// so each requirement keeps the judge's attention and a failed call
// invalidates few leaves. Category grouping hardly groups: the leaves of a
// category mostly gate one another (critical siblings, sequential steps).
// Gated tree grouping makes the fewest calls and even spends fewer tokens
// in all, but pays for verdicts that cannot count (completion tokens, the
// dearer kind) in large groups: worth it for an endpoint limited by
// requests rather than tokens.
//
// [BuildGroupPrompt] gives the shared context once and first (question,
// candidate SQL, execution status and error, bounded result preview, and
// the gold SQL and result when reference-guided), so a task's calls share
// a long prefix that providers cache; then the evaluation target and the
// requirements as an outline of the tree, each enclosing requirement once
// and each leaf to grade with its id. The reply must be one JSON object
// whose members are exactly the group's ids, each {"reasoning",
// "verdict": "pass"|"fail"}, sent as a JSON schema that requires those
// ids and no others. [ParseGroupVerdicts] enforces it in every case: a
// missing leaf, an unknown or duplicated id, a verdict outside pass/fail,
// prose, fenced or truncated JSON are retried by the client and, still
// wrong after the retries, make every leaf of the call invalid; a partial
// reply gives no leaf a verdict. The endpoint's max_tokens is per leaf: a
// group of n leaves may use n times it. With k samples each sample is a
// draw of the same group prompt, each leaf keeps its own vote (which stops
// counting once it has a majority or can get none), and sampling stops
// when every leaf of the group is settled.
//
// The ledger keeps one record per leaf. The records of a group carry its
// id (judgefmt.Record.Group, a hash of the task, tree and leaf ids) and size, and
// are written with one write. The call's calls, cache hits, attempts and
// per-call usage are on the group's first record; its tokens and dollars
// are split evenly among the records, the remainder to the first ones, so
// totals over records are exact and summing one group's records rebuilds
// its call. The cache key is the group prompt (with its schema and sample
// index). A group in flight when the process dies has no record: on resume
// its leaves are judged again, in the group the ready leaves then form
// (its reply comes from the cache if it had arrived). [Replay] simulates
// grouping: decisions are the recorded ones, and each group counts as one
// call in [Summary.BackendCalls].
//
// # Ledger, resume and cost
//
// Each decision is appended to the ledger (package judgefmt) as soon as its
// leaf is decided, so a process killed at any point leaves whole lines.
// Together with the llm cache, which stores each reply before the leaf is
// recorded, a resumed run repeats no finished call and loses no decision;
// a finished run makes no call. A ledger can only be resumed with the
// settings that started it (judgefmt.LedgerHeader). Each record carries its
// tokens and dollars; the summary totals them per task and for the run. A
// budget cap (llm.Meter; [OpenLLM] opens it on the output folder, so the
// cap holds over every run into it) stops the run cleanly between calls:
// nothing is recorded for refused calls and the run can be resumed.
// [BackendSpec] names a job's backend as clinsql judge takes it (recorded
// decisions, a judge config or an endpoint, with the command line's
// settings over the config's); its Open is a [Job.NewBackend], and its
// OpenAudit the judge clinsql audit measures.
//
// With an endpoint in mode batch (package llm) the LLM judge reports a
// concurrency of a whole batch, so every task is judged at once and each
// batch holds every group that is ready; the leaves their verdicts ungate
// go in the next batch. A batch still running when the wait runs out
// (llm.KindBatchPending) stops the run like the budget, its leaves
// undecided; running again collects it without sending anything twice.
//
// # Scores and their denominators
//
// [Score] evaluates each item's two trees in the run's mode and averages
// per split as the reference scorer does. In reference mode, replaying a
// recorded grading ([Replay]) reproduces the published scorer's
// denominators and files too: a task the grading lacks is left out of the
// averages ([Summary.Excluded]; the published scorer silently dropped the
// tasks whose rubric copy it could not load, such as validation
// Vital_Signs_Monitoring/easy_level_queries/012 for the 12 early-graded
// models), and the samples keep the recorded sample_path and order, so
// that with code checks off the three summary files equal the published
// ones byte for byte (TestReplayReferenceDenominators, all 16 released
// models). Strict mode, the default, keeps such a task in the
// denominator, scored from what was decided (graded: false).
package judge
