package duckdb

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/clinsql/clinsql/executor"
)

// kind is the BigQuery type a DuckDB column type maps to.
type kind int

const (
	kInt64 kind = iota
	kFloat64
	kNumeric
	kBool
	kString
	kJSON
	kBytes
	kDate
	kDatetime
	kTime
	kTimestamp
	kInterval
	kArray
	kStruct
	kMap // ARRAY<STRUCT<key, value>>
)

// duckType is a parsed DuckDB type name as the driver reports it
// ("BIGINT", "DECIMAL(18,3)", "VARCHAR[]", `STRUCT("a" INTEGER, "b" VARCHAR)`,
// "MAP(VARCHAR, BIGINT)", "INTEGER[3]").
type duckType struct {
	kind   kind
	elem   *duckType   // ARRAY element
	fields []string    // STRUCT field names in order
	types  []*duckType // STRUCT field types; MAP key and value
}

var scalarKinds = map[string]kind{
	"BOOLEAN": kBool,
	"TINYINT": kInt64, "SMALLINT": kInt64, "INTEGER": kInt64, "BIGINT": kInt64,
	"UTINYINT": kInt64, "USMALLINT": kInt64, "UINTEGER": kInt64, "UBIGINT": kInt64,
	"HUGEINT": kInt64, "UHUGEINT": kInt64,
	// A bare NULL literal has no type in DuckDB; BigQuery types it INT64.
	"SQLNULL": kInt64,
	"FLOAT":   kFloat64, "DOUBLE": kFloat64,
	"BIGNUM":  kNumeric,
	"VARCHAR": kString, "ENUM": kString, "UUID": kString, "BIT": kString,
	"JSON":      kJSON,
	"BLOB":      kBytes,
	"DATE":      kDate,
	"TIMESTAMP": kDatetime, "TIMESTAMP_S": kDatetime, "TIMESTAMP_MS": kDatetime, "TIMESTAMP_NS": kDatetime,
	"TIME":        kTime,
	"TIMESTAMPTZ": kTimestamp,
	"INTERVAL":    kInterval,
}

func parseDuckType(s string) (*duckType, error) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "]") {
		open := matchingOpen(s, len(s)-1, '[', ']')
		if open <= 0 {
			return nil, fmt.Errorf("unreadable type %q", s)
		}
		elem, err := parseDuckType(s[:open])
		if err != nil {
			return nil, err
		}
		return &duckType{kind: kArray, elem: elem}, nil
	}
	name, args, hasArgs := strings.Cut(s, "(")
	if hasArgs {
		if !strings.HasSuffix(args, ")") {
			return nil, fmt.Errorf("unreadable type %q", s)
		}
		args = args[:len(args)-1]
	}
	switch name {
	case "DECIMAL":
		return &duckType{kind: kNumeric}, nil
	case "STRUCT":
		t := &duckType{kind: kStruct}
		for _, part := range splitTop(args) {
			fname, rest, err := cutFieldName(part)
			if err != nil {
				return nil, fmt.Errorf("type %q: %w", s, err)
			}
			ft, err := parseDuckType(rest)
			if err != nil {
				return nil, err
			}
			t.fields = append(t.fields, fname)
			t.types = append(t.types, ft)
		}
		return t, nil
	case "MAP":
		parts := splitTop(args)
		if len(parts) != 2 {
			return nil, fmt.Errorf("unreadable type %q", s)
		}
		k, err := parseDuckType(parts[0])
		if err != nil {
			return nil, err
		}
		v, err := parseDuckType(parts[1])
		if err != nil {
			return nil, err
		}
		return &duckType{kind: kMap, types: []*duckType{k, v}}, nil
	}
	if k, ok := scalarKinds[s]; ok {
		return &duckType{kind: k}, nil
	}
	return nil, fmt.Errorf("DuckDB type %s has no BigQuery equivalent", s)
}

// matchingOpen returns the index of the bracket opening the one at close.
func matchingOpen(s string, close int, open, shut byte) int {
	depth := 0
	for i := close; i >= 0; i-- {
		switch s[i] {
		case shut:
			depth++
		case open:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTop splits at commas outside brackets and double-quoted names.
func splitTop(s string) []string {
	var parts []string
	depth, start, inQuote := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		parts = append(parts, strings.TrimSpace(s[start:]))
	}
	return parts
}

// cutFieldName reads a `"name" TYPE` STRUCT member (quotes doubled inside).
func cutFieldName(s string) (name, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		n, r, ok := strings.Cut(s, " ")
		if !ok {
			return "", "", fmt.Errorf("unreadable STRUCT field %q", s)
		}
		return n, r, nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), strings.TrimSpace(s[i+1:]), nil
		}
		b.WriteByte(s[i])
	}
	return "", "", fmt.Errorf("unterminated STRUCT field name %q", s)
}

// bigQuery returns the BigQuery spelling of the type.
func (t *duckType) bigQuery() string {
	switch t.kind {
	case kInt64:
		return "INT64"
	case kFloat64:
		return "FLOAT64"
	case kNumeric:
		return "NUMERIC"
	case kBool:
		return "BOOL"
	case kString:
		return "STRING"
	case kJSON:
		return "JSON"
	case kBytes:
		return "BYTES"
	case kDate:
		return "DATE"
	case kDatetime:
		return "DATETIME"
	case kTime:
		return "TIME"
	case kTimestamp:
		return "TIMESTAMP"
	case kInterval:
		return "INTERVAL"
	case kArray:
		return "ARRAY<" + t.elem.bigQuery() + ">"
	case kStruct:
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			parts[i] = f + " " + t.types[i].bigQuery()
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case kMap:
		return "ARRAY<STRUCT<key " + t.types[0].bigQuery() + ", value " + t.types[1].bigQuery() + ">>"
	}
	return "UNKNOWN"
}

