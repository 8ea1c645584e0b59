// Package audit measures a judge without human labels, on answers whose
// verdicts are known by construction.
//
// Every ClinSQL task ships its gold SQL and gold result, and the gold
// answer satisfies its own rubric: judged as a run, every leaf of both
// trees must pass ([GoldVariant]). A gold answer changed in one known way
// must fail the leaves that test that property ([ResultVariants],
// [SQLVariant]):
//
//   - scale100, scale0.01: every numeric value x100 or x0.01. A band leaf
//     must fail when no value of the changed result could satisfy it:
//     no number, column total, row or column count lies in its range,
//     read as it is or, on a rate, as a fraction or a percentage.
//   - rename: every column renamed col_1, col_2, ...; drop: one column
//     removed (one answer per column). A column leaf must fail when no
//     column but a generic one is left to match it, and no text value of
//     the result shares a word with it (it could be a row label).
//   - null: every numeric column NULL. A no-NULL leaf that allows none
//     must fail when the columns it covers are NULL.
//   - empty, failed: the query returned no rows or failed; every results
//     leaf must fail.
//   - sql-gender, sql-age, sql-icd, sql-join: the gold SQL's gender
//     literal flipped, its anchor_age bounds shifted by 7 years, an ICD
//     prefix of its LIKE patterns dropped (made to match no code), or a
//     join key that joins only once changed to another identifier, run on
//     an engine; the SQL leaves stating that gender, those ages, that
//     prefix (quoted, or followed by %) or speaking of a join on that key
//     must fail.
//
// A leaf whose verdict cannot be derived with certainty is not testable
// and is not counted. [Run] judges every answer with a [Judge] (the code
// checks, [CodeJudge], or the judge engine with an LLM through
// judge.AuditJudge, which lives with the engine so that this package, and
// the report that shows an audit, link no LLM client) and [Tally] compares: false fails on gold, classified by
// the rubric lint ([Lint]) as a rubric/gold defect or a judge error, and
// missed fails on mutations, per leaf kind and source.
//
// What the figures cannot tell: a judge's errors on answers that are
// neither the gold nor one of these mutations (a partly right answer, a
// different but valid method); the passes a mutation leaves untested; and
// leaves no mutation maps to (trends, comparisons). A false fail with no
// lint finding is counted as the judge's error even where a person would
// call the rubric ambiguous.
//
// [RunJob] runs an audit as clinsql audit does: a sample spread over the
// tasks ([Spread]), an exclusive lock on the output folder, the judge
// opened there, the report written with the judge's cost.
package audit
