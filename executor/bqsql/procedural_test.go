package bqsql

import (
	"errors"
	"strings"
	"testing"
)

// A script in BigQuery's procedural language (procedural language
// reference) is valid BigQuery the engine cannot run: unsupported, never
// the model's error, whatever statement of the language it holds and
// wherever; only a script BigQuery's parser rejects is the model's syntax
// error. A script of queries alone still runs (TestScript).
func TestProceduralScripts(t *testing.T) {
	const pat = "`physionet-data.mimiciv_3_1_hosp.patients`"
	tr := &Translator{Catalog: testCatalog}
	for _, c := range []struct {
		sql  string
		kind ErrorKind
		at   string // the error's position
	}{
		{sql: "DECLARE x INT64 DEFAULT 60;\nSELECT COUNT(*) FROM " + pat + " WHERE anchor_age > x;", kind: KindUnsupported, at: "[1:1]"},
		{sql: "DECLARE d DATE;", kind: KindUnsupported, at: "[1:1]"},
		{sql: "DECLARE x INT64;\nSET x = (SELECT MAX(anchor_age) FROM " + pat + ");\nSELECT x", kind: KindUnsupported, at: "[1:1]"},
		{sql: "SET x = 1", kind: KindUnsupported, at: "[1:1]"},
		{sql: "SET (a, b) = (1, 2)", kind: KindUnsupported, at: "[1:1]"},
		{sql: "SELECT 1;\nDECLARE x INT64", kind: KindUnsupported, at: "[2:1]"},
		{sql: "BEGIN\n  SELECT 1;\nEND;", kind: KindUnsupported, at: "[1:1]"},
		{sql: "BEGIN SELECT 1; EXCEPTION WHEN ERROR THEN SELECT @@error.message; END", kind: KindUnsupported, at: "[1:1]"},
		{sql: "IF (SELECT COUNT(*) FROM " + pat + ") > 0 THEN SELECT 1; ELSEIF TRUE THEN SELECT 2; ELSE SELECT 3; END IF", kind: KindUnsupported, at: "[1:1]"},
		{sql: "IF CASE WHEN TRUE THEN FALSE ELSE TRUE END THEN SELECT 1; END IF", kind: KindUnsupported, at: "[1:1]"},
		{sql: "CASE WHEN TRUE THEN SELECT 1; ELSE SELECT 2; END CASE", kind: KindUnsupported, at: "[1:1]"},
		{sql: "LOOP LEAVE; END LOOP", kind: KindUnsupported, at: "[1:1]"},
		{sql: "outer_loop: LOOP BREAK outer_loop; END LOOP outer_loop", kind: KindUnsupported, at: "[1:1]"},
		{sql: "WHILE FALSE DO SELECT 1; END WHILE", kind: KindUnsupported, at: "[1:1]"},
		{sql: "REPEAT SELECT 1; UNTIL TRUE END REPEAT", kind: KindUnsupported, at: "[1:1]"},
		{sql: "FOR r IN (SELECT subject_id FROM " + pat + ") DO SELECT r.subject_id; END FOR", kind: KindUnsupported, at: "[1:1]"},
		{sql: "BEGIN TRANSACTION; SELECT 1; COMMIT TRANSACTION", kind: KindUnsupported, at: "[1:1]"},
		{sql: "EXECUTE IMMEDIATE 'SELECT 1'", kind: KindUnsupported, at: "[1:1]"},
		{sql: "CALL mydataset.proc()", kind: KindUnsupported, at: "[1:1]"},
		{sql: "RAISE USING MESSAGE = 'stop'", kind: KindUnsupported, at: "[1:1]"},
		{sql: "ASSERT (SELECT COUNT(*) FROM " + pat + ") > 0 AS 'rows'", kind: KindUnsupported, at: "[1:1]"},
		// A query in the script that the linked parser refuses although
		// BigQuery runs it (QUALIFY alone): no verdict on the script.
		{sql: "DECLARE n INT64 DEFAULT 1;\nSELECT subject_id FROM " + pat + " QUALIFY ROW_NUMBER() OVER (ORDER BY subject_id) = n", kind: KindUnsupported, at: "[1:1]"},
		// BigQuery's parser rejects these: the model's syntax error.
		{sql: "DECLARE;\nSELECT 1", kind: KindInvalid, at: "[1:8]"},
		{sql: "DECLARE x INT64 DEFAULT 1\nSELECT x", kind: KindInvalid, at: "[2:1]"},
		{sql: "IF TRUE THEN SELECT 1; END", kind: KindInvalid, at: "[1:27]"},
		{sql: "SET = 1", kind: KindInvalid, at: "[1:5]"},
	} {
		out, binds, err := tr.TranslateChecked(c.sql)
		var te *Error
		if !errors.As(err, &te) {
			t.Errorf("%q: %q %q, %v; want a %v error", c.sql, out, binds, err, c.kind)
			continue
		}
		if te.Kind != c.kind || !strings.HasSuffix(te.Error(), " at "+c.at) {
			t.Errorf("%q: %v (kind %v), want kind %v at %s", c.sql, err, te.Kind, c.kind, c.at)
		}
		if c.kind == KindUnsupported && !strings.Contains(te.Msg, "procedural statements") {
			t.Errorf("%q: %q does not say what is unsupported", c.sql, te.Msg)
		}
		if ProceduralScript(c.sql) != true {
			t.Errorf("%q: not seen as a procedural script", c.sql)
		}
	}
	// Queries whose words look procedural are not scripts.
	for _, q := range []string{
		"SELECT IF(TRUE, 1, 2) AS `set`",
		"SELECT CASE WHEN TRUE THEN 1 ELSE 2 END AS begin_x",
		"WITH declare_ AS (SELECT 1 AS x) SELECT x FROM declare_",
		"(SELECT 1) UNION ALL (SELECT 2)",
		"SELECT 1;\nSELECT 2",
	} {
		if ProceduralScript(q) {
			t.Errorf("%q: taken for a procedural script", q)
		}
		if _, _, err := tr.TranslateChecked(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
}
