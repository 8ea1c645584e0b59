// Package rubric holds ClinSQL rubric trees and turns leaf verdicts into scores.
//
// A rubric is a tree of [Node]s read from JSON or YAML (the same schema:
// id, requirements, weight, sequential, critical, scoring, sub_tasks). [Parse]
// validates it and reports every problem with the file and the path of the
// node ("sql_rubric_tree.json: sub_tasks[0].sub_tasks[1]: missing "id"");
// stray keys are warnings, not errors.
//
// [Evaluate] aggregates leaf [Verdict]s bottom-up in one of two modes:
//
//   - [Reference] reproduces the published ClinSQL scorer exactly. A leaf
//     scores its recorded value (0 without a decision). A sequential node
//     takes the weighted mean of its children up to and including the first
//     child below 1 and ignores critical flags; a non-sequential node scores 0
//     if a critical child is below 1, else the weighted mean of its
//     non-critical children (1 if it has none). Weights default to 1.
//   - [Strict] is the default of every command. Verdicts are pass, fail,
//     invalid (the judge failed or its reply could not be read) or skipped
//     (not judged because it could not change the score). Critical children
//     are honoured under every parent. An invalid leaf never counts as a pass:
//     the point score treats it as failed, [Score.Lo] and [Score.Hi] bound the
//     score over every way the invalid leaves could have gone, and
//     [Score.Invalid] counts them up the tree so that a task with invalid
//     leaves is always reported as such.
//
// Every node's [Score] carries the reason for its value: which sequential
// gate stopped the mean, which critical child zeroed it.
//
// [Skippable] tells a judge which leaves cannot change the score any more
// given the verdicts so far (after a failed sequential sibling, or beside a
// failed critical sibling where that zeroes the parent), so they need no call.
package rubric
