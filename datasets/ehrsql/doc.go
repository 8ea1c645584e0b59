// Package ehrsql loads the files of the EHRSQL 2024 shared task (v1.1.1
// layout): a split's data.json, label.json, answer.json and annotated.json,
// the Spider-style tables.json, and prediction files.
//
// Every id-keyed JSON object ({id: string}) is read in file order, and a
// duplicate id is an error (Python's json would silently keep the last).
// [LoadSplit] and [CheckIDs] check ids both ways: an id missing from a file or
// one it has in excess is an error that lists them and names the file.
// Every error names the file and the field (an id, or a JSON path such as
// data[12].question).
//
// Values are kept as the files hold them: an unanswerable item's label and
// answer are the string "null"; SQL and answers are not post-processed or
// parsed here (package reliability does that).
//
// A prediction file is one object {id: SQL} whose values must be strings, as
// the official scorer requires (it would crash on JSON null). With
// [PredictionOptions.JSONNullAs] set, a JSON null becomes that string instead,
// a documented leniency.
package ehrsql
