package bqsql

import "testing"

// TestStructComparisonRules: BigQuery compares STRUCTs field by field in
// order, ignoring names, with NULL where a NULL field decides (the
// GoogleSQL reference's comparison operators; compliance cases
// struct_queries.test and case_statement_queries.test).
func TestStructComparisonRules(t *testing.T) {
	const rows = `FROM (SELECT STRUCT(1 AS x, 2 AS y) AS s UNION ALL SELECT STRUCT(NULL AS x, 2 AS y) AS s
		UNION ALL SELECT STRUCT(3 AS x, 2 AS y) AS s) `
	runRuleCases(t, []ruleCase{
		{name: "field names are ignored",
			bq: `SELECT STRUCT(3 AS a, 5.5 AS b) = STRUCT(3 AS c, 5.5 AS d), STRUCT(3 AS a) != STRUCT(4 AS a)`, want: "true | true"},
		{name: "a NULL field makes equality NULL unless another field differs",
			bq: `SELECT (1, NULL) = (1, 2), (1, NULL) = (2, 2), (1, NULL) != (1, 2), (1, NULL) <> (2, 2)`, want: "NULL | false | NULL | true"},
		// IS [NOT] DISTINCT FROM: not distinct when both are NULL or every
		// field pair is not distinct, names ignored (operators reference).
		{name: "IS DISTINCT FROM ignores field names; NULL fields are not distinct",
			bq:   `SELECT STRUCT(1 AS x, 2 AS y) IS DISTINCT FROM STRUCT(1 AS a, 2 AS b), STRUCT(1 AS x, 2 AS y) IS DISTINCT FROM NULL, (1, NULL) IS NOT DISTINCT FROM STRUCT(1 AS a, NULL AS b), NULL IS NOT DISTINCT FROM STRUCT(NULL AS a), (1, STRUCT(2 AS q)) IS DISTINCT FROM (1, STRUCT(3 AS z))`,
			want: "false | true | true | false | true"},
		{name: "IS DISTINCT FROM a STRUCT literal over rows",
			bq:   `SELECT s IS DISTINCT FROM STRUCT(NULL AS a, 2 AS b), STRUCT(1 AS a, 2 AS b) IS NOT DISTINCT FROM s ` + rows + `ORDER BY s.x`,
			want: "false | false\ntrue | true\ntrue | false"},
		{name: "IN a list of STRUCTs",
			bq: `SELECT STRUCT(3, 5) IN (STRUCT(3, 5), STRUCT(4, 6)), (1, NULL) IN ((1, 2)), (1, 2) NOT IN ((1, 3), (2, 2))`, want: "true | NULL | true"},
		{name: "a STRUCT literal IN UNNEST(array), nested fields field by field",
			bq:   `SELECT (1, ('this', 3)) IN UNNEST([(1, ('that', 3)), (1, ('this', 3))]), (1, ('this', NULL)) IN UNNEST([(1, ('that', 3)), (2, ('this', 3))]), (1, ('this', NULL)) IN UNNEST([(1, ('this', 3))]), (5, 5) IN UNNEST([(1, 3), NULL]), (1, 2) NOT IN UNNEST([(1, 2)])`,
			want: "true | false | NULL | NULL | false"},
		{name: "simple CASE with STRUCT values does not match a NULL field",
			bq:   `SELECT CASE s WHEN STRUCT(1, 2) THEN 1 WHEN STRUCT(NULL, 2) THEN 2 ELSE 3 END ` + rows + `ORDER BY s.x`,
			want: "3\n1\n3"},
		{name: "NULLIF with a STRUCT keeps a row whose comparison is NULL",
			bq:   `SELECT NULLIF(s, (NULL, 2)) IS NULL, NULLIF(s, (1, 2)) IS NULL ` + rows + `ORDER BY s.x`,
			want: "false | false\nfalse | true\nfalse | false"},
		{name: "a value table's alias is its STRUCT row in a simple CASE",
			bq:   `SELECT CASE ct WHEN (1, 1) THEN 11 WHEN (2, 2) THEN 22 ELSE 0 END, CASE ct WHEN ct THEN true ELSE false END FROM (SELECT AS STRUCT 2 a, 2 b) AS ct`,
			want: "22 | true"},
		{name: "a value table in FROM reads as a table of its fields",
			bq:   `SELECT ct.a, ct.b, (SELECT AS STRUCT 1 a, 'z' c).c FROM (SELECT AS STRUCT 1 a, 2 AS b) AS ct`,
			want: "1 | 2 | z"},
		{name: "a range variable compared with a scalar is still the model's error",
			bq:  `WITH peak AS (SELECT 1 AS peak) SELECT CASE peak WHEN 1 THEN 2 END FROM peak`,
			err: ErrInvalid},
	})
}

