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
// .csv) by DuckDB's own CSV reader with every read_csv option explicit (no
// type or dialect detection) after its header row has been checked against
// the schema; a table without a file stays empty and is listed in the
// [Report] (the demo has no icu/chartevents). A malformed row fails the build
// with the file, its line and the reason. Then mimiciv_3_1_derived.charlson
// is computed from hosp.diagnoses_icd, admissions and patients following
// mimic-code's concepts/comorbidity/charlson.sql, with the age of its
// derived.age (anchor_age + year(admittime) - anchor_year: BigQuery's
// DATETIME_DIFF in YEAR counts year boundaries).
//
// Scale. Tables load Threads at a time, largest file first, each on one
// DuckDB thread (DuckDB decompresses and parses a gzip file on one thread
// whatever its setting; more threads per file only add coordination), under
// MemoryLimit. Every ProgressEvery a progress line gives each loading
// table's share read (its file's read offset, /proc/self/fdinfo), estimated
// rows and rows/s (rows per byte of the file's first megabytes) and ETA, and
// the overall ETA.
//
// Resume. The database is built in <out>.building and renamed into place
// when complete. Each table is loaded in one transaction that also records
// it as done (clinsql_meta.build_tables: file, size, modification time,
// SHA-256, rows, attempt), so after an interruption at any point (kill -9
// included) the same command resumes: tables done are kept unless their file
// changed, the others load, and the derived tables are computed again if any
// table was. A partial build of another folder or schema is started over.
// [TableDigest] (row count and the sum of DuckDB's row hashes, independent of
// row order) shows two builds equal table by table.
//
// Manifest. Beside the database, <out>.manifest.json ([ManifestPath],
// [ReadManifest]) records the database's size, its facts, and every table's
// rows, file, attempt, load time and (BuildOptions.Digest) digest.
//
// Synthetic data. Package synth writes a MIMIC-IV-shaped dataset of any
// size in the same layout, for tests and benchmarks.
//
// Fetch. [FetchDemo] downloads the MIMIC-IV Clinical Database Demo v2.2 (open
// access, ODbL 1.0; cite Johnson et al. 2023, doi:10.13026/dp1f-ex47) file by
// file from PhysioNet, checking every file against the release's
// SHA256SUMS.txt before giving it its final name, retrying transient failures
// and resuming over files already verified.
package mimic
