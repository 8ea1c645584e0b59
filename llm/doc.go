// Package llm is the one client through which clinsql talks to language
// models: the judge (package judge) and generation with self-refinement
// (package refine) both use it. It sends chat completions to any
// OpenAI-compatible server or to Azure OpenAI, and adds what an evaluation
// harness needs around each call: typed retries, per-endpoint limits, a
// content-addressed cache and cost accounting with a budget cap.
//
// # Use
//
//	eps, err := llm.LoadEndpoints("endpoints.yaml")      // or build an llm.Endpoint in Go
//	cache, err := llm.OpenCache("out/llm-cache")
//	prices, err := llm.LoadPrices("prices.yaml")
//	meter, err := llm.OpenMeter("out", prices, 20)        // a $20 cap on out/, over every run
//	defer meter.Close()
//	c, err := llm.New(eps[0], llm.Options{Cache: cache, Meter: meter, Logger: log})
//	resp, err := c.Complete(ctx, llm.Request{
//		Messages: []llm.Message{{Role: llmfmt.RoleUser, Content: prompt}},
//		Schema:   &llm.Schema{Name: "verdict", Schema: schemaJSON, Strict: true},
//		Sampling: llmfmt.Sampling{Temperature: new(0.0)},
//		Sample:   k,         // k-th draw of the same prompt
//		Tag:      leafID,    // for logs and errors only
//		Validate: parseStrict, // reply check: failure = retry, then KindMalformed
//	})
//	if err != nil {
//		kind := llm.KindOf(err) // record as data: an "invalid" verdict, never pass/fail
//	}
//
// # Endpoints
//
// An [Endpoint] (YAML, see testdata/endpoints.example.yaml) names the model,
// the API kind ([KindOpenAI]: any base URL; [KindAzure]: deployment and
// api-version), the environment variable holding the key, default
// sampling ([llmfmt.Sampling]), the model's [Capabilities] and the [Limits]
// and [Retry] policy.
// Capabilities are explicit configuration, never guessed from the model
// name: whether JSON-schema or JSON-object output is supported, whether
// temperature and top_p may be sent, and whether max_completion_tokens
// replaces max_tokens. Validation errors are [*ConfigError]s naming the file
// and field. A caller with its own YAML (a models file, a judge config)
// embeds Endpoint with `yaml:",inline"` and reports problems through
// [InFile](ep.Validate(), file, "models[3]").
//
// The API key is read from the environment once, in [New]. It is never part
// of an Endpoint, a cache key, a cache entry, a log record or an error
// message (error text from the server is redacted).
//
// # Requests
//
// Temperature 0 is sent as 0: go-openai v1.43.0 omits zero floats
// (omitempty), so the client writes temperature, top_p and the token cap
// into the request body itself (see build in client.go and the doer in
// transport.go). A seed, when set, is sent as seed+Sample.
// A [Schema] is sent as response_format json_schema, or json_object, or not
// at all, following the capabilities; the reply must then be a JSON object.
// Request.Logprobs sends logprobs: true and needs capabilities.logprobs (a
// request without it fails before any call); the reply's
// choices[0].logprobs.content[].logprob are summarised in
// Response.Logprobs (tokens, sum, minimum), cached with the reply, and a
// reply without them is malformed. The flag is part of the cache key only
// when set, so other keys are unchanged.
//
// # Errors and retries
//
// Every error from [Client.Complete] is an [*Error] with an [ErrorKind]:
//
//	kind             retried  cause
//	rate_limited     yes      HTTP 429 (honours Retry-After, retry-after-ms)
//	server           yes      HTTP 5xx, 409
//	timeout          yes      attempt exceeded limits.timeout, HTTP 408
//	network          yes      connection refused or dropped
//	malformed_reply  yes      body truncated or not JSON, no choices, reply
//	                          not a JSON object when a schema was asked,
//	                          Request.Validate failed
//	quota            no       HTTP 429 insufficient_quota
//	auth             no       HTTP 401, 403, key variable unset
//	budget_exceeded  no       the meter's cap is reached, or it stopped after
//	                          usage above a reservation or a failed write
//	                          of its spending file (nothing was sent)
//	canceled         no       the caller's context ended
//	context_length   no       prompt too long (400 context_length_exceeded, 413)
//	bad_request      no       other 4xx, invalid Request
//
// [ErrorKind.RequestFault] tells the last two (the request itself is at
// fault) from the rest (infrastructure or a bad reply). Retries use
// exponential backoff with full jitter, never shorter than the server's
// Retry-After, and stop at retry.max_attempts or when the next wait would
// pass retry.budget.
//
// # Limits
//
// Concurrency, requests per minute and tokens per minute are enforced per
// endpoint and shared by every [Client] of that endpoint in the process.
// Tokens are taken from the estimate ([EstimateTokens] plus max_tokens)
// before the call and settled with the reported usage after it.
//
// # Cache
//
// A [Cache] stores successful replies under the SHA-256 of a canonical
// encoding of the endpoint kind, the base URL's host and path (no
// credentials), the model and deployment, the sampling parameters actually
// sent, the messages, the response format and the sample index. Concurrency,
// timeouts, retries, limits, the endpoint's name and the key are not in it.
// Errors are never cached. Writes are atomic (temporary file, fsync,
// rename), so a process killed at any point leaves whole entries only;
// damaged entries are ignored and rewritten. Entries are read with package
// internal/safefile: a symbolic link, a FIFO or an entry over its size
// bound is a miss, at once. Re-running identical requests makes no HTTP
// call. A reply read from the cache costs nothing now; its
// [Response].ReplyCostUSD says what it cost when it was bought (online, or
// at the batch price), so a caller can report the cost of the replies it
// used whichever run paid for them.
//
// # Cost
//
// A [Meter] totals calls, tokens and dollars per endpoint from a [Prices]
// table (YAML, dollars per million prompt and completion tokens, see
// testdata/prices.example.yaml). [Prices.Estimate] prices a planned run. With
// a budget cap, each HTTP attempt first reserves its worst-case cost (the
// prompt estimate plus the token cap sent); an attempt that does not fit
// fails with [KindBudget] before anything is sent, and so does every call
// after it (cache hits are still served), so a capped run stops cleanly
// between calls. Usage reported above the reservation stops a capped meter
// too, and scales later reservations. Under a cap a model's calls run
// concurrently only as far as earlier ones settled within their
// reservation, so a provider over-reporting usage is caught on its first
// call (see [Meter]). A budget stop's message states the folder's
// spending when it is read.
//
// [OpenMeter] keeps the spending of a folder in its [SpendingFile], an
// append-only JSONL of reservations (fsynced before the request is sent)
// and settlements, locked against a second process. A meter opened on it
// starts from the folder's total, so the cap holds over every run into the
// folder, and a process killed mid-call leaves its reservations counted in
// full: the record never says less than the provider may have billed. The
// file is opened with internal/safefile (no links, regular files only);
// past 1 MiB it is compacted (its settled lines replaced by one summary
// line) when a meter opens or closes it; a last line cut short is dropped
// and reported ([FolderSpending].Recovered).
//
// # Batch mode
//
// An endpoint with mode: batch sends its requests through the provider's
// Batch API (OpenAI: /v1/files with purpose batch, /v1/batches; Azure
// OpenAI: /openai/files and /openai/batches with the api-version, each line's
// url /chat/completions and the deployment as the body's model). Callers do
// not change: [Client.Complete] blocks until the request's batch is read
// back. Requests not in the cache are collected while they keep coming
// (batch.collect after the last one; or, when the callers announce their
// units of work with [Client.Expect], until every unit waits on one),
// written as JSONL lines
// {custom_id, method, url, body} whose body is exactly the online request's
// (temperature 0 included) and whose custom_id is the cache key, split over
// several files at batch.max_requests or batch.max_bytes (default the
// providers' 50,000 and 200 MB), uploaded and created with metadata naming
// the local batch. The batch is polled every batch.poll; when it is
// completed, expired, failed or cancelled its output and error files are
// spooled to disk (Dir, a file with no name) and read one line at a time,
// and each line goes through the same classification, validation, cache
// and meter as an online reply, so a batch reply serves a later online run
// and the reverse. Lines for one custom_id that give the same answer are
// one reply; lines that disagree give none (the request fails as
// malformed: retried, then an error saying so). A request a finished
// batch has no line for (its custom_id altered, its line dropped) was sent
// and may have run: it is charged at its reservation and retried as a bad
// reply is; only a batch that failed (nothing ran), or an expired or
// cancelled one whose lines account for every request it reports run,
// settles the requests without a line at nothing. Per-request errors and requests an expired,
// cancelled or token-limited batch did not run go back to the queue under
// retry.max_attempts (counting batches, over every process) with the online
// rules: rate limits, server errors and bad replies are retried, requests
// refused as invalid are not. retry.budget does not apply: a batch may take
// up to its 24-hour window.
//
// Each batch is recorded in [BatchOptions].Dir ([BatchJournalName], JSONL,
// each line fsynced, the file locked): its requests and custom_ids before
// the upload, the file id after it, the batch id after the create, its
// states as polled, and "done" once its results are cached. A client opened
// on the folder after a kill reads it back: a request of a recorded batch
// is waited for, never sent again; a batch uploaded but not recorded as
// created is looked up by its metadata, else created from the uploaded
// file; a batch prepared but not uploaded never ran and its requests go out
// again. [BatchOptions].Wait bounds the wait: then every waiting request
// fails with [KindBatchPending] (callers stop as for the budget, the run
// incomplete) and the batches stay recorded for the next run.
//
// The batch API's own calls (upload, create, list, retrieve, download)
// follow the online down rule: once they have failed (connections refused,
// 5xx, timeouts, replies garbled on the wire, a result file that does not
// parse) for retry.down_after with no success in between, the endpoint is
// declared down and every waiting request fails with [KindBatchPending] and
// the reason, with or without a wait set; nothing more is sent or polled and
// the journal keeps each batch where it stood, so a later client creates an
// uploaded batch (after looking for it by its metadata) or polls a created
// one by its id: never submitted twice, never paid twice. A download's
// headers must come within limits.timeout; its body may take 10 minutes.
//
// Interrupting a client (its callers' contexts end, then [Client.Close])
// cancels nothing at the provider: a created batch runs on, is billed for
// what it runs, and is read by the next client on the folder; an upload
// cut short was never created, a create cut short is found by its
// metadata. The package has no call to cancel a batch; the provider's
// cancel endpoint does it (the ids are in the journal's "created" lines),
// and a later client then reads what ran and sends the rest again.
//
// A batch request is priced at [Price.BatchShare] of the online price (half
// by default). Its worst case, at that share, is reserved with the [Meter]
// when it is submitted (fsynced in the spending file before the upload), so
// a budget cap, a resumed folder's spending included, holds for batches as
// for online calls. A request of a killed process's batch stays reserved in
// full until a later client reads its result: the journal records each
// request's reservation id, and the reader settles it as the online rule
// settles the same outcome (the reported usage at the batch price, nothing
// for an error line, the reservation for a reply without usage or a
// request without a line), once; a batch never uploaded was never
// created, and its reservations are settled at nothing. A process killed
// after booking a batch's requests and before recording the batch leaves
// reservations no batch lists: each reservation names its journal, the
// journal records the meter of every client that opened it ("open"
// lines), and a later client releases such reservations (never sent).
//
// # Values in files
//
// The message roles, [llmfmt.Sampling] and [llmfmt.Logprobs] are defined in
// package llm/llmfmt, which imports only the standard library: the files
// that record them (run settings, generation attempts) are read by packages
// that link no LLM client (refine/refinefmt, reports).
//
// # Testing
//
// Package llm/llmtest is an in-process fake server speaking the same wire
// protocol, with scripted replies and fault injection; the judge and
// generation tests run against it. [Options].Sleep lets tests check backoff
// without waiting.
package llm
