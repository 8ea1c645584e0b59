// Package labelsample draws the leaves people label: seeded, stratified
// samples of the rubric leaves of the 16 released models' answers to the
// validation split, in three classes (see package labelset for the
// format the draw is written in):
//
//   - disagreement: results leaves the code checks decide on an answer
//     with a result, where the recorded judge decided otherwise;
//   - agreement: results leaves both decide alike on an answer with a
//     result (without a result every results leaf fails by the rubric's
//     definition of "CSV File Exists", so agreement there tells nothing);
//   - llm-only: leaves only an LLM decides: SQL leaves of answers with
//     SQL text, and results leaves the code checks leave undecided on an
//     answer with a result.
//
// [Candidates] lists every leaf with its kind, the code checks' verdict
// and the recorded one. Leaves of an answer whose result file is missing
// from the release, and disagreement or agreement leaves without a
// recorded pass or fail, are not candidates: a labeller could not see the
// result, or there is nothing to pair.
//
// # How strata are sized
//
// [Draw] splits each class's target over groups, then each group over
// the 16 models:
//
//   - disagreement: one group per leaf kind (csv_exists, column_exists,
//     no_null, band; code decides no other kind on an answer with a
//     result), equal shares;
//   - agreement: one group per leaf kind and agreed verdict (band/pass,
//     band/fail, ...), equal shares, so the code's fails, rarer than its
//     passes, are measured as closely as its passes;
//   - llm-only: the SQL leaves take half, the undecided results leaves
//     the other half in equal shares per kind.
//
// A group smaller than its share is drawn whole and what it leaves over
// goes to the other groups of the class by their shares (water-filling);
// equal shares make the per-kind figures about equally precise, which a
// proportional draw would not (csv and no_null disagreements are a tenth
// of the class). Within a group the models get shares proportional to
// their leaves in the group (largest remainder), so a group's sample
// mirrors its model mix and per-group estimates need no weights. The
// stratum is class/group/model; each label records its stratum's
// population and draw size, so estimates over groups can be weighted
// back to the population.
//
// Within a stratum the candidates, sorted by task and leaf, are shuffled
// by a PCG seeded with the plan's seed and a hash of the stratum's name,
// and the first ones are taken: a stratum's draw does not depend on the
// others. [Order] then numbers the cards: the drawn leaves grouped by
// answer (one answer's cards stay together, so a labeller reads its SQL
// and result once), answers shuffled with the seed.
//
// The draw depends on the code checks' verdicts, which change as the
// checks do: the draw is made once and committed (cmd/labelcards draw),
// and cards are rendered from the committed draw, never drawn again.
package labelsample
