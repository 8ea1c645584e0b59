// Package runfolder owns a run folder: a model's answers to a task set, in
// the reference inference layout, and what clinsql keeps beside them.
//
// A run folder is written by one process at a time and read by many. This
// package is where its layout is spelled (per task
// <split>/<Domain>/<difficulty>_level_queries/<id>/ with
// execution_summary.json, result_<id>.csv, sql_<id>.sql, query_<id>.txt;
// manifest.json and the lock at the top), and where it is read
// defensively: run folders come from others, so only regular files inside
// the folder are read (no symlinks, devices or FIFOs), each within a size
// limit, and an error names the file.
//
// Three things bind a score to its inputs:
//
//   - The manifest (manifest.json), written by clinsql generate and exec
//     --run: model, task set and its fingerprint, engine, generation
//     settings, the clinsql version, and whether every task is final.
//     Released runs have none.
//   - The identity of a run (Identity): its model and a fingerprint of its
//     answers (each task's final SQL, outcome and result bytes). A judge
//     output records the identity of the run it judged and refuses to be
//     resumed for another, or for the same run after its answers changed.
//   - The lock (Lock): an exclusive advisory lock (flock) on a folder being
//     written; a second writer is refused at once with the holder's pid and
//     command.
package runfolder
