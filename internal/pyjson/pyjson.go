// Package pyjson writes JSON byte-for-byte as Python's json.dump(obj,
// indent=2) does (ensure_ascii on, ", " and ": " separators, float repr,
// NaN and Infinity), so that files clinsql writes in the reference scorer's
// shapes compare equal to the published ones as bytes, not only as values.
//
// Key order is the caller's: objects are [Object] values, lists of key and
// value in order, as Python dicts keep insertion order.
package pyjson

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/clinsql/clinsql/internal/pyfmt"
)

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a JSON object with ordered members.
type Object []Member

// Marshal encodes v, which may be nil, bool, string, int, int64, float64,
// []any, []Object, Object, or a type with a PyJSON() any method that returns
// one of those. The result has no trailing newline, like json.dump.
func Marshal(v any) ([]byte, error) {
	var b strings.Builder
	if err := encode(&b, v, 0); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// Value is implemented by types that encode as another value.
type Value interface{ PyJSON() any }

func encode(b *strings.Builder, v any, depth int) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		quote(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		switch {
		case math.IsNaN(x):
			b.WriteString("NaN")
		case math.IsInf(x, 1):
			b.WriteString("Infinity")
		case math.IsInf(x, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(pyfmt.Float(x))
		}
	case Object:
		if len(x) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{")
		for i, m := range x {
			if i > 0 {
				b.WriteString(",")
			}
			newline(b, depth+1)
			quote(b, m.Key)
			b.WriteString(": ")
			if err := encode(b, m.Value, depth+1); err != nil {
				return err
			}
		}
		newline(b, depth)
		b.WriteString("}")
	case []Object:
		list := make([]any, len(x))
		for i := range x {
			list[i] = x[i]
		}
		return encode(b, list, depth)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(",")
			}
			newline(b, depth+1)
			if err := encode(b, e, depth+1); err != nil {
				return err
			}
		}
		newline(b, depth)
		b.WriteString("]")
	case Value:
		return encode(b, x.PyJSON(), depth)
	default:
		return fmt.Errorf("pyjson: cannot encode %T", v)
	}
	return nil
}

func newline(b *strings.Builder, depth int) {
	b.WriteByte('\n')
	b.WriteString(strings.Repeat("  ", depth))
}

// quote writes s as Python's json.dumps with ensure_ascii=True does.
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (r > 0x7e && r <= 0xffff):
				fmt.Fprintf(b, `\u%04x`, r)
			case r > 0xffff:
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
