// Package judged reads judge outputs for package agreement: a judge
// folder's ledger.jsonl (clinsql judge --out), a recorded
// detailed_grading.json, or a folder of any number of these (one per
// model), as each leaf's verdict, deciding source, kind and explanation.
// [Pair] pairs two outputs leaf by leaf (clinsql agree A B); [Labels]
// pairs one with a label set (clinsql agree --labels). Where an output
// does not say a leaf's kind or whether its answer has a result (a
// recorded grading), a [Context] built from the tasks and the runs does.
package judged
