// Package refine generates SQL for ClinSQL tasks with self-refinement: it
// asks each model of a models file for a query per task, runs the query on
// an executor, and while it fails asks for a minimal fix, recording every
// attempt. Its outputs are the reference inference layout, so the judge,
// the reports and the reference tools read them like the released runs.
//
// # Models file
//
// A models file ([LoadModels], testdata/models.example.yaml) lists
// [Model]s: an [llm.Endpoint] inline (name, kind, base_url, model,
// api_key_env, sampling, capabilities, limits, retry) plus the prompt mode,
// the number of refinement rounds (default 2), refine_on_empty, history and
// tasks (tasks in flight). API keys are read from the environment by package
// llm and are never part of a model, a prompt, a cache key, a log line or an
// output file. Problems are reported with the file and field
// ("models.yaml: models[1].rounds: 11 is outside [0, 10]").
//
// # Prompts
//
// Each prompt is one user message of our own wording ([Prompter]):
//
//   - cot: role, rules (one read-only BigQuery query, full backticked table
//     names, only the schema's tables), the schema reference, the question,
//     then "Reasoning:" and "SQL:" with one ```sql block;
//   - direct: the same without the reasoning part (the query only);
//   - schema-hinted: cot plus the task's clinically validated filters (the
//     leaves of its SQL rubric's cohort and concept categories) and its
//     expected output columns (the column leaves of its results rubric's
//     output-format category): an oracle setting, reported as such.
//
// The schema reference is generated from the engine's schema
// (executor/mimic.V31) by [SchemaText]: every table of the three datasets
// with its columns, BigQuery types and notes on confusable columns. A fix
// request shows the question, the last query and the engine's message (or
// "no rows", or "no query in the reply"), with history every earlier
// attempt too, and asks for the smallest change.
//
// # Extraction
//
// [Extract] takes the last closed ```sql block, then falls back to other
// fences, an unclosed ```sql block, [sql] tags, a bare query, and finally a
// query starting a line of prose. It never cuts at a word such as "with"
// (the reference cut everything before the first "with", turning "patients
// with sepsis" into the query); comments and CTEs are kept. A reply without
// a query is an attempt with status no_sql, which a later round may fix.
//
// # The loop
//
// [Solver.Solve]: generate, extract, execute; while the attempt failed and
// rounds remain, ask for a fix. With refine_on_empty an empty result also
// asks for a fix (the reference treats it as a success, which remains the
// default). Failures are split by whose fault they are:
//
//   - the model's (executor classes syntax, runtime, timeout, bytes and row
//     limits, refused; no query in the reply): an attempt, and a round used;
//   - the engine's infrastructure (executor.ClassInfra): the query is run
//     again with backoff, in the same attempt; if it keeps failing the task
//     is left pending, not failed;
//   - the engine's dialect (executor.ClassUnsupported): the task finishes
//     with status unsupported and is excluded from the model's attempt-wise
//     rates;
//   - the model endpoint's (rate limits, timeouts, server errors after the
//     client's own retries; auth, quota, budget): the task is left pending.
//     An error that every further call would repeat (auth, quota, budget,
//     bad request) stops the model's remaining tasks. A prompt too long for
//     the model ends the task with the attempts it has.
//
// The answer is the last attempt that returned rows, else the last that ran,
// else the last query written. Success at attempt k means, as in the
// reference, that the first query that ran without error was the k-th.
//
// # Outputs
//
// A model's run folder is Out/<model>/ ([Generate]):
//
//	benchmark_summary.json            attempt-wise success, reference shape (+ "clinsql")
//	clinsql_generate.json             the settings the answers depend on
//	<split>/<Domain>/<difficulty>_level_queries/<id>/
//	    query_<id>.txt                the question
//	    sql_<id>.sql                  the final query (absent when there is none)
//	    result_<id>.csv               the final query's result (executor.WriteCSV)
//	    execution_summary.json        reference fields, then "clinsql": every attempt
//
// execution_summary.json has the reference's fields in its order (query,
// final_sql, execution_success, row_count, final_error, model, model_id,
// refinement_attempts) and our own under "clinsql": status, each attempt's
// request, SQL, extraction method, status, error class and message, rows,
// columns, execution time, infrastructure retries, and its model call's
// tokens, cost, latency, cache hit and finish reason.
//
// The two files of our own, execution_summary.json's "clinsql" part and
// clinsql_generate.json, are owned by package refine/refinefmt, types,
// reader and writer together (refinefmt.TaskSummary, ReadSummary,
// WriteSummary; refinefmt.Settings, ReadSettings, WriteSettings), with
// the status, request and prompt-mode values they hold: their readers
// (reports) then link no LLM client.
//
// No placeholder CSV is written. The reference writes a one-column file
// holding an empty string when a query failed or returned nothing, which a
// judge cannot tell from a real one-row answer (its known defect 6: failed
// executions passed csv-file-exists). Here a query that ran always gets its
// real result, an empty one only its header row (so its columns can still
// be judged), and a query that failed gets no file, which the reference
// scorer and clinsql judge both read as a missing result.
//
// benchmark_summary.json is computed from the finished tasks on disk (so a
// resumed run's summary covers every task) in the reference shape and
// Python json.dump format: totals and attempt-wise counts and rates (keys
// "1" to rounds+1) overall, per split, per domain and per difficulty folder.
// It departs from the reference in one way: tasks whose query the engine
// could not run (status unsupported) are not counted, and are listed under
// "clinsql" with the status counts and the pending tasks.
//
// # Runs
//
// [Generate] runs every model over every task, at most Model.Tasks of a
// model's tasks and Options.Concurrency in all at once, one llm client per
// model sharing the reply cache and the cost meter. Every file is written to
// a temporary name and renamed, execution_summary.json last, so a task is
// finished exactly when its summary exists; a run killed at any point
// resumes where it stopped, replies already received coming from the cache.
// A model whose endpoint is in mode batch (see package llm) has every task
// in flight at once, so that each batch holds every request that is ready:
// every first attempt, then each round's fixes (a fix needs the engine's
// error), each round sent as soon as every task waits on its request
// (llm.Client.Expect); Options.Concurrency then bounds the queries run at once
// (Solver.ExecGate). Its batches are recorded in its run folder ([BatchIn]);
// a batch not finished within the wait leaves its tasks pending.
// A run folder written with other settings (model id, sampling, prompt mode
// or wording, schema, rounds, engine) is refused rather than mixed.
//
// Package refine/refinetest holds a scripted model with a known error
// schedule for end-to-end tests.
package refine
