package bqsql

import "testing"

// BigQuery's APPROX_TOP_COUNT counts a month, 30 days and 720 hours as one
// value (they compare equal) and returns one of them, unspecified which;
// the engine counted them apart (a wrong count). It refuses instead, also
// where the bridge cannot tell the argument is an INTERVAL.
func TestApproxTopCountOfIntervalsRules(t *testing.T) {
	const iv = `WITH t AS (SELECT 1 AS id, INTERVAL 1 MONTH AS v UNION ALL SELECT 2, INTERVAL 30 DAY UNION ALL SELECT 3, INTERVAL 720 HOUR UNION ALL SELECT 4, INTERVAL 1 DAY) `
	runRuleCases(t, []ruleCase{
		{name: "typed column", bq: iv + `SELECT APPROX_TOP_COUNT(v, 1) FROM t`, err: errRuntime},
		{name: "untyped expression", bq: iv + `SELECT APPROX_TOP_COUNT(IF(id > 0, v, NULL), 1) FROM t`, err: errRuntime},
		{name: "over no rows", bq: iv + `SELECT APPROX_TOP_COUNT(v, 1) FROM t WHERE id > 9`, err: errRuntime},
		// Other types still count.
		{name: "numbers", bq: `SELECT APPROX_TOP_COUNT(n, 1) FROM UNNEST([30, 30, 720]) n`, want: "[{count: 2, value: 30}]"},
	})
	db := openDuck(t)
	if msg, unsupported := explainedError(t, db, iv+`SELECT APPROX_TOP_COUNT(IF(id > 0, v, NULL), 1) FROM t`); msg != "unsupported in the embedded engine: APPROX_TOP_COUNT of INTERVAL values is not supported" || !unsupported {
		t.Errorf("Explain = %q, %v", msg, unsupported)
	}
}
