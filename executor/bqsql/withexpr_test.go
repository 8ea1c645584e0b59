package bqsql

import "testing"

// BigQuery's WITH expression (withexpr.go). Expected values follow the
// GoogleSQL reference's WITH expression section (its CONCAT and RAND
// examples) and its rules: variables are evaluated once, in order, later
// ones may use earlier ones, and a variable hides a column of its name.
func TestWithExpressionRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "reference example", bq: `SELECT WITH(a AS '123', b AS CONCAT(a, '456'), c AS '789', CONCAT(b, c)) AS result`, want: "123456789"},
		{name: "later variables use earlier ones", bq: `SELECT WITH(a AS 1, b AS a + 1, a * 10 + b)`, want: "12"},
		{name: "a variable hides a column, not before its definition", bq: `SELECT WITH(y AS x, x AS 5, x + y) FROM UNNEST([7]) AS x`, want: "12"},
		{name: "nested, the inner hides the outer", bq: `SELECT WITH(a AS 2, WITH(a AS a + 1, a * 10) + a)`, want: "32"},
		{name: "field access and alias are not references", bq: `SELECT WITH(a AS STRUCT(4 AS a), STRUCT(a.a AS a)).a`, want: "4"},
		{name: "aggregate variable spread with .*", bq: `SELECT WITH(x AS ARRAY_AGG(x RESPECT NULLS ORDER BY x),
			STRUCT(ARRAY_LENGTH(x) AS arr_len, x[OFFSET(0)] AS idx0, x[OFFSET(1)] AS idx1)).* FROM UNNEST([3, NULL]) AS x`,
			want: "2 | NULL | 3", types: "BIGINT | INTEGER | INTEGER"},
		{name: "grouped", bq: `SELECT g, WITH(n AS COUNT(*), s AS SUM(v), s / n) FROM UNNEST([STRUCT(1 AS g, 2 AS v), (1, 4), (2, 5)]) GROUP BY g ORDER BY g`,
			want: "1 | 3\n2 | 5"},
		{name: "a literal variable need not be used", bq: `SELECT WITH(a AS 1, 3)`, want: "3"},
		{name: "RAND used once", bq: `SELECT WITH(a AS RAND(), a < 1)`, want: "true"},
		{name: "variable error surfaces", bq: `SELECT WITH(a AS 1 / 0, a + 1)`, err: errRuntime},

		// Inlining would not be exact: refused.
		{name: "RAND copied twice", bq: `SELECT WITH(a AS RAND(), a - a) AS result`, err: ErrUnsupported},
		{name: "RAND copied twice through a later variable", bq: `SELECT WITH(a AS RAND(), b AS a * 2, b + b)`, err: ErrUnsupported},
		{name: "unused variable that may fail", bq: `SELECT WITH(a AS 1 / 0, 3)`, err: ErrUnsupported},
		{name: "variable only under IF", bq: `SELECT WITH(a AS 1 / 0, IF(FALSE, a, 0))`, err: ErrUnsupported},
		{name: "variable only under CASE", bq: `SELECT WITH(a AS 1 / 0, CASE WHEN FALSE THEN a END)`, err: ErrUnsupported},
		{name: "variable only under AND", bq: `SELECT WITH(a AS 1 / 0 > 0, FALSE AND a)`, err: ErrUnsupported},
		{name: "variable through an unused variable", bq: `SELECT WITH(a AS 1 / 0, b AS a, 3)`, err: ErrUnsupported},
		{name: "variable inside an aggregate", bq: `SELECT WITH(a AS x, SUM(a)) FROM UNNEST([1]) AS x`, err: ErrUnsupported},
		{name: "subquery inside", bq: `SELECT WITH(a AS 1, (SELECT a))`, err: ErrUnsupported},

		// Not BigQuery.
		{name: "no result", bq: `SELECT WITH(a AS 1)`, err: ErrInvalid},
		{name: "no variable", bq: `SELECT WITH(1 + 2, 3)`, err: ErrInvalid},
	})
}

// (expr).* spreads a STRUCT's fields as columns; BigQuery rejects it on
// any other type.
func TestDotStarRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "struct", bq: `SELECT (STRUCT(1 AS a, 'x' AS b)).*`, want: "1 | x"},
		{name: "null struct", bq: `SELECT (CAST(NULL AS STRUCT<a INT64, b STRING>)).*`, want: "NULL | NULL"},
		{name: "array is no struct", bq: `SELECT ([1, 2]).*`, err: errRuntime},
		{name: "except", bq: `SELECT (STRUCT(1 AS a, 2 AS b)).* EXCEPT (a)`, err: ErrUnsupported},
	})
}

// A query body that is a bracketed query with its own WITH clause
// (GoogleSQL query syntax: query_expr may be a parenthesised query_expr,
// itself with a WITH clause).
func TestNestedWithClauseRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "compliance bug197119610", bq: `WITH table1 AS (SELECT 1 AS col1)
			(WITH table2 AS (SELECT 1 AS col2) SELECT col2 FROM table2);`, want: "1"},
		{name: "inner reads outer", bq: `WITH a AS (SELECT 4 AS x), b AS (SELECT x + 1 AS y FROM a)
			(WITH c AS (SELECT y * 2 AS z FROM b) SELECT z FROM c)`, want: "10"},
		{name: "nested twice", bq: `WITH a AS (SELECT 1 AS x) (WITH b AS (SELECT 2 AS x) (WITH c AS (SELECT 3 AS x)
			SELECT a.x + b.x + c.x FROM a, b, c))`, want: "6"},
		{name: "in a subquery", bq: `SELECT (WITH a AS (SELECT 1 AS x) (WITH b AS (SELECT 2 AS y) SELECT y FROM b))`, want: "2"},
	})
}
