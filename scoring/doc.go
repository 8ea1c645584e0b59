// Package scoring turns leaf decisions into task scores and split averages,
// and reads and writes the reference ClinSQL scorer's files.
//
// [ReadGrading] reads a detailed_grading.json (per-leaf decisions of any
// model); [Classify] tells recorded judge errors and unreadable replies from
// real decisions; [Rescore] evaluates every task's two rubric trees in
// reference or strict mode; [Summarise] averages per difficulty, scenario and
// scenario x difficulty; [Rescored.WriteFiles] writes scoring_results.json,
// difficulty_scoring_results.json and scenario_scoring_results.json in the
// reference's shapes, byte-compatible with the published files in reference
// mode.
//
// Averages are unweighted means over tasks, summed in task order and
// rounded to 6 decimals, exactly as published.
package scoring
