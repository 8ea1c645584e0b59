package pyval

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clinsql/clinsql/internal/pyfmt"
)

// Repr returns Python's repr() (which str() equals for every type but str)
// of a value of the types LiteralEval returns. []byte is treated as Bytes.
func Repr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// Str returns Python's str(v): the string itself for a str, Repr otherwise.
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

func writeRepr(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case *big.Int:
		b.WriteString(v.String())
	case int64:
		fmt.Fprint(b, v)
	case float64:
		b.WriteString(pyfmt.Float(v))
	case string:
		writeStrRepr(b, v)
	case Bytes:
		writeBytesRepr(b, v)
	case []byte:
		writeBytesRepr(b, v)
	case List:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, x)
		}
		b.WriteByte(']')
	case Tuple:
		b.WriteByte('(')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, x)
		}
		if len(v) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "<%T>", v)
	}
}

// writeStrRepr is unicode_repr: single quotes unless the text holds a single
// quote and no double quote; \\, the quote, \t, \n, \r escaped; other
// non-printable characters as \xhh, \uhhhh or \Uhhhhhhhh. Python's
// str.isprintable() and Go's unicode.IsPrint agree: letters, marks, numbers,
// punctuation, symbols and the ASCII space.
func writeStrRepr(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Not valid UTF-8: a Python str never holds it; show the byte.
			fmt.Fprintf(b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x7f || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
}

// writeBytesRepr is bytes_repr: b'...' with the same quote choice as str,
// printable ASCII as is, \t \n \r, everything else as \xhh.
func writeBytesRepr(b *strings.Builder, s []byte) {
	quote := byte('\'')
	if strings.IndexByte(string(s), '\'') >= 0 && strings.IndexByte(string(s), '"') < 0 {
		quote = '"'
	}
	b.WriteByte('b')
	b.WriteByte(quote)
	for _, c := range s {
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
}
