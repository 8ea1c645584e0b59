package bigquery

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"

	"github.com/clinsql/clinsql/executor"
)

// typeName returns a field's type in GoogleSQL's vocabulary (the names a
// user sees in the console: INT64, not INTEGER; ARRAY<...>, STRUCT<...>).
func typeName(f *bigquery.FieldSchema) executor.Type {
	t := baseTypeName(f)
	if f.Repeated {
		t = "ARRAY<" + t + ">"
	}
	return executor.Type(t)
}

func baseTypeName(f *bigquery.FieldSchema) string {
	switch f.Type {
	case bigquery.IntegerFieldType:
		return "INT64"
	case bigquery.FloatFieldType:
		return "FLOAT64"
	case bigquery.BooleanFieldType:
		return "BOOL"
	case bigquery.RecordFieldType:
		parts := make([]string, len(f.Schema))
		for i, sub := range f.Schema {
			parts[i] = sub.Name + " " + string(typeName(sub))
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case bigquery.RangeFieldType:
		if f.RangeElementType != nil {
			return "RANGE<" + string(f.RangeElementType.Type) + ">"
		}
		return "RANGE"
	}
	// STRING, BYTES, NUMERIC, BIGNUMERIC, DATE, DATETIME, TIME, TIMESTAMP,
	// INTERVAL, JSON and GEOGRAPHY are already GoogleSQL names.
	return string(f.Type)
}

// convertValue maps the client library's value for field f to the shared
// value types of package executor (see its doc). The library has already
// parsed the wire text exactly: NUMERIC and BIGNUMERIC as *big.Rat, DATE,
// DATETIME and TIME as civil types, TIMESTAMP from integer microseconds.
func convertValue(v bigquery.Value, f *bigquery.FieldSchema) (any, error) {
	if f.Repeated {
		if v == nil {
			// BigQuery returns a NULL array as an empty one; so do we.
			return []any{}, nil
		}
		elems, ok := v.([]bigquery.Value)
		if !ok {
			return nil, fmt.Errorf("column %s: ARRAY value of type %T", f.Name, v)
		}
		elem := *f
		elem.Repeated = false
		out := make([]any, len(elems))
		for i, e := range elems {
			c, err := convertValue(e, &elem)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	if v == nil {
		return nil, nil
	}
	switch f.Type {
	case bigquery.RecordFieldType:
		vals, ok := v.([]bigquery.Value)
		if !ok || len(vals) != len(f.Schema) {
			return nil, fmt.Errorf("column %s: STRUCT value of type %T", f.Name, v)
		}
		st := make(executor.Struct, len(vals))
		for i, sub := range f.Schema {
			c, err := convertValue(vals[i], sub)
			if err != nil {
				return nil, err
			}
			st[i] = executor.StructField{Name: sub.Name, Value: c}
		}
		return st, nil
	case bigquery.TimestampFieldType:
		t, ok := v.(time.Time)
		if !ok {
			return nil, fmt.Errorf("column %s: TIMESTAMP value of type %T", f.Name, v)
		}
		return t.UTC(), nil
	case bigquery.IntervalFieldType:
		iv, ok := v.(*bigquery.IntervalValue)
		if !ok {
			return nil, fmt.Errorf("column %s: INTERVAL value of type %T", f.Name, v)
		}
		// BigQuery's canonical text form, "Y-M D H:M:S[.F]".
		return iv.String(), nil
	case bigquery.RangeFieldType:
		rv, ok := v.(*bigquery.RangeValue)
		if !ok {
			return nil, fmt.Errorf("column %s: RANGE value of type %T", f.Name, v)
		}
		return rangeText(rv), nil
	}
	switch x := v.(type) {
	case int64, float64, bool, string, []byte, *big.Rat, civil.Date, civil.DateTime, civil.Time:
		return x, nil
	}
	return nil, fmt.Errorf("column %s: %s value of type %T", f.Name, f.Type, v)
}

// rangeText renders a RANGE as BigQuery prints it: "[start, end)", with
// UNBOUNDED for a missing end.
func rangeText(r *bigquery.RangeValue) string {
	end := func(v bigquery.Value) string {
		switch x := v.(type) {
		case nil:
			return "UNBOUNDED"
		case time.Time:
			return x.UTC().Format("2006-01-02 15:04:05.999999") + " UTC"
		case civil.DateTime:
			return x.Date.String() + " " + x.Time.String()
		}
		return fmt.Sprint(v)
	}
	return "[" + end(r.Start) + ", " + end(r.End) + ")"
}
