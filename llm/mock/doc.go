// Package mock is clinsql's built-in model, for trying the whole loop
// (generate, execute, judge, report) without an API key or network: an
// OpenAI-compatible chat-completions server inside the process. A client
// reaches it through the same llm.Client, HTTP requests and replies as a
// real endpoint ([Server.Endpoint] names it), so generation, refinement,
// judging and caching treat it as any model and nothing special-cases it.
//
// # What it answers
//
// A request whose prompt holds one of the known questions ([Options.Gold]:
// question -> gold SQL, recognised by the question's quoted text, the way
// the generation prompts show it) is answered, per question and seeded, in
// the stated [Mix] of four kinds:
//
//   - gold: the gold SQL;
//   - wrong: the gold SQL changed so that it still runs but answers another
//     question (a literal, a comparison, an ordering or an aggregate
//     changed; else a LIMIT 1 added);
//   - broken: the gold SQL with its first keyword misspelled, which fails
//     to parse; asked to fix it (a prompt that shows one of the mock's
//     queries for the question), the mock answers gold or wrong in the
//     mix's proportions between them, and keeps to that answer, so
//     refinement rescues some;
//   - abstain: "null", the abstention marker, on every round.
//
// A query comes in a reply of reasoning and one ```sql block, as a
// chain-of-thought model writes it; an abstention is "null" in one. With
// log-probabilities asked for, each reply carries token log-probabilities
// whose mean is highest for gold, then wrong, then broken answers (seeded
// noise on top), so confidence thresholds have something to find. A prompt
// holding no known question is answered with a query that runs but answers
// nothing asked ("SELECT 1 AS mock_unknown_question").
//
// A request with a JSON-schema response format is a judge's: the reply is
// the object the schema asks for, one verdict per required id (or the one
// verdict of a single leaf), each with its reasoning. An answer whose
// candidate SQL is the question's gold SQL passes every leaf; any other
// passes each leaf with probability [Options.JudgePass], seeded by the
// question, the leaf and the SQL. Token usage is counted as a quarter of
// the characters in and out.
//
// The same seed, mix and questions always give the same replies.
package mock
