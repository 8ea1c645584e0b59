// Package judged reads a judge's leaf decisions from the files judges
// write, and pairs two judges' decisions into the agreement.Items that
// package agreement measures (clinsql agree).
//
// [Load] reads a ledger (judge/judgefmt), a recorded detailed_grading.json
// (scoring), or every one of them under a folder: one model per file, named
// by the judge summary beside a ledger, the grading's own summary, or the
// folder. A grading beside or below a ledger's folder is that ledger's own
// output and is not read twice. [Pair] pairs the models both sides judged
// (a single model on each side pairs whatever the names) on the tasks both
// judged; a leaf one side lacks is missing, not dropped. A leaf's kind comes
// from the ledger, else from the task rubrics ([Kinds]); whether an answer
// has a result from its run ([Results]), else from a code check of "CSV
// File Exists" on either side.
package judged
