// Package judgefmt owns the judge's files in a judge output folder, reader
// and writer together (as benchfmt does for benchmark files): the ledger,
// the judge summary and the detailed grading. It links no LLM client, so
// what reads judge outputs (reports, the agreement and audit commands)
// does not link one either.
//
// ledger.jsonl is the judge's durable output: one [Record] per decided leaf
// after a [LedgerHeader] line that binds the ledger to the run, tasks,
// judge and settings that wrote it. Each record is written with one write
// as soon as its leaf is decided ([Ledger.Append]; the records of a grouped
// call together), so a process killed at any point leaves whole lines: a
// torn last line is dropped when the ledger is reopened ([OpenLedger]) and
// reported when it is read ([ReadLedger]). A leaf is decided once; a leaf
// judged again (an invalid verdict retried) gets a second record and the
// last record wins ([LedgerContents.Last]). A ledger can only be resumed
// with the settings that started it (see [LedgerHeader]): decisions about
// other answers, tasks or recorded decisions, or made by another judge,
// grouping or mode, are refused with the reason. Each record carries its
// tokens and dollars, so totals over records are the run's.
//
// judge_summary.json ([Summary], [WriteSummary], [ReadSummary]) is what a
// judge run decided and spent, per tree, leaf kind and task, its scores per
// split and what they are bound to (run, tasks, backend, completeness).
//
// detailed_grading.json ([MarshalGrading]) is the reference scorer's
// shape, leaves only, with each leaf's verdict and source added;
// scoring.ReadGrading reads it as it reads the published gradings.
//
// Beside the ledger, transcript.jsonl keeps what a model judge was asked
// and what it replied: one [Exchange] per backend call
// ([Ledger.AppendExchange], [ReadTranscript]), for reports to show next to
// the verdicts. Scores never read it.
//
// The leaf kinds ([LeafKind]) and a code decision's [Evidence] are defined
// here because records carry them; package codecheck decides them.
package judgefmt
