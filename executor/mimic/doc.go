// Package mimic holds MIMIC-IV v3.1 as the embedded engine needs it: the
// schema as data, the loader that builds a DuckDB database from the PhysioNet
// CSV release, and the download of the open MIMIC-IV demo.
//
// Schema. [V31] lists every table of the BigQuery datasets mimiciv_3_1_hosp
// (22 tables) and mimiciv_3_1_icu (9), with column names in file order and
// BigQuery types after MIT-LCP/mimic-code's BigQuery schemas, short
// descriptions and notes on easily confused columns (hadm_id vs stay_id,
// charttime vs storetime, value vs valuenum, d_items vs d_labitems), plus
// mimiciv_3_1_derived.charlson. It is the one source for the DuckDB tables and
// for schema text shown to models.
//
// Build. [Build] creates one DuckDB schema per dataset, named as the BigQuery
// dataset (mimiciv_3_1_hosp, mimiciv_3_1_icu, mimiciv_3_1_derived), so the
// dialect bridge maps `physionet-data.<dataset>.<table>` (and the unversioned
// aliases) onto <dataset>.<table>. BigQuery types map to DuckDB as INT64
// BIGINT, FLOAT64 DOUBLE, STRING VARCHAR, DATE DATE, DATETIME TIMESTAMP. Every
// table is created; each is loaded from <dir>/<module>/<table>.csv.gz (or
// .csv) with every read_csv option explicit (no type or dialect detection)
// after its header row has been checked against the schema; a table without
// a file stays empty and is listed in the [Report] (the demo has no
// icu/chartevents). Then mimiciv_3_1_derived.charlson is computed from
// hosp.diagnoses_icd, admissions and patients following mimic-code's
// concepts/comorbidity/charlson.sql, with the age of its derived.age
// (anchor_age + year(admittime) - anchor_year: BigQuery's DATETIME_DIFF in
// YEAR counts year boundaries). The database is written beside the output
// and renamed into place when complete.
//
// Fetch. [FetchDemo] downloads the MIMIC-IV Clinical Database Demo v2.2 (open
// access, ODbL 1.0; cite Johnson et al. 2023, doi:10.13026/dp1f-ex47) file by
// file from PhysioNet, checking every file against the release's
// SHA256SUMS.txt before giving it its final name, retrying transient failures
// and resuming over files already verified.
package mimic
