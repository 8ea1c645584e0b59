// Package refinefmt owns the files of our own that generation (package
// refine) writes into a run folder, reader and writer together (as
// benchfmt does for benchmark files, judgefmt for the judge's):
//
//   - execution_summary.json: the reference's fields ([TaskSummary],
//     runfolder.ExecutionSummary), then clinsql's record of the task under
//     "clinsql" ([TaskDetail]: its status, every [Attempt] with its model
//     call ([LLMCall]), usage and [Settings]). [WriteSummary] writes it,
//     [ReadSummary] reads it back from a run folder within
//     runfolder.MaxSummaryBytes, and [ParseDetail] decodes the "clinsql"
//     part that runfolder.Load keeps as read (runfolder.Output.Detail);
//   - clinsql_generate.json ([SettingsFile]): the [Settings] a run's
//     answers depend on ([WriteSettings], [ReadSettings]).
//
// The values those files hold are defined here too: task statuses
// ([StatusOK], ...; [Finished]), requests ([RequestGenerate], ...),
// attempt statuses ([AttemptOK], ...), prompt modes ([PromptMode]), and the
// bounds on what an attempt keeps ([MaxReplyRunes], [KeptAttempts]).
//
// The package links no LLM client and no database engine (the sampling
// and log-probability values it records are package llm/llmfmt's), so
// that what reads run folders, the reports above all, does not link one
// either.
package refinefmt
