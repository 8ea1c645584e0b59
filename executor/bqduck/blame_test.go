package bqduck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor"
)

// Issue 26's classes of blame and wording, through the engine the CLI, the
// refinement loop and the real-query golden use (Open on a MIMIC-IV
// database): what BigQuery runs runs; what it rejects is the query's error
// (syntax or runtime), never the engine's (infra_error is retried and never
// charged); what the engine cannot represent is unsupported; and the
// message a refining model is shown (executor.Error.Message) reads as
// BigQuery's, without DuckDB's "<Kind> Error:" prefix or the translated SQL.
func TestIssue26ClassesThroughEngine(t *testing.T) {
	ctx := context.Background()
	eng, err := Open(ctx, Options{DB: buildMini(t), ZeroDivision: ZeroDivisionError})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	const icu = "`physionet-data.mimiciv_3_1_icu.icustays`"
	for _, c := range []struct {
		name, bq string
		rows     string         // fmt.Sprint of the rows when it runs
		class    executor.Class // the error's class when it fails
		msg      string         // the start of the message a model is shown
	}{
		// BigQuery runs these (functions reference: a NULL argument gives
		// NULL before any check; the logarithm of -inf is NaN; the least
		// INT64 is a literal; SAFE_ arithmetic of an aggregate).
		{name: "SUBSTR and LEFT of NULL arguments", bq: "SELECT SUBSTR('apple', 2, NULL), LEFT(NULL, -1), SUBSTR(NULL, 1)", rows: "[[<nil> <nil> <nil>]]"},
		{name: "LN and LOG of -inf", bq: "SELECT IS_NAN(LN(CAST('-inf' AS FLOAT64))), IS_NAN(LOG(10, CAST('-inf' AS FLOAT64)))", rows: "[[true true]]"},
		{name: "least INT64 literal", bq: "SELECT -9223372036854775808", rows: "[[-9223372036854775808]]"},
		{name: "SAFE_MULTIPLY of an aggregate", bq: "SELECT SAFE_MULTIPLY(SAFE_DIVIDE(SUM(los), COUNT(*)), 100) FROM " + icu, rows: "[[156.25]]"},
		{name: "a script of queries", bq: "SELECT 1 AS a;\nSELECT COUNT(*) AS n FROM " + icu + ";", rows: "[[2]]"},
		// One statement whose semicolons DuckDB's parser must not split
		// it at (in a string, a backticked name, a comment, or ending it).
		{name: "one statement with semicolons", bq: "SELECT 'a;b', `c;d` /* ; */ FROM (SELECT 1 AS `c;d`) # ;\n; -- end", rows: "[[a;b 1]]"},
		// BigQuery rejects these when they run: the query's error.
		{name: "CAST FORMAT of text the format does not match", bq: "SELECT CAST('abc' AS DATE FORMAT 'YYYY-MM-DD')", class: executor.ClassRuntime, msg: "Failed to parse input string"},
		{name: "EXTRACT AT an unknown TIME ZONE", bq: "SELECT EXTRACT(HOUR FROM TIMESTAMP '2020-01-01 00:00:00+00' AT TIME ZONE 'invalid')", class: executor.ClassRuntime, msg: "Invalid time zone: invalid"},
		{name: "LOG to base 1", bq: "SELECT LOG(los, 1) FROM " + icu, class: executor.ClassRuntime, msg: "Floating point error in function: LOG(2, 1)"},
		{name: "a LIKE pattern column ending in a backslash", bq: "SELECT COUNT(*) FROM " + icu + " WHERE first_careunit LIKE CONCAT(last_careunit, '\\\\')", class: executor.ClassRuntime, msg: "LIKE pattern ends with a backslash"},
		// BigQuery rejects these before they run: the query's error, in
		// BigQuery's words (its recorded errors for released queries).
		{name: "a table's last name part after an unaliased backticked path", bq: "SELECT icustays.stay_id FROM " + icu, class: executor.ClassSyntax, msg: "Unrecognized name: icustays"},
		{name: "an unknown column", bq: "SELECT intimee FROM " + icu, class: executor.ClassSyntax, msg: "Unrecognized name: intimee"},
		{name: "an ungrouped column", bq: "SELECT stay_id, COUNT(*) FROM " + icu, class: executor.ClassSyntax, msg: "SELECT list expression references column stay_id which is neither grouped nor aggregated"},
		{name: "a LIKE pattern literal ending in a backslash", bq: "SELECT COUNT(*) FROM " + icu + " WHERE first_careunit LIKE 'a\\\\'", class: executor.ClassSyntax, msg: "LIKE pattern ends with a backslash"},
		// A script in BigQuery's procedural language (procedural language
		// reference) is valid BigQuery the engine cannot run: unsupported,
		// SET and CALL too, which DuckDB's parser reads as its own; one
		// BigQuery's parser rejects is the query's syntax error.
		{name: "a script with DECLARE", bq: "DECLARE x INT64 DEFAULT 1;\nSELECT COUNT(*) FROM " + icu + " WHERE los > x;", class: executor.ClassUnsupported, msg: "unsupported in the embedded engine: a script's procedural statements"},
		{name: "a BEGIN … END block", bq: "BEGIN\n  SELECT COUNT(*) FROM " + icu + ";\nEND;", class: executor.ClassUnsupported, msg: "unsupported in the embedded engine: a script's procedural statements"},
		{name: "a script with SET", bq: "SET x = 1;\nSELECT 1", class: executor.ClassUnsupported, msg: "unsupported in the embedded engine: a script's procedural statements"},
		{name: "a CALL", bq: "CALL mydataset.proc()", class: executor.ClassUnsupported, msg: "unsupported in the embedded engine: a script's procedural statements"},
		{name: "a DECLARE BigQuery's parser rejects", bq: "DECLARE;\nSELECT 1", class: executor.ClassSyntax, msg: `Syntax error: Unexpected ";"`},
		// A LIKE pattern whose type the bridge cannot tell (the statement
		// model cannot read QUALIFY without WHERE) escapes with the
		// backslash, as BigQuery's every pattern does; a BYTES one is the
		// bridge's limit.
		{name: "a LIKE pattern of unknown type", bq: "SELECT s LIKE p FROM (SELECT 'a%' AS s, 'a\\\\%' AS p) QUALIFY ROW_NUMBER() OVER () = 1", rows: "[[true]]"},
		{name: "a BYTES LIKE pattern of unknown type", bq: "SELECT s LIKE p FROM (SELECT b'a%' AS s, b'a\\\\%' AS p) QUALIFY ROW_NUMBER() OVER () = 1", class: executor.ClassUnsupported, msg: "unsupported in the embedded engine: LIKE on BYTES"},
		// A mean the engine's BIGNUMERIC (18 decimals) cannot hold: the
		// engine's limit, listed in the README, not the query's fault.
		{name: "AVG of BIGNUMERIC with more than 18 decimals", bq: "SELECT AVG(CAST(x AS BIGNUMERIC)) FROM UNNEST([1, 0, 0]) AS x", class: executor.ClassUnsupported, msg: "unsupported in the embedded engine: AVG of BIGNUMERIC values whose mean has more than 18 decimals"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := eng.Query(ctx, c.bq)
			if c.class == "" {
				if err != nil {
					t.Fatalf("%s: %v", c.bq, err)
				}
				if got := fmt.Sprint(res.Rows); got != c.rows {
					t.Errorf("%s: rows %s, want %s", c.bq, got, c.rows)
				}
				return
			}
			var xe *executor.Error
			if !errors.As(err, &xe) {
				t.Fatalf("%s: %v, want a %s error", c.bq, err, c.class)
			}
			if xe.Class != c.class || !strings.HasPrefix(xe.Message, c.msg) {
				t.Errorf("%s: %s %q, want %s %q", c.bq, xe.Class, xe.Message, c.class, c.msg)
			}
			for _, duck := range []string{"Error: ", "LINE ", "bq_"} {
				if strings.Contains(xe.Message, duck) {
					t.Errorf("%s: the message %q shows DuckDB's %q", c.bq, xe.Message, duck)
				}
			}
		})
	}
}
