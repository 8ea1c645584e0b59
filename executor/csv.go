package executor

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"

	"github.com/clinsql/clinsql/internal/pyfmt"
	"github.com/clinsql/clinsql/internal/pyval"
)

// WriteCSV writes r as CSV: a header row of column names, then one line per
// row of r.Rows, every value formatted as described in the package
// documentation (section "CSV"). Lines end in LF; fields are quoted as RFC 4180
// requires (when they hold a comma, a double quote, CR or LF, and the one-field
// empty string of a single-column row, which would otherwise read as an empty
// line). The same result always yields the same bytes.
func WriteCSV(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	writeRecord(bw, names, nil)
	fields := make([]string, len(r.Columns))
	nulls := make([]bool, len(r.Columns))
	for ri, row := range r.Rows {
		if len(row) != len(r.Columns) {
			return fmt.Errorf("write csv: row %d has %d values for %d columns", ri, len(row), len(r.Columns))
		}
		for ci, v := range row {
			s, err := FormatValue(v)
			if err != nil {
				return fmt.Errorf("write csv: row %d, column %q: %w", ri, r.Columns[ci].Name, err)
			}
			fields[ci] = s
			nulls[ci] = v == nil
		}
		writeRecord(bw, fields, nulls)
	}
	return bw.Flush()
}

// writeRecord writes one CSV line. A row of a single empty non-NULL string is
// quoted so that it stays distinguishable from an empty line; a NULL is always
// an empty field.
func writeRecord(w *bufio.Writer, fields []string, nulls []bool) {
	for i, f := range fields {
		if i > 0 {
			w.WriteByte(',')
		}
		switch {
		case strings.ContainsAny(f, ",\"\r\n"):
			w.WriteByte('"')
			w.WriteString(strings.ReplaceAll(f, `"`, `""`))
			w.WriteByte('"')
		case f == "" && len(fields) == 1 && (nulls == nil || !nulls[0]):
			w.WriteString(`""`)
		default:
			w.WriteString(f)
		}
	}
	w.WriteByte('\n')
}

// FormatValue returns the CSV text of one result value (see the package
// documentation). It fails on a Go type outside the executor value set.
func FormatValue(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case float64:
		// pandas writes NaN as an empty field (na_rep="").
		if math.IsNaN(x) {
			return "", nil
		}
		return pyfmt.Float(x), nil
	case string:
		return x, nil
	case []any, Struct:
		var b strings.Builder
		if err := writeRepr(&b, v); err != nil {
			return "", err
		}
		return b.String(), nil
	case []byte:
		return base64.StdEncoding.EncodeToString(x), nil
	case civil.Date:
		return formatDate(x), nil
	case civil.DateTime:
		return formatDate(x.Date) + " " + formatTime(x.Time), nil
	case civil.Time:
		return formatTime(x), nil
	case time.Time:
		u := x.UTC()
		return formatDate(civil.DateOf(u)) + " " + formatTime(civil.TimeOf(u)) + "+00:00", nil
	}
	return formatScalar(v)
}

// formatScalar formats the values written the same way at top level and
// inside an ARRAY or STRUCT.
func formatScalar(v any) (string, error) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case bool:
		if x {
			return "True", nil
		}
		return "False", nil
	case *big.Rat:
		if x == nil {
			return "", nil
		}
		return formatRat(x), nil
	}
	return "", fmt.Errorf("unsupported value type %T", v)
}

// ratFracDigits bounds the fractional digits of a non-terminating *big.Rat:
// BIGNUMERIC's scale, so NUMERIC (scale 9) values are always exact.
const ratFracDigits = 38

// formatRat writes r in plain decimal notation with no exponent and no
// trailing fractional zeros ("3", "-0.5", "0.000000001"), as Python's str() of
// the decimal.Decimal the BigQuery client returns. A value that has no finite
// decimal expansion is rounded half away from zero to 38 fractional digits.
func formatRat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(ratFracDigits)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

func formatDate(d civil.Date) string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// formatTime follows Python's str(datetime.time): microseconds only when not
// zero, always six digits then (sub-microsecond digits are truncated).
func formatTime(t civil.Time) string {
	s := fmt.Sprintf("%02d:%02d:%02d", t.Hour, t.Minute, t.Second)
	if us := t.Nanosecond / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s
}

// writeRepr writes v as Python's repr() of the value the BigQuery Python
// client returns for it: lists for ARRAY, dicts for STRUCT, None for NULL.
func writeRepr(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case float64:
		b.WriteString(pyfmt.Float(x))
	case string:
		b.WriteString(pyval.Repr(x))
	case []byte:
		b.WriteString(pyval.Repr(x))
	case *big.Rat:
		if x == nil {
			b.WriteString("None")
			return nil
		}
		b.WriteString("Decimal('" + formatRat(x) + "')")
	case civil.Date:
		fmt.Fprintf(b, "datetime.date(%d, %d, %d)", x.Year, int(x.Month), x.Day)
	case civil.DateTime:
		fmt.Fprintf(b, "datetime.datetime(%d, %d, %d, %s)", x.Date.Year, int(x.Date.Month), x.Date.Day, timeArgs(x.Time))
	case civil.Time:
		fmt.Fprintf(b, "datetime.time(%s)", timeArgs(x))
	case time.Time:
		u := x.UTC()
		fmt.Fprintf(b, "datetime.datetime(%d, %d, %d, %s, tzinfo=datetime.timezone.utc)",
			u.Year(), int(u.Month()), u.Day(), timeArgs(civil.TimeOf(u)))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeRepr(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case Struct:
		b.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyval.Repr(f.Name))
			b.WriteString(": ")
			if err := writeRepr(b, f.Value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		s, err := formatScalar(v)
		if err != nil {
			return err
		}
		b.WriteString(s)
	}
	return nil
}

// timeArgs renders the time arguments of Python's datetime reprs: hour and
// minute always, then seconds and microseconds only as far as needed.
func timeArgs(t civil.Time) string {
	us := t.Nanosecond / 1000
	switch {
	case us != 0:
		return fmt.Sprintf("%d, %d, %d, %d", t.Hour, t.Minute, t.Second, us)
	case t.Second != 0:
		return fmt.Sprintf("%d, %d, %d", t.Hour, t.Minute, t.Second)
	}
	return fmt.Sprintf("%d, %d", t.Hour, t.Minute)
}