// TestTupleArrayRules: a tuple (a, b) is a STRUCT with anonymous fields;
// in an array (compliance case groupby_array_struct) it must be readable
// and group like BigQuery's, and after a named STRUCT it takes its names.
func TestTupleArrayRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "an array of tuples", bq: `SELECT [(1, true), (2, false)][OFFSET(1)]._field_1, ARRAY_LENGTH([(1, 'a')])`, want: "2 | 1"},
		{name: "grouping by an array of tuples",
			bq:   `SELECT ARRAY_LENGTH(a), COUNT(*) FROM (SELECT [(MOD(x, 2), x > 1)] AS a FROM UNNEST([1, 2, 3, 5]) AS x) GROUP BY a ORDER BY 2`,
			want: "1 | 1\n1 | 1\n1 | 2"},
		{name: "a tuple in the SELECT list is a STRUCT",
			bq:   `SELECT x._field_2, x IN (SELECT u FROM UNNEST([(1, 1), (1, 2)]) AS u) FROM (SELECT (1, 1) AS x UNION ALL SELECT (2, 2)) ORDER BY 1`,
			want: "1 | true\n2 | false"},
		{name: "a tuple after a named STRUCT takes its names",
			bq:   `SELECT e.x, e.b FROM UNNEST([STRUCT(1 AS x, true AS b), (2, false)]) AS e ORDER BY e.x`,
			want: "1 | true\n2 | false"},
	})
}

// TestQuantifiedLikeRowsRules: x LIKE ANY|ALL over UNNEST(array) or a
// subquery (GoogleSQL reference, quantified LIKE; compliance files
// like_any.test and like_all.test): no pattern gives FALSE for ANY, a NULL
// comparison NULL unless another decides.
func TestQuantifiedLikeRowsRules(t *testing.T) {
	const vals = ` FROM UNNEST([NULL, 'Value1', 'Value2']) AS v ORDER BY v`
	runRuleCases(t, []ruleCase{
		{name: "ANY over arrays",
			bq:   `SELECT v, v LIKE ANY UNNEST(CAST(NULL AS ARRAY<STRING>)), v LIKE ANY UNNEST([NULL, 'a', 'Value1']), v LIKE ANY UNNEST(['a', NULL])` + vals,
			want: "NULL | false | NULL | NULL\nValue1 | false | true | NULL\nValue2 | false | NULL | NULL"},
		{name: "ALL over an array of expressions",
			bq:   `SELECT v, v LIKE ALL UNNEST([v, 'Value1']), v LIKE ALL UNNEST([CONCAT(SUBSTR(v, 0, 1), '%'), 'V%'])` + vals,
			want: "NULL | NULL | NULL\nValue1 | true | true\nValue2 | false | true"},
		{name: "NOT LIKE ANY over a subquery",
			bq:   `SELECT v, v LIKE ANY (SELECT p FROM UNNEST([NULL, 'Value1']) AS p), v NOT LIKE ANY (SELECT p FROM UNNEST(['Value1', 'Value2', NULL]) AS p)` + vals,
			want: "NULL | NULL | NULL\nValue1 | true | true\nValue2 | NULL | true"},
		{name: "a backslash escapes", bq: `SELECT 'a%' LIKE ANY UNNEST(['a\\%']), 'ab' LIKE ANY UNNEST(['a\\%'])`, want: "true | false"},
	})
}
