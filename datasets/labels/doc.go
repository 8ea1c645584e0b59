// Package labels holds our adjudicated label set for the ClinSQL
// validation split: people's verdicts on 1,120 rubric leaves of the 16
// released models' answers, the reference the judges are measured
// against (clinsql agree --labels, clinsql report --labels). It is our
// own data: task keys, labels and our rationales, no rubric text and no
// value of the licensed release beyond the few a rationale cites (no
// rationale repeats 7 words of the leaf's rubric texts or the question:
// labelset.OwnWords, checked by TestOwnWords). The format is package
// labelset's (agreement/labelset).
//
// # The files
//
//   - validation.jsonl: the label set. 1,120 leaves: 560 where the code
//     checks and the published judge decided differently on an answer
//     with a result, 320 where they agreed, 240 that only an LLM decides
//     (120 SQL leaves, 120 results leaves the code left undecided).
//     Labels: 811 pass, 298 fail, 11 arguable (a careful reader could go
//     either way; the rationale says why).
//   - validation-second.jsonl: a second labeller's independent labels
//     of 160 of these leaves, for the inter-labeller figures below.
//
// # How the leaves were drawn
//
// Seeded (27) and stratified by class, leaf kind and model from the 16
// released validation runs (package agreement/labelsample; the draw is
// committed as agreement/labelsample/draw/validation.jsonl with its
// strata). The classes were computed with the code checks as they were
// at commit 2dc845f, so a label's "chosen" field describes that
// classification, not today's: clinsql agree --labels recomputes today's
// code verdicts and slices by them. Each label records its stratum's
// population and draw size, so figures over strata can be weighted back
// to the population (see agreement.LabelReport).
//
// # How they were labelled
//
// From cards (agreement/labelcard, rendered outside the repository: they
// hold licensed data): the question, the leaf with its parents and
// siblings, the model's SQL and result and the gold result, and nothing of
// any judge's verdict, how the leaf was drawn, or the model's name. Six
// labellers took the 19 batches (01-03, 04-06, 07-09, 10-12, 13-15,
// 16-19), blind. The lead's adjudication record:
//
//   - After batches 01-09 a consistency rule was written for scale (a
//     rate band in percent against a column of fractions: the proportion
//     inside the band read either way passes) and batches 01-09 were
//     reviewed for it: c0382 and c0479 changed from fail to pass.
//   - A second labeller relabelled a seeded random 160 (seed 20261202),
//     blind to the first: 158 of 160 agree, Cohen's kappa 0.967 (three
//     categories: pass, fail, arguable). The lead adjudicated the two
//     disagreements: c0147 becomes fail (the first labeller had pass: a
//     column named percentile_rank holds a risk score, an
//     APPROX_QUANTILES value at an offset, not a percentile); c0726 stays
//     fail (the second labeller had arguable: the answer's values are
//     NULL inside a packed STRUCT).
//
// Against the adjudicated set the second labeller's labels agree on 159
// of 160 (c0726 differs); TestSecondLabeller recomputes these figures.
package labels
