// Package llmtest is an in-process fake of an OpenAI-compatible
// chat-completions server, for testing code that calls models through
// package llm (or any other client speaking the wire protocol).
//
// It serves the real endpoints over real HTTP (net/http/httptest):
//
//	POST /v1/chat/completions                                         (Authorization: Bearer KEY)
//	POST /openai/deployments/{deployment}/chat/completions?api-version=V (api-key: KEY)
//
// and validates each request as the real API would (known path, key
// present, JSON body, model present, messages non-empty with known roles,
// temperature and top_p in range, response_format well formed, the word
// "json" in the messages for json_object mode). An invalid request gets the
// API's 4xx error and is recorded in [Server.Problems]; [Start] fails the
// test for each, so a client bug cannot hide behind a lenient fake.
//
// A [Handler] decides each reply. Scripts cover the usual cases: [Fixed],
// [Queue], [Then] (faults first, then a handler) and [ByPrompt] (route on a
// substring of the prompt). A [Reply] can be a success ([Text], [JSON],
// [Length] for finish_reason "length"), an HTTP error ([RateLimited] with
// Retry-After, [RateLimitedMs], [QuotaExceeded], [ServerError],
// [ContextLengthExceeded] with OpenAI's error JSON, [HTTPError]), a hung
// server ([Hang], or any Delay beyond the client's timeout), or a broken body
// ([Fault]: Truncated, CutOff, Malformed, NoChoices, Disconnect).
//
// The batch API is served too: POST /v1/files (multipart, purpose batch;
// each JSONL line checked as an online request), GET /v1/files/{id}/content,
// POST /v1/batches, GET /v1/batches (newest first), GET /v1/batches/{id},
// POST /v1/batches/{id}/cancel, and Azure's /openai/... equivalents. Each
// batch follows a [BatchScript] ([Options].Batches): the statuses successive
// retrieves report (validating, in_progress, finalizing, then completed,
// expired, failed or cancelled), and for expired and cancelled batches how
// many requests ran first. Requests are answered by the same [Handler] when
// the batch ends: successes in the output file, error statuses in the error
// file, unanswered requests there with batch_expired or batch_cancelled.
// [Server.Submitted] counts each custom_id's batches, so tests can check that
// no request was submitted twice; [Server.CompleteBatches] lets a stalled
// provider catch up.
//
// An outage in the middle of a test: [Server.Down] answers every request
// (chat, files, batches) with one reply (a 5xx, [Hang], a broken body)
// without doing anything, [Server.Refuse] closes the listener so that
// connections are refused, and [Server.Up] brings the server back with the
// files and batches it held.
//
// [Options].Latency delays every reply. The server counts requests
// ([Server.Calls]), keeps the decoded valid ones ([Server.Requests]) and
// measures the largest number handled at once ([Server.MaxInFlight]), which is
// how tests check a client's concurrency limit.
//
// No test should depend on the machine's speed: [Server.Timeouts] (for
// llm.Options.WithTimeout) makes an attempt time out when, and only when,
// the server holds its request, and [Sleeper] records waits without
// waiting, so a loaded machine neither cuts a reply short nor stretches a
// test.
package llmtest