// convert turns a driver value into the executor value type for t.
func (t *duckType) convert(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.kind {
	case kInt64:
		return toInt64(v)
	case kFloat64:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			// Through the shortest decimal, so FLOAT 0.1 reads 0.1, not 0.100000001.
			f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
			return f, nil
		}
	case kNumeric:
		switch x := v.(type) {
		case duck.Decimal:
			den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)
			return new(big.Rat).SetFrac(new(big.Int).Set(x.Value), den), nil
		case *big.Int:
			return new(big.Rat).SetInt(x), nil
		}
	case kBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case kString, kJSON:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			if len(x) == 16 { // UUID
				h := hex.EncodeToString(x)
				return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
			}
			return string(x), nil
		case duck.UUID:
			return x.String(), nil
		case *duck.UUID:
			return x.String(), nil
		default:
			if t.kind == kJSON {
				// The driver decodes JSON; encode it again (object keys sorted).
				b, err := json.Marshal(x)
				if err != nil {
					return nil, fmt.Errorf("JSON value: %w", err)
				}
				return string(b), nil
			}
		}
	case kBytes:
		if b, ok := v.([]byte); ok {
			return append([]byte(nil), b...), nil
		}
	case kDate:
		if tm, ok := v.(time.Time); ok {
			return civil.DateOf(tm.UTC()), nil
		}
	case kDatetime:
		if tm, ok := v.(time.Time); ok {
			return civil.DateTimeOf(tm.UTC()), nil
		}
	case kTime:
		if tm, ok := v.(time.Time); ok {
			return civil.TimeOf(tm.UTC()), nil
		}
	case kTimestamp:
		if tm, ok := v.(time.Time); ok {
			return tm.UTC(), nil
		}
	case kInterval:
		if iv, ok := v.(duck.Interval); ok {
			return formatInterval(iv), nil
		}
	case kArray:
		if xs, ok := v.([]any); ok {
			out := make([]any, len(xs))
			for i, x := range xs {
				c, err := t.elem.convert(x)
				if err != nil {
					return nil, err
				}
				out[i] = c
			}
			return out, nil
		}
	case kStruct:
		if m, ok := v.(map[string]any); ok {
			out := make(executor.Struct, len(t.fields))
			for i, f := range t.fields {
				c, err := t.types[i].convert(m[f])
				if err != nil {
					return nil, err
				}
				out[i] = executor.StructField{Name: f, Value: c}
			}
			return out, nil
		}
	case kMap:
		return t.convertMap(v)
	}
	return nil, fmt.Errorf("unexpected driver value %T for %s", v, t.bigQuery())
}

func (t *duckType) convertMap(v any) (any, error) {
	var keys, vals []any
	switch m := v.(type) {
	case duck.OrderedMap:
		keys, vals = m.Keys(), m.Values()
	case *duck.OrderedMap:
		keys, vals = m.Keys(), m.Values()
	case duck.Map:
		for k := range m {
			keys = append(keys, k)
		}
		// Go maps have no order; sort by the key's text for determinism.
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			vals = append(vals, m[k])
		}
	default:
		return nil, fmt.Errorf("unexpected driver value %T for MAP", v)
	}
	out := make([]any, len(keys))
	for i := range keys {
		k, err := t.types[0].convert(keys[i])
		if err != nil {
			return nil, err
		}
		val, err := t.types[1].convert(vals[i])
		if err != nil {
			return nil, err
		}
		out[i] = executor.Struct{{Name: "key", Value: k}, {Name: "value", Value: val}}
	}
	return out, nil
}

func toInt64(v any) (any, error) {
	switch x := v.(type) {
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return nil, fmt.Errorf("integer %d overflows INT64", x)
		}
		return int64(x), nil
	case *big.Int:
		if !x.IsInt64() {
			return nil, fmt.Errorf("integer %s overflows INT64", x)
		}
		return x.Int64(), nil
	}
	return nil, fmt.Errorf("unexpected driver value %T for INT64", v)
}

// formatInterval writes BigQuery's canonical interval text,
// "Y-M D H:M:S[.F]": "0-0 3 0:0:0", "1-2 0 4:5:6.5".
func formatInterval(iv duck.Interval) string {
	months := int64(iv.Months)
	sign := ""
	if months < 0 {
		sign = "-"
		months = -months
	}
	ym := fmt.Sprintf("%s%d-%d", sign, months/12, months%12)
	micros := iv.Micros
	tsign := ""
	if micros < 0 {
		tsign = "-"
		micros = -micros
	}
	h := micros / 3_600_000_000
	m := micros / 60_000_000 % 60
	s := micros / 1_000_000 % 60
	frac := micros % 1_000_000
	ts := fmt.Sprintf("%s%d:%d:%d", tsign, h, m, s)
	if frac != 0 {
		ts += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return fmt.Sprintf("%s %d %s", ym, iv.Days, ts)
}
