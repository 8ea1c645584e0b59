package conformance

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"

	"github.com/clinsql/clinsql/executor"
)

// TestParse reads a file in the compliance format: tables, defaults,
// parameters, column lists, and what makes a case not applicable.
func TestParse(t *testing.T) {
	const file = `# comment
[default required_features=ANALYTIC_FUNCTIONS]
[prepare_database]
CREATE TABLE T1 AS SELECT 1 AS a
--
ARRAY<STRUCT<a INT64>>[{1}]
==
[prepare_database]
CREATE TABLE T2
(
  k INT64,
  d DOUBLE
)
AS SELECT 1, 2.5;
--
ARRAY<STRUCT<k INT64, d DOUBLE>>[{1, 2.5}]
==
[name=reads_t1]
SELECT a FROM T1
--
ARRAY<STRUCT<a INT64>>[{1}]
==
[name=with_t2]
WITH x AS (SELECT CAST(d AS DOUBLE) AS d FROM t2) SELECT 'DOUBLE' AS s, d FROM x
--
ARRAY<STRUCT<s STRING, d DOUBLE>>[{"DOUBLE", 2.5}]
==
[parameters=1 as p]
[name=param]
SELECT @p
--
ERROR: generic::invalid_argument: x
==
[name=param_lines]
[parameters="1.5" as max_val,
            "-1.5" as min_val]
SELECT CAST(@max_val AS NUMERIC)
--
ARRAY<STRUCT<NUMERIC>>[{1.5}]
==
[name=int32]
SELECT CAST(1 AS INT32)
--
ARRAY<STRUCT<INT32>>[{1}]
==
[name=array_order]
[required_features=ARRAY_ORDERING]
SELECT a FROM UNNEST([[1], [0]]) AS a ORDER BY a
--
ARRAY<STRUCT<a ARRAY<INT64>>>[known order:{[0]}, {[1]}]
==
[name=array_equality]
[required_features=ARRAY_EQUALITY]
SELECT [1, NULL] = [1, NULL]
--
ARRAY<STRUCT<BOOL>>[{NULL}]
==
[name=range_frame]
SELECT SUM(a) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM T1
--
ARRAY<STRUCT<INT64>>[{1}]
==
[name=option_case]
[required_Features=ARRAY_ORDERING]
SELECT 1
--
ARRAY<STRUCT<INT64>>[{1}]
==
[name=analytic_approx]
SELECT APPROX_QUANTILES(x, 2) OVER () FROM UNNEST([1]) AS x
--
ARRAY<STRUCT<ARRAY<>>>[{ARRAY<INT64>[known order:1, 1, 1]}]
==
[name=approx_aggregate]
SELECT APPROX_QUANTILES(x, 2) FROM UNNEST([1]) AS x
--
ARRAY<STRUCT<ARRAY<>>>[{ARRAY<INT64>[known order:1, 1, 1]}]
==
[name=intersect_all]
SELECT 1 INTERSECT ALL SELECT 1
--
ARRAY<STRUCT<INT64>>[{1}]
==
[name=except_all]
SELECT 1 except
  all SELECT 2
--
ARRAY<STRUCT<INT64>>[{1}]
==
[name=except_distinct]
SELECT 1 EXCEPT DISTINCT SELECT 2
--
ARRAY<STRUCT<INT64>>[{1}]
`
	cases, err := Parse("x.test", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, skip, sql string }{
		{"reads_t1", "", "WITH T1 AS (SELECT 1 AS a)\nSELECT a FROM T1"},
		{"with_t2", "", "WITH T2 AS (SELECT CAST(NULL AS INT64) AS k, CAST(NULL AS FLOAT64) AS d FROM (SELECT 1) WHERE FALSE\nUNION ALL\nSELECT 1, 2.5),\nx AS (SELECT CAST(d AS FLOAT64) AS d FROM t2) SELECT 'DOUBLE' AS s, d FROM x"},
		{"param", "query parameters", ""},
		// An option may span lines: the compliance files list parameters
		// one a line inside one [parameters=...].
		{"param_lines", "query parameters", ""},
		{"int32", "type BigQuery lacks: INT32", ""},
		// BigQuery does not order arrays.
		{"array_order", "feature BigQuery lacks: ARRAY_ORDERING", ""},
		// BigQuery has no equality on arrays.
		{"array_equality", "feature BigQuery lacks: ARRAY_EQUALITY", ""},
		{"range_frame", "", ""},
		// Option names are case-insensitive: the option is no query text.
		{"option_case", "feature BigQuery lacks: ARRAY_ORDERING", ""},
		// BigQuery refuses an approximate aggregate with OVER.
		{"analytic_approx", "construct BigQuery rejects: an approximate aggregate with OVER", ""},
		{"approx_aggregate", "", ""},
		// BigQuery has INTERSECT and EXCEPT with DISTINCT only.
		{"intersect_all", "construct BigQuery rejects: INTERSECT ALL or EXCEPT ALL", ""},
		{"except_all", "construct BigQuery rejects: INTERSECT ALL or EXCEPT ALL", ""},
		{"except_distinct", "", ""},
	}
	if len(cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(cases), len(want))
	}
	for i, w := range want {
		c := cases[i]
		if c.Name != w.name || c.Skip != w.skip {
			t.Errorf("case %d: %s skip %q, want %s skip %q", i, c.Name, c.Skip, w.name, w.skip)
		}
		if w.sql != "" && c.SQL() != w.sql {
			t.Errorf("%s: SQL\n%s\nwant\n%s", c.Name, c.SQL(), w.sql)
		}
		if len(c.Features) == 0 || c.Features[len(c.Features)-1] != "ANALYTIC_FUNCTIONS" {
			t.Errorf("%s: features %v miss the file default", c.Name, c.Features)
		}
	}
}

