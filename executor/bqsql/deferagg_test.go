package bqsql

import "testing"

// An aggregate in a branch BigQuery does not take raises nothing (the
// compliance test pivot_conditional_evaluation: IF(SUM(x) >= 0, SUM(x),
// SUM(1/x)) where some x is 0 is SUM(x)); the engine raised the division
// by zero. Where the branch is taken, it still fails.
func TestDeferredAggregateErrorRules(t *testing.T) {
	const xs = ` FROM UNNEST([0, 1, 2]) AS x`
	runRuleCases(t, []ruleCase{
		{name: "IF branch not taken", bq: `SELECT IF(SUM(x) >= 0, SUM(x), SUM(1/x))` + xs, want: "3"},
		{name: "IF branch taken", bq: `SELECT IF(SUM(x) < 0, SUM(x), SUM(1/x))` + xs, err: errRuntime},
		{name: "CASE", bq: `SELECT CASE WHEN COUNT(*) > 5 THEN AVG(1/x) WHEN MIN(x) > 0 THEN MAX(1/x) ELSE -1 END` + xs, want: "-1"},
		{name: "COALESCE and IFNULL", bq: `SELECT COALESCE(MAX(x), SUM(1/x)), IFNULL(MIN(x), AVG(10/x))` + xs, want: "2 | 0"},
		{name: "per group", bq: `SELECT x, IF(x = 0, NULL, SUM(1/x))` + xs + ` GROUP BY x ORDER BY x`, want: "0 | NULL\n1 | 1\n2 | 0.5"},
		{name: "a group taking the branch fails", bq: `SELECT x, IF(x = 1, NULL, SUM(1/x))` + xs + ` GROUP BY x ORDER BY x`, err: errRuntime},
		{name: "rows without error", bq: `SELECT IF(COUNT(*) > 0, SUM(6/x), NULL) FROM UNNEST([1, 2, 3, NULL]) AS x`, want: "11"},
		// Outside a branch, and with a volatile argument (which try()
		// refuses), aggregates are computed as before.
		{name: "no branch", bq: `SELECT SUM(1/x)` + xs, err: errRuntime},
		{name: "volatile argument", bq: `SELECT IF(COUNT(*) > 0, 1, SUM(x * RAND()))` + xs, want: "1"},
		{name: "subquery argument", bq: `SELECT IF(COUNT(*) > 0, SUM((SELECT MAX(y) FROM UNNEST([1, 2]) AS y WHERE y = x)), 0)` + xs, want: "3"},
		// The select-list alias of such an expression can be named in
		// HAVING, GROUP BY and ORDER BY, as in BigQuery.
		{name: "HAVING names the alias", bq: `SELECT x, CASE WHEN x = 0 THEN 0 ELSE SUM(6/x) END AS s` + xs + ` GROUP BY x HAVING s >= 0 ORDER BY s`, want: "0 | 0\n2 | 3\n1 | 6"},
		{name: "other aggregates", bq: `SELECT IF(COUNT(*) > 0, COUNT(DISTINCT CONCAT('a', CAST(x AS STRING))), 0), CASE WHEN COUNT(*) > 0 THEN STRING_AGG(CAST(x AS STRING), ',' ORDER BY x) END, IF(TRUE, ARRAY_AGG(x * 2 ORDER BY x), NULL)` + xs,
			want: "3 | 0,1,2 | [0, 2, 4]"},
	})
}

// A deferred division by zero keeps BigQuery's "division by zero" prefix
// (RelaxDivision reruns it on a sample database); another failure is the
// model's error too.
func TestDeferredAggregateErrorMessages(t *testing.T) {
	db := openDuck(t)
	msg, unsupported := explainedError(t, db, `SELECT IF(SUM(x) < 0, 0, SUM(1/x)) FROM UNNEST([0, 1]) AS x`)
	if msg != "division by zero: in an argument of SUM" || unsupported {
		t.Errorf("Explain = %q, %v", msg, unsupported)
	}
	if _, _, ok := RelaxDivision(msg); !ok {
		t.Errorf("RelaxDivision(%q) refused", msg)
	}
	msg, unsupported = explainedError(t, db, `SELECT IF(COUNT(*) < 0, 0, SUM(CAST(s AS INT64))) FROM UNNEST(['1', 'x']) AS s`)
	if msg != "An argument of SUM failed on a row (such as an invalid cast or an overflow)" || unsupported {
		t.Errorf("Explain = %q, %v", msg, unsupported)
	}
}
