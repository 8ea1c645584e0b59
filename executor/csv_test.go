package executor

import (
	"bytes"
	"encoding/csv"
	"flag"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"cloud.google.com/go/civil"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func dt(y int, mo time.Month, d, h, mi, s, ns int) civil.DateTime {
	return civil.DateTime{Date: civil.Date{Year: y, Month: mo, Day: d}, Time: civil.Time{Hour: h, Minute: mi, Second: s, Nanosecond: ns}}
}

func TestWriteCSVGolden(t *testing.T) {
	cases := []struct {
		name string
		res  *Result
	}{
		{"empty", &Result{Columns: []Column{{"a", "INT64"}, {"b", "STRING"}}}},
		{"single_empty_string", &Result{
			Columns: []Column{{"s", "STRING"}},
			Rows:    [][]any{{""}, {nil}, {"x"}},
		}},
		{"scalars", &Result{
			Columns: []Column{{"i", "INT64"}, {"f", "FLOAT64"}, {"n", "NUMERIC"}, {"b", "BOOL"}, {"s", "STRING"}, {"y", "BYTES"}},
			Rows: [][]any{
				{int64(-42), 1.0, big.NewRat(3, 1), true, "plain", []byte("hi")},
				{int64(0), 0.1, big.NewRat(-1, 2), false, "comma, here", []byte{0, 255}},
				{int64(math.MaxInt64), 1e-05, big.NewRat(1, 1000000000), nil, `quote "x"`, []byte{}},
				{nil, math.NaN(), big.NewRat(1, 3), nil, "line\nbreak", nil},
				{nil, math.Inf(-1), nil, nil, "crlf\r\nend", nil},
				{nil, 1.2345678901234568e+16, big.NewRat(12345, 100), nil, "ünïcode ≥ 5", nil},
				{nil, math.Copysign(0, -1), nil, nil, "", nil},
				{nil, 68.5, nil, nil, nil, nil},
			},
		}},
		{"temporal", &Result{
			Columns: []Column{{"d", "DATE"}, {"dt", "DATETIME"}, {"t", "TIME"}, {"ts", "TIMESTAMP"}, {"iv", "INTERVAL"}},
			Rows: [][]any{
				{civil.Date{Year: 2180, Month: 7, Day: 23}, dt(2180, 7, 23, 12, 35, 0, 0), civil.Time{Hour: 7, Minute: 5, Second: 9}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "1-2 3 4:5:6"},
				{civil.Date{Year: 1, Month: 1, Day: 1}, dt(2180, 7, 23, 0, 0, 0, 123456789), civil.Time{Nanosecond: 500000}, time.Date(2024, 1, 2, 3, 4, 5, 250000000, time.FixedZone("x", 3600)), nil},
				{nil, nil, nil, nil, nil},
			},
		}},
		{"nested", &Result{
			Columns: []Column{{"arr", "ARRAY<INT64>"}, {"st", "STRUCT<a INT64, b STRING>"}, {"mixed", "ARRAY<STRUCT<x FLOAT64>>"}},
			Rows: [][]any{
				{[]any{int64(5), int64(16), int64(21)}, Struct{{"a", int64(1)}, {"b", "it's"}}, []any{Struct{{"x", 1.5}}, Struct{{"x", math.NaN()}}}},
				{[]any{}, Struct{{"a", nil}, {"b", "say \"hi\" and 'bye'\\"}}, []any{nil}},
				{[]any{"a", "b,c", nil, true, big.NewRat(3, 2), []byte("\x00'"), civil.Date{Year: 2180, Month: 7, Day: 23}, dt(2180, 7, 23, 12, 0, 0, 0), dt(2180, 7, 23, 12, 0, 7, 0), dt(2180, 7, 23, 12, 0, 7, 1000), civil.Time{Hour: 1}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "tab\there\u00a0"}, nil, nil},
			},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteCSV(&buf, c.res); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "csv_"+c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("WriteCSV mismatch with %s:\n got:\n%s\nwant:\n%s", golden, buf.Bytes(), want)
			}
			// Deterministic: a second write gives the same bytes.
			var again bytes.Buffer
			if err := WriteCSV(&again, c.res); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("second write differs")
			}
		})
	}
}

func TestWriteCSVErrors(t *testing.T) {
	cases := []struct {
		name string
		res  *Result
	}{
		{"unsupported type", &Result{Columns: []Column{{"x", "INT64"}}, Rows: [][]any{{int32(1)}}}},
		{"unsupported nested type", &Result{Columns: []Column{{"x", "ARRAY<INT64>"}}, Rows: [][]any{{[]any{uint8(1)}}}}},
		{"ragged row", &Result{Columns: []Column{{"x", "INT64"}, {"y", "INT64"}}, Rows: [][]any{{int64(1)}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := WriteCSV(&bytes.Buffer{}, c.res); err == nil {
				t.Error("WriteCSV succeeded, want an error")
			}
		})
	}
}

// FuzzWriteCSV checks that any text survives the RFC 4180 quoting: reading
// the CSV back gives the same fields, and a NULL is an empty field.
func FuzzWriteCSV(f *testing.F) {
	for _, s := range []string{"", "a", "a,b", `"`, "x\ny", "x\r\ny", "\r", " lead", "é≥", ","} {
		f.Add(s, "second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			t.Skip()
		}
		res := &Result{Columns: []Column{{"a", "STRING"}, {"b", "STRING"}, {"n", "INT64"}}, Rows: [][]any{{a, b, nil}}}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, res); err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(&buf)
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("CSV not readable: %v\n%q", err, buf.String())
		}
		// encoding/csv turns \r\n inside quoted fields into \n.
		norm := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
		if len(recs) != 2 || recs[1][0] != norm(a) || recs[1][1] != norm(b) || recs[1][2] != "" {
			t.Fatalf("round trip of %q, %q gave %q", a, b, recs)
		}
	})
}
