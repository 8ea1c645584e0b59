// Package labelcard renders the cards people label from: one Markdown
// card per drawn leaf (package labelsample), holding what a reader needs
// to decide the leaf and nothing that says how a judge decided it.
//
// A card shows the question, the leaf's requirement and its ancestors'
// (a value band's column and group are named only in the parent), the
// leaf's siblings, the model's SQL and how it ran, the model's result
// and the gold result. SQL and results are bounded ([Bounds]), and a card
// says what it cut. It never shows the code checks' or the recorded
// judge's verdict or explanation, nor how the leaf was drawn (a
// disagreement, an agreement), nor the model's name: labellers decide
// blind.
//
// [WriteBatches] packs the cards into batches of about [BatchSize] (an
// answer's cards stay in one batch), each a folder batch-NN holding the
// cards, manifest.tsv (card ids with their leaves) and template.jsonl
// (the batch's blank labels in labelset's format, without the draw).
// Cards hold licensed data: they are written outside the repository and
// never committed.
package labelcard
