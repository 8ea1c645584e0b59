package bqsql

import (
	"strings"
	"testing"
)

// The statement model types expressions as BigQuery does: catalogue
// columns through their range variables, CTE columns, outer queries'
// columns, star expansions, UNNEST elements, set operations, and every
// operator and function from its arguments (BigQuery's reference return
// types).
func TestModelTypes(t *testing.T) {
	const p, a, i = "`physionet-data.mimiciv_3_1_hosp.patients`", "`physionet-data.mimiciv_3_1_hosp.admissions`", "`physionet-data.mimiciv_3_1_icu.icustays`"
	cases := []struct {
		sql, expr, want string
		nth             int // which occurrence of expr (0: the first)
	}{
		{sql: "SELECT dod FROM " + p, expr: "dod", want: "DATE"},
		{sql: "SELECT x.dod FROM " + p + " x", expr: "x.dod", want: "DATE"},
		{sql: "SELECT EXTRACT(YEAR FROM dod) FROM " + p, expr: "EXTRACT(YEAR FROM dod)", want: "INT64"},
		{sql: "SELECT EXTRACT(DATE FROM admittime) FROM " + a, expr: "EXTRACT(DATE FROM admittime)", want: "DATE"},
		// A CTE's columns, by alias and by implicit name.
		{sql: "WITH c AS (SELECT subject_id, MIN(admittime) AS first_adm FROM " + a + " GROUP BY subject_id) SELECT first_adm FROM c", expr: "first_adm", nth: 1, want: "DATETIME"},
		{sql: "WITH c AS (SELECT * FROM " + p + ") SELECT dod FROM c", expr: "dod", want: "DATE"},
		// An outer query's column in a correlated subquery.
		{sql: "SELECT (SELECT COUNT(*) FROM " + a + " ad WHERE ad.admittime > DATE_ADD(pt.dod, INTERVAL 1 DAY)) FROM " + p + " pt", expr: "pt.dod", want: "DATE"},
		{sql: "SELECT (SELECT MAX(DATE_ADD(dod, INTERVAL 1 DAY)) FROM UNNEST([1]) u) FROM " + p, expr: "DATE_ADD(dod, INTERVAL 1 DAY)", want: "DATE"},
		// A name that several FROM items hold is ambiguous: unknown.
		{sql: "SELECT subject_id FROM " + p + " JOIN " + a + " USING (subject_id)", expr: "subject_id", want: ""},
		// Operators and functions.
		{sql: "SELECT anchor_age / 2 FROM " + p, expr: "anchor_age / 2", want: "FLOAT64"},
		{sql: "SELECT anchor_age + 2 FROM " + p, expr: "anchor_age + 2", want: "INT64"},
		{sql: "SELECT ROUND(CAST(anchor_age AS NUMERIC), 2) FROM " + p, expr: "ROUND(CAST(anchor_age AS NUMERIC), 2)", want: "NUMERIC"},
		{sql: "SELECT ROUND(anchor_age, 2) FROM " + p, expr: "ROUND(anchor_age, 2)", want: "FLOAT64"},
		{sql: "SELECT AVG(anchor_age), SUM(anchor_age) FROM " + p, expr: "AVG(anchor_age)", want: "FLOAT64"},
		{sql: "SELECT AVG(anchor_age), SUM(anchor_age) FROM " + p, expr: "SUM(anchor_age)", want: "INT64"},
		{sql: "SELECT DATE_ADD(admittime, INTERVAL 1 DAY) FROM " + a, expr: "DATE_ADD(admittime, INTERVAL 1 DAY)", want: "DATETIME"},
		{sql: "SELECT TIMESTAMP_ADD(admittime, INTERVAL 1 HOUR) FROM " + a, expr: "TIMESTAMP_ADD(admittime, INTERVAL 1 HOUR)", want: "DATETIME"},
		{sql: "SELECT TIMESTAMP_TRUNC(TIMESTAMP '2020-01-01', DAY)", expr: "TIMESTAMP_TRUNC(TIMESTAMP '2020-01-01', DAY)", want: "TIMESTAMP"},
		{sql: "SELECT COALESCE(dod, '2020-01-01') FROM " + p, expr: "COALESCE(dod, '2020-01-01')", want: "DATE"},
		{sql: "SELECT CASE WHEN anchor_age > 1 THEN 1 ELSE 2.5 END FROM " + p, expr: "CASE WHEN anchor_age > 1 THEN 1 ELSE 2.5 END", want: "FLOAT64"},
		{sql: "SELECT NTILE(4) OVER (ORDER BY anchor_age) AS q FROM " + p, expr: "NTILE(4) OVER (ORDER BY anchor_age)", want: "INT64"},
		{sql: "SELECT ARRAY_AGG(gender) FROM " + p, expr: "ARRAY_AGG(gender)", want: "ARRAY<STRING>"},
		{sql: "SELECT STRUCT(gender, anchor_age AS age) FROM " + p, expr: "STRUCT(gender, anchor_age AS age)", want: "STRUCT<gender STRING, age INT64>"},
		{sql: "SELECT s.age FROM (SELECT STRUCT(anchor_age AS age) AS s FROM " + p + ")", expr: "s.age", want: "INT64"},
		{sql: "SELECT x FROM UNNEST([DATE '2020-01-01']) AS x", expr: "x", want: "DATE"},
		{sql: "SELECT los FROM " + i + " UNION ALL SELECT 1", expr: "los", want: "FLOAT64"},
		// ORDER BY sees the select list's names first.
		{sql: "SELECT anchor_age / 2 AS dod FROM " + p + " ORDER BY dod", expr: "dod", nth: 1, want: "FLOAT64"},
		// A bracketed expression is typed through its brackets.
		{sql: "SELECT (anchor_age) FROM " + p, expr: "(anchor_age)", want: "INT64"},
	}
	for _, c := range cases {
		m := buildModel(c.sql, testCatalog)
		if m == nil {
			t.Errorf("%s: no model", c.sql)
			continue
		}
		start := -1
		for k, from := 0, 0; k <= c.nth; k++ {
			j := strings.Index(c.sql[from:], c.expr)
			if j < 0 {
				t.Fatalf("%q not in %q", c.expr, c.sql)
			}
			start = from + j
			from = start + 1
		}
		got, _ := m.typeAt(start, start+len(c.expr))
		if got != c.want {
			t.Errorf("%s\n  type of %s = %q, want %q", c.sql, c.expr, got, c.want)
		}
	}
}

// Statements the parser rejects, or too large ones, have no model; the
// translation falls back.
func TestModelAbsent(t *testing.T) {
	if m := buildModel("SELECT FROM WHERE", testCatalog); m != nil {
		t.Error("a syntax error built a model")
	}
	if m := buildModel("SELECT '"+strings.Repeat("x", maxModelBytes)+"'", testCatalog); m != nil {
		t.Error("an oversized statement built a model")
	}
}
