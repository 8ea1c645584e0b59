package bigquery

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"testing"
	"time"

	"cloud.google.com/go/civil"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/executortest"
	"github.com/clinsql/clinsql/internal/bqfake"
)

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

// Every BigQuery type, sent in the API's wire form, comes back as the
// executor's Go type with the exact value and the GoogleSQL type name.
func TestValueTypes(t *testing.T) {
	ts := time.Date(2180, 7, 23, 12, 34, 56, 123456000, time.UTC)
	structFields := []bqfake.Field{{Name: "a", Type: "INTEGER"}, {Name: "b", Type: "STRING", Mode: "REPEATED"}}
	cases := []struct {
		name     string
		field    bqfake.Field
		cell     any
		wantType executor.Type
		want     any
	}{
		{"int64 max", bqfake.Field{Type: "INTEGER"}, "9223372036854775807", "INT64", int64(math.MaxInt64)},
		{"int64 min", bqfake.Field{Type: "INTEGER"}, "-9223372036854775808", "INT64", int64(math.MinInt64)},
		{"float", bqfake.Field{Type: "FLOAT"}, "0.1", "FLOAT64", 0.1},
		{"float exponent", bqfake.Field{Type: "FLOAT"}, "1.7976931348623157E308", "FLOAT64", math.MaxFloat64},
		{"float -inf", bqfake.Field{Type: "FLOAT"}, "-Infinity", "FLOAT64", math.Inf(-1)},
		{"numeric", bqfake.Field{Type: "NUMERIC"}, "-99999999999999999999999999999.999999999", "NUMERIC", rat("-99999999999999999999999999999.999999999")},
		{"numeric tenth", bqfake.Field{Type: "NUMERIC"}, "0.1", "NUMERIC", rat("1/10")},
		{"bignumeric", bqfake.Field{Type: "BIGNUMERIC"}, "578960446186580977117854925043439539266.34992332820282019728792003956564819967", "BIGNUMERIC",
			rat("578960446186580977117854925043439539266.34992332820282019728792003956564819967")},
		{"bool", bqfake.Field{Type: "BOOLEAN"}, "true", "BOOL", true},
		{"string", bqfake.Field{Type: "STRING"}, "Lévy–Jennings ≥ 5 µg", "STRING", "Lévy–Jennings ≥ 5 µg"},
		{"bytes", bqfake.Field{Type: "BYTES"}, base64.StdEncoding.EncodeToString([]byte{0, 1, 0xfe, 0xff}), "BYTES", []byte{0, 1, 0xfe, 0xff}},
		{"date", bqfake.Field{Type: "DATE"}, "2180-07-23", "DATE", civil.Date{Year: 2180, Month: 7, Day: 23}},
		{"datetime", bqfake.Field{Type: "DATETIME"}, "2180-07-23T12:34:56.123456", "DATETIME",
			civil.DateTime{Date: civil.Date{Year: 2180, Month: 7, Day: 23}, Time: civil.Time{Hour: 12, Minute: 34, Second: 56, Nanosecond: 123456000}}},
		{"time", bqfake.Field{Type: "TIME"}, "23:59:59.999999", "TIME", civil.Time{Hour: 23, Minute: 59, Second: 59, Nanosecond: 999999000}},
		{"timestamp", bqfake.Field{Type: "TIMESTAMP"}, bqfake.Timestamp(ts), "TIMESTAMP", ts},
		{"interval", bqfake.Field{Type: "INTERVAL"}, "1-2 3 4:5:6.789", "INTERVAL", "1-2 3 4:5:6.789"},
		{"json", bqfake.Field{Type: "JSON"}, `{"a":[1,2.5]}`, "JSON", `{"a":[1,2.5]}`},
		{"geography", bqfake.Field{Type: "GEOGRAPHY"}, "POINT(1 2)", "GEOGRAPHY", "POINT(1 2)"},
		{"array", bqfake.Field{Type: "INTEGER", Mode: "REPEATED"}, []any{"1", "-2"}, "ARRAY<INT64>", []any{int64(1), int64(-2)}},
		{"empty array", bqfake.Field{Type: "STRING", Mode: "REPEATED"}, []any{}, "ARRAY<STRING>", []any{}},
		{"null array", bqfake.Field{Type: "STRING", Mode: "REPEATED"}, nil, "ARRAY<STRING>", []any{}},
		{"struct", bqfake.Field{Type: "RECORD", Fields: structFields}, bqfake.Record{"7", []any{"x", "y"}}, "STRUCT<a INT64, b ARRAY<STRING>>",
			executor.Struct{{Name: "a", Value: int64(7)}, {Name: "b", Value: []any{"x", "y"}}}},
		{"struct with null", bqfake.Field{Type: "RECORD", Fields: structFields}, bqfake.Record{nil, []any{}}, "STRUCT<a INT64, b ARRAY<STRING>>",
			executor.Struct{{Name: "a", Value: nil}, {Name: "b", Value: []any{}}}},
		{"array of struct", bqfake.Field{Type: "RECORD", Mode: "REPEATED", Fields: structFields}, []any{bqfake.Record{"1", []any{"p"}}},
			"ARRAY<STRUCT<a INT64, b ARRAY<STRING>>>", []any{executor.Struct{{Name: "a", Value: int64(1)}, {Name: "b", Value: []any{"p"}}}}},
		{"quantiles", bqfake.Field{Type: "FLOAT", Mode: "REPEATED"}, []any{"36.6", "37.2", "39.05"}, "ARRAY<FLOAT64>", []any{36.6, 37.2, 39.05}},
	}
	for _, typ := range []string{"INTEGER", "FLOAT", "NUMERIC", "BIGNUMERIC", "BOOLEAN", "STRING", "BYTES", "DATE", "DATETIME", "TIME", "TIMESTAMP", "INTERVAL", "JSON", "RECORD"} {
		f := bqfake.Field{Type: typ}
		if typ == "RECORD" {
			f.Fields = structFields
		}
		cases = append(cases, struct {
			name     string
			field    bqfake.Field
			cell     any
			wantType executor.Type
			want     any
		}{"null " + typ, f, nil, "", nil})
	}

	f := newFixture(t, nil)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sql := fmt.Sprintf("SELECT v FROM t%d", i)
			fd := c.field
			fd.Name = "v"
			f.srv.Script(sql, bqfake.Query{Schema: []bqfake.Field{fd}, Rows: [][]any{{c.cell}}})
			res, err := f.eng.Query(context.Background(), sql)
			if err != nil {
				t.Fatal(err)
			}
			if c.wantType != "" && res.Columns[0].Type != c.wantType {
				t.Errorf("type %s, want %s", res.Columns[0].Type, c.wantType)
			}
			got := res.Rows[0][0]
			if !executortest.EqualValue(got, c.want) {
				t.Errorf("value %#v (%T), want %#v (%T)", got, got, c.want, c.want)
			}
		})
	}
}

// Timestamps decode to the microsecond whichever side of the epoch.
func TestTimestampPrecision(t *testing.T) {
	f := newFixture(t, nil)
	for i, ts := range []time.Time{
		time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC),
		time.Date(2262, 4, 11, 23, 47, 16, 854775000, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		sql := fmt.Sprintf("SELECT ts%d", i)
		f.srv.Script(sql, bqfake.Query{Schema: []bqfake.Field{{Name: "ts", Type: "TIMESTAMP"}}, Rows: [][]any{{bqfake.Timestamp(ts)}}})
		res, err := f.eng.Query(context.Background(), sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Rows[0][0].(time.Time); !got.Equal(ts) || got.Location() != time.UTC {
			t.Errorf("%v: got %v", ts, got)
		}
	}
}
