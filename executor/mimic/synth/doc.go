// Package synth writes a synthetic MIMIC-IV v3.1 of any number of patients
// in the PhysioNet layout (hosp/<table>.csv.gz, icu/<table>.csv.gz), for
// tests and benchmarks that must not need credentialed data.
//
// Faithful to the schema: every hosp and icu table of [mimic.V31], its
// columns in order, its types' text forms (DATETIME "YYYY-MM-DD HH:MM:SS",
// empty for NULL, codes as strings), and the identifiers joined as in
// MIMIC-IV (subject_id -> hadm_id -> stay_id; poe_id, emar_id and
// pharmacy_id linking the order tables; itemids present in d_labitems and
// d_items; billed ICD codes in the dictionaries).
//
// Shaped like the real data: each patient is a skeleton (demographics,
// admissions, ICU stays) drawn from its own random stream, and every table's
// rows per patient, admission or ICU stay follow MIMIC-IV v3.1's totals
// (mimic-code's validate.sql) with spreads measured on the open demo
// (heavy-tailed, log-normal); values follow per-item laws with the demo's
// percentiles and units (labevents, ICU inputs and outputs) or, for
// icu/chartevents, which the demo lacks, clinical ranges of the common
// charted items (vital signs, GCS, ventilator settings, charted labs, nursing
// assessments). At FullPatients the files hold about 886 million rows, 433
// million of them in chartevents. Dictionaries (d_*, provider, caregiver)
// have MIMIC-IV's sizes at every scale, as in the demo: the catalogue's real
// codes and items, then synthetic ones that cannot be mistaken for real
// codes. No row of the demo is copied: the catalogues in catalog.go are
// parameters.
//
// Reproducible: the same Seed and Patients give the same bytes whatever the
// number of workers. Each table is cut into chunks of patients, each chunk
// generated from a stream seeded by (seed, table, chunk) and compressed as
// one gzip member; members are concatenated in order (a multi-member gzip
// file, which gzip readers and DuckDB read as one stream). Work is parallel
// across chunks with at most 2 x Workers chunks in memory.
//
// The command line writes a dataset with `clinsql db synth --patients N
// --out DIR` (see the README).
package synth
