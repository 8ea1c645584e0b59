// Package reliability scores reliable text-to-SQL as the EHRSQL 2024 shared
// task defines it, reproducing the official scorer (glee4810/ehrsql-2024,
// v1.1.1: scoring.py, scoring_utils.py, postprocessing.py, scoring_v2.py)
// byte for byte, and applies the same reliability scores to ClinSQL runs.
//
// # Reliability score
//
// Each item scores +1 for a correct answer or a correct abstention (on an
// unanswerable item), 0 for abstaining on an answerable item, and −c for a
// wrong answer, an answer that fails to run, or an answer to an unanswerable
// item. RS(c) is the mean × 100; [Scores] holds RS(0), RS(5), RS(10) and
// RS(N) (N the number of items: a single −1 makes it negative) with the
// counts of the six [Outcome]s. [Summarize] and [RS] compute them exactly as
// numpy does.
//
// # EHRSQL 2024
//
// [Score] takes items (gold label, prediction) and a [Querier] (the sqlite
// executor on mimic_iv.sqlite) and runs the official pipeline:
//
//  1. [PostProcessSQL] on both texts (whitespace, MySQL DATE_SUB/DATE_ADD,
//     the fixed "now" 2100-12-31 23:59:00, vital-sign ranges, %y/%j);
//  2. "null" is not executed: an unanswerable gold, or an abstaining
//     prediction (exactly "null" by default; see [Abstention]);
//  3. execution; any failure of the SQL is an error answer, which equals
//     nothing;
//  4. [Normalize]: every cell becomes str(round(float(x), 3)) when Python's
//     float(x) succeeds and str(x) otherwise ([NormalizeCell]: 1, 1.0, '1',
//     ' 1 ' all give '1.0'; NULL gives 'None'), rows are sorted as Python
//     sorts lists of strings, and the first 100 are kept, duplicates
//     included;
//  5. answers are compared ([Answer.Equal]) and each item gets its outcome.
//
// [NormalizeText] is process_answer on an answer string (ast.literal_eval
// first), used for answer.json gold answers and scoring_v2-style answers.
//
// Deviations from the official scorer, all on inputs it never meets in its
// own data: queries run read-only with a timeout and a row cap (a result
// over the cap is an error answer, as it cannot be sorted faithfully); SQL
// that is not a read (DML, DDL, PRAGMA, ATTACH) is refused rather than run;
// Unicode tables are Go's. A lenient abstention ([Abstention.Lenient]) is
// available and off by default.
//
// # ClinSQL
//
// [ScoreTasks] takes per-task records (key, final SQL, execution score) and
// a threshold (default 1.0): a task is correct when its execution score
// reaches the threshold, abstains when its final SQL is the marker ("null"
// by default), and is penalised otherwise. It returns the same [Scores],
// for reports to show beside the SQL and execution scores.
package reliability