func col(name, typ string) executor.Column {
	return executor.Column{Name: name, Type: executor.Type(typ)}
}

// TestCompare checks typed comparison: each row either agrees or names
// what differs.
func TestCompare(t *testing.T) {
	ts := time.Date(2014, 1, 1, 8, 0, 0, 0, time.UTC)
	rat := func(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
	for _, c := range []struct {
		name   string
		expect string
		cols   []executor.Column
		rows   [][]any
		agree  bool
	}{
		{"ints unordered", `ARRAY<STRUCT<INT64>>[unknown order:{1}, {2}]`, []executor.Column{col("a", "INT64")}, [][]any{{int64(2)}, {int64(1)}}, true},
		{"ints ordered", `ARRAY<STRUCT<INT64>>[known order:{1}, {2}]`, []executor.Column{col("a", "INT64")}, [][]any{{int64(2)}, {int64(1)}}, false},
		{"float tolerance", `ARRAY<STRUCT<DOUBLE>>[{0.30000000000000004}]`, []executor.Column{col("a", "FLOAT64")}, [][]any{{0.3}}, true},
		{"float differs", `ARRAY<STRUCT<DOUBLE>>[{0.31}]`, []executor.Column{col("a", "FLOAT64")}, [][]any{{0.3}}, false},
		{"nan", `ARRAY<STRUCT<DOUBLE>>[{nan}]`, []executor.Column{col("a", "FLOAT64")}, [][]any{{0.0}}, false},
		{"numeric type", `ARRAY<STRUCT<NUMERIC>>[{1.5}]`, []executor.Column{col("a", "FLOAT64")}, [][]any{{1.5}}, false},
		{"numeric exact", `ARRAY<STRUCT<NUMERIC>>[{1.50}]`, []executor.Column{col("a", "NUMERIC")}, [][]any{{rat("3/2")}}, true},
		{"string escapes", `ARRAY<STRUCT<STRING, BYTES>>[{"a\x41\n\'", b"\x00b"}]`, []executor.Column{col("a", "STRING"), col("b", "BYTES")}, [][]any{{"aA\n'", []byte{0, 'b'}}}, true},
		{"timestamp", `ARRAY<STRUCT<TIMESTAMP, DATE, DATETIME>>[{2014-01-01 08:00:00+00, 2014-01-01, 2014-01-01 12:30:00.5}]`,
			[]executor.Column{col("a", "TIMESTAMP"), col("b", "DATE"), col("c", "DATETIME")},
			[][]any{{ts, civil.Date{Year: 2014, Month: 1, Day: 1}, civil.DateTime{Date: civil.Date{Year: 2014, Month: 1, Day: 1}, Time: civil.Time{Hour: 12, Minute: 30, Nanosecond: 5e8}}}}, true},
		{"array in struct, own type", `ARRAY<STRUCT<ARRAY<>>>[{ARRAY<INT64>[unknown order:1, NULL]}]`, []executor.Column{col("a", "ARRAY<INT64>")}, [][]any{{[]any{nil, int64(1)}}}, true},
		{"null array", `ARRAY<STRUCT<ARRAY<>>>[{ARRAY<INT64>(NULL)}]`, []executor.Column{col("a", "ARRAY<INT64>")}, [][]any{{nil}}, true},
		{"empty vs null array", `ARRAY<STRUCT<ARRAY<>>>[{ARRAY<INT64>[]}]`, []executor.Column{col("a", "ARRAY<INT64>")}, [][]any{{nil}}, false},
		{"struct", `ARRAY<STRUCT<STRUCT<a INT64, b STRING>>>[{{1, "x"}}]`, []executor.Column{col("s", "STRUCT<a INT64, b STRING>")},
			[][]any{{executor.Struct{{Name: "a", Value: int64(1)}, {Name: "b", Value: "x"}}}}, true},
		{"interval fraction", `ARRAY<STRUCT<INTERVAL>>[{0-2 18 5:0:0.200}]`, []executor.Column{col("a", "INTERVAL")}, [][]any{{"0-2 18 5:0:0.2"}}, true},
		{"note after value", "ARRAY<STRUCT<INT64>>[{1}]\n\nNOTE: Reference implementation reports non-determinism.", []executor.Column{col("a", "INT64")}, [][]any{{int64(1)}}, true},
	} {
		exp, err := ParseExpected(c.expect)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		d := exp.Compare(&executor.Result{Columns: c.cols, Rows: c.rows})
		if (d == "") != c.agree {
			t.Errorf("%s: difference %q, want agree=%v", c.name, d, c.agree)
		}
	}
}

// TestUsage: functions (with SAFE.), constructs, and words that take a
// bracket without being functions.
func TestUsage(t *testing.T) {
	got := strings.Join(Usage(`WITH t AS (SELECT SAFE.LOG(x) AS l, COUNT(*) OVER (PARTITION BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n FROM u WHERE y IN (SELECT 1))
		SELECT DATE_DIFF(d, DATE '2020-01-01', DAY), arr[OFFSET(0)] FROM t QUALIFY n = 1`), ",")
	const want = "COUNT,DATE literal,DATE_DIFF,IN subquery,LOG,OVER,QUALIFY,ROWS frame,SAFE.LOG,subscript"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A comparison that bounds the current time above by a literal date is
// TRUE only until that date: after it the expected TRUE is no longer
// BigQuery's answer, and the case is not applicable. Lower bounds, and
// upper bounds still ahead, stay applicable.
func TestExpiredClockBound(t *testing.T) {
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		query string
		want  bool
	}{
		{"SELECT current_datetime <= datetime '2025-12-31 23:59:59.999999'", true},
		{"SELECT CURRENT_DATE() < DATE '2026-01-01'", true},
		{"SELECT TIMESTAMP '2020-01-01 00:00:00+00' >= CURRENT_TIMESTAMP()", true},
		{"SELECT current_datetime >= datetime '2016-01-08 12:02:00'", false},
		{"SELECT current_datetime <= datetime '2030-01-01 00:00:00'", false},
		{"SELECT DATE '2020-01-01' <= CURRENT_DATE", false},
		{"SELECT d <= DATE '2020-01-01' FROM t", false},
	}
	for _, c := range cases {
		if got := expiredClockBound(c.query, now); got != c.want {
			t.Errorf("expiredClockBound(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}
