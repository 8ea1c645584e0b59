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
//     "in_hospital_mortality_rate_pct", "mean_los" for "avg_los_days"); or
//     is the only column computing the statistic asked for, named by the
//     statistic alone, in a result without labels ("p75" among "n, mean,
//     p25, median, p75" for "the 75th percentile of Troponin-T"); or, for a
//     grouping column, holds group labels and names the same grouping up
//     to the grouping words ("los_category" or "LOS_Bin" for "los_group",
//     "tertile" for a tertile stratification); or holds every word of one
//     example and only words the leaf uses ("median_peak_glucose" between
//     the examples "median_glucose" and "median_peak_glucose_dka"), in
//     the time unit the leaf states. A column two column leaves about
//     different quantities both match, other than by a name the rubric
//     gives, decides neither: its name does not tell them apart. It fails when no column,
//     and no row label of a long-format result, shares any word with the
//     required quantity, where the requirement names a quantity (not only
//     a role in the layout: "'value' or similar", "a column for metrics
//     (e.g., 'metric', 'measure')", which a wide result meets with named
//     columns) and no column has a generic name (f0_, col_1,
//     result_metric_1: it may hold anything). Names that are related but differ (another time
//     window, another statistic, another grouping) are a judgement: they
//     go to the backend. A generic name (col_1, value_2) matches no
//     example by the number left of both ("metric_1_name"). A leaf that
//     applies "if applicable" (where available, optional) goes to the
//     backend rather than fail; so does a band leaf of that kind.
//   - no_null passes when no cell is NULL (empty, NULL, NaN, None) and no
//     cell holds a packed value (a STRUCT or ARRAY written out) with an
//     empty field, which goes to the backend; fails
//     when a column the leaf names, or any column of an unscoped leaf, has
//     one; leaves with an "expected"/"acceptable" exception, or NULLs only
//     outside the named columns, go to the backend. A leaf scoped to some
//     rows ("for the 'Female' group") is decided on the rows whose label
//     it names, and goes to the backend when the labels do not show them.
//   - band reads the interval from the leaf ([ParseBands]: "(2-5)", "(0.01
//     to 0.40)", "between 5 and 90", "(>0.01 and <0.1)", "[0, 100]", one
//     bound "(>= 1)", units, percent, per-group bands "Home: 60-95%"),
//     binds it to a numeric column through
//     the names and words of the leaf and its parent(s) (nearest first,
//     exact names first, then the best token overlap by a clear margin, or
//     the only column holding every word; the only numeric column of a
//     small result when its name can hold the value: a word of the texts,
//     or no word at all, "f0_"). Columns within the margin of the best,
//     however weakly they fit, are tied: decided only where they agree.
//     Only columns computing the statistic the texts name
//     (median, IQR, percentile, mean, rate, count) are candidates, and
//     identifier columns (itemid, subject_id) never are; of columns that
//     differ by a negated word (survivors, nonsurvivors) only those
//     agreeing with the nearest text naming it; a column named by the
//     statistic alone binds when it is the only one computing it, and a
//     band on a confidence interval binds to its bounds, never to the
//     point estimate. A range written as the cohort's ages ("female,
//     63-73", "70-80 year olds") is not a band. A band meant for a total
//     ("the sum of percentages ... (98-102)", "total ... across all
//     categories") is checked on the column's sum over the rows, one meant
//     for a count of categories ("number of age groups 3-6") on the number
//     of distinct categories. It selects the
//     rows of the group the rubric names (quoted, or a row label the text
//     names word for word; a quoted group named more fully than the one
//     label whose words it holds, 'Discharged to Facility' for
//     "Facility"), and passes when every value lies in the band,
//     fails when none does or the value is NULL (rows matched by a word of
//     the text that are NULL where a stacked result's other section holds
//     the column's values go to the backend: the text may mention that
//     section in passing). On a rate band in percent
//     a column of fractions (all values in [0, 1]) is read as fractions
//     when its name says so, else decided only where both readings agree;
//     a rate of 0 over an empty cohort (every count in its row 0, or a
//     cohort count of 0) never passes. A leaf is decided only where the
//     quantity it names is found in the result: two band leaves under
//     value subtrees naming different things ("DKA AKI Rate", "General
//     Cohort AKI Rate") bound to the same cells, a group the result does
//     not hold (a one-group result of a group the rubric names
//     elsewhere, a quoted group no row is labelled with or the one row is
//     labelled otherwise), and a leaf stating several bands it does not
//     tie to groups go to the backend. Mixed values
//     over unselected rows, a unit or scale mismatch, columns that tie
//     with different verdicts, and unbound values go to the backend.
//
// # SQL leaves
//
// [CheckSQL] decides SQL-rubric leaves only when there is no SQL (they
// fail); everything else goes to the backend.
package codecheck
