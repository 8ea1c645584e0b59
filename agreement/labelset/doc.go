// Package labelset owns the adjudicated label-set format: people's
// verdicts on rubric leaves of models' answers, the reference the judges
// (code checks, an LLM, the published decisions) are measured against.
//
// A label set is JSON Lines, one [Label] per leaf:
//
//	{"split":"validation","domain":"Diagnostic_Procedures","difficulty":"easy","id":"001",
//	 "model":"gpt-4.1","tree":"results","leaf":"acceptable-range","label":"fail",
//	 "rationale":"median_los 9.1 is above the 2-5 day band the parent sets for LOS",
//	 "chosen":"disagreement","seed":27,"stratum":"disagreement/band/gpt-4.1",
//	 "population":40,"drawn":8,"card":"c0123"}
//
// (one line in the file). The leaf is named by the task key (split,
// domain, difficulty, id), the model whose answer was judged, the tree
// (sql or results) and the leaf's id. The label is pass, fail or
// arguable (a reader could go either way; the rationale says why). The
// rationale is one line in the labeller's own words naming what decided
// it: the column, the value, the band, the SQL clause. How the leaf was
// chosen (chosen: disagreement, agreement or llm-only), the seed and the
// stratum it was drawn from, and the stratum's population and draw size
// (so estimates over strata can be weighted) come from the sampler
// (package labelsample); card names the card it was labelled from.
//
// The set holds no rubric text and no data of the licensed release: a
// rationale cites the few values that decided it, and [Copied] refuses one
// that repeats a run of the rubric's or the question's words.
//
// [Read] is strict: every field is checked, unknown fields and
// duplicate leaves are refused, and each error names the file, the line
// and the field. A template (the blank labels a labeller fills, see
// [ReadOptions].Template) may leave label and rationale empty. [Write]
// checks every label before writing it, so what it writes reads back.
package labelset
