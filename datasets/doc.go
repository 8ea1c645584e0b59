// Package datasets reads benchmark inputs and recorded outputs from disk.
//
// ClinSQL tasks come from the released layout
// data/splits/<split>/<Domain>/<difficulty>_level_queries/<id>/ (five files)
// or from a manifest JSONL, through [LoadClinSQL]. A task is keyed by
// (split, domain, difficulty, id): ids repeat across domains. Loading
// collects every problem in one pass, each naming its file (and for rubrics
// the JSON path of the node); a task with a problem is reported, never
// silently dropped.
//
// A model's outputs (run folders) are package runfolder's.
//
// [FetchClinSQL] downloads the public ClinSQL data for users who have no copy.
package datasets
