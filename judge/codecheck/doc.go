// Package codecheck decides, in code, the rubric leaves that code can
// decide with confidence, and explains each decision with its evidence
// (the column, the values, the band). The judge engine (package judge)
// runs these checks first for every leaf; the leaves they leave
// undecided go to the judge backend.
//
// [LoadAnswer] reads one answer from a run's output: the final SQL,
// whether it ran, its error, and its result [Table] ([ReadCSV] bounds the
// rows and cell bytes of an untrusted result file).
//
// # Results leaves
//
// [KindOf] classifies a results leaf: csv_exists, column_exists, no_null
// (under the output-format category), band (a value leaf stating an
// interval), or other. [Check] then decides:
//
//   - Without a result every results leaf fails, with the reason (the
//     query failed and its error, no SQL, no rows, an unreadable file).
//     "CSV File Exists" means exactly this: the query ran and returned at
//     least one row. The reference writes the same placeholder CSV (one
//     column "result", one empty value) for a failed query and for an
//     empty result, so the placeholder is no result; an engine that writes
//     an empty result with its header is judged the same way. (The recorded
//     judge passed the placeholder of a failed or empty run in 624 of 1,066
//     cases.)
//   - csv_exists passes with the row and column counts.
//   - column_exists passes when a column has a name the leaf gives (quoted,
//     back-quoted or in an "e.g." list), up to case, separators, synonyms
//     (avg/mean, pct/percent/rate, sd/stddev, median/p50, "length of
//     stay"/los, ...) and word order kept; or names the same quantity as an
//     example or the leaf's description: the same words up to qualifiers
//     (units, "in-hospital", "rate") and related spellings, both ways, and
//     the same statistic ("mortality_percent" for
//     "in_hospital_mortality_rate_pct", "mean_los" for "avg_los_days"). It
//     fails when no column, and no row label of a long-format result,
//     shares any word with the required quantity. Names that are related
//     but differ (another time window, another statistic, a grouping
//     column) are a judgement: they go to the backend.
//   - no_null passes when no cell is NULL (empty, NULL, NaN, None); fails
//     when a column the leaf names, or any column of an unscoped leaf, has
//     one; leaves with an "expected"/"acceptable" exception, or NULLs only
//     outside the named columns, go to the backend.
//   - band reads the interval from the leaf ([ParseBands]: "(2-5)", "(0.01
//     to 0.40)", "between 5 and 90", "(>0.01 and <0.1)", units, percent,
//     per-group bands "Home: 60-95%"), binds it to a numeric column through
//     the names and words of the leaf and its parent(s) (nearest first,
//     exact names first, then the best token overlap by a clear margin, or
//     the only column holding every word; the only numeric column of a
//     small result). Only columns computing the statistic the texts name
//     (median, IQR, percentile, mean, rate, count) are candidates, and
//     identifier columns (itemid, subject_id) never are. It selects the
//     rows of the group the rubric names (quoted, or a row label the text
//     names word for word), and passes when every value lies in the band,
//     fails when none does or the value is NULL. On a rate band in percent
//     a column of fractions (all values in [0, 1]) is read as fractions
//     when its name says so, else decided only where both readings agree;
//     a rate of 0 over an empty cohort (every count in its row 0, or a
//     cohort count of 0) never passes; a one-row result of another group
//     the rubric names fails a leaf on the group asked for. Mixed values
//     over unselected rows, a unit or scale mismatch, columns that tie
//     with different verdicts, and unbound values go to the backend.
//
// # SQL leaves
//
// [CheckSQL] decides SQL-rubric leaves only when there is no SQL (they
// fail); everything else goes to the backend.
package codecheck
