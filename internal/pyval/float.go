package pyval

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether Python's str.isspace() holds for r: the ASCII
// whitespace (including the separators \x1c-\x1f, which unicode.IsSpace
// leaves out) and the Unicode White_Space characters.
func IsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f)
	}
	return unicode.IsSpace(r)
}

// Strip returns s without leading and trailing whitespace, as Python's
// str.strip() with no argument.
func Strip(s string) string {
	return strings.TrimFunc(s, IsSpace)
}

// ParseFloat reports whether Python's float(s) succeeds on the str s and
// returns its value. Overflow gives ±Inf (Python does not raise), as does
// "inf"; "nan" gives NaN.
func ParseFloat(s string) (float64, bool) {
	ascii, ok := toASCIIDecimal(s)
	if !ok {
		return 0, false
	}
	return parseASCII(ascii)
}

// ParseFloatBytes reports whether Python's float(b) succeeds on the bytes b
// (a BLOB cell): like ParseFloat, but without Unicode digits or whitespace.
func ParseFloatBytes(b []byte) (float64, bool) {
	return parseASCII(string(b))
}

// toASCIIDecimal mirrors _PyUnicode_TransformDecimalAndSpaceToASCII: code
// points below 127 are kept, Unicode whitespace becomes ' ', Unicode decimal
// digits become their ASCII digit, anything else makes float() fail.
func toASCIIDecimal(s string) (string, bool) {
	i := 0
	for i < len(s) && s[i] < 127 {
		i++
	}
	if i == len(s) {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		switch {
		case r < 127:
			b.WriteByte(byte(r))
		case IsSpace(r):
			b.WriteByte(' ')
		default:
			d, ok := decimalValue(r)
			if !ok {
				return "", false
			}
			b.WriteByte(byte('0' + d))
		}
	}
	return b.String(), true
}

// decimalValue returns the digit value of a Unicode decimal digit (category
// Nd). Unicode encodes every decimal digit set as a contiguous run 0..9, and
// the Nd table's ranges are unions of whole runs, so the value is the offset
// from the range start modulo 10.
func decimalValue(r rune) (int, bool) {
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			if rg.Stride != 1 {
				return 0, false
			}
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			if rg.Stride != 1 {
				return 0, false
			}
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}

// isASCIISpace is Py_ISSPACE: the whitespace float() strips after the
// Unicode transformation (not \x1c-\x1f).
func isASCIISpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseASCII is _Py_string_to_number_with_underscores followed by
// float_from_string_inner and PyOS_string_to_double.
func parseASCII(s string) (float64, bool) {
	if strings.IndexByte(s, '_') >= 0 {
		// Underscores only between two digits; they are then dropped.
		var b strings.Builder
		var prev byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '_' {
				if !isDigit(prev) {
					return 0, false
				}
			} else {
				if prev == '_' && !isDigit(c) {
					return 0, false
				}
				b.WriteByte(c)
			}
			prev = c
		}
		if prev == '_' {
			return 0, false
		}
		s = b.String()
	}
	start, end := 0, len(s)
	for start < end && isASCIISpace(s[start]) {
		start++
	}
	for start < end-1 && isASCIISpace(s[end-1]) {
		end--
	}
	s = s[start:end]
	if n := decimalPrefix(s); n > 0 {
		if n != len(s) {
			return 0, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			// Only range errors remain for a validated literal: ParseFloat
			// then returns ±Inf or ±0, which is what Python returns too.
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				return 0, false
			}
		}
		return f, true
	}
	return infOrNaN(s)
}

// decimalPrefix returns the length of the longest prefix of s that
// _Py_dg_strtod accepts: [sign] digits [. digits] [(e|E) [sign] digits], with
// at least one mantissa digit; an exponent without digits is not consumed. It
// returns 0 when no number starts s.
func decimalPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}

// infOrNaN is _Py_parse_inf_or_nan, which must consume all of s.
func infOrNaN(s string) (float64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	switch asciiLower(s) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	return 0, false
}

// asciiLower lowers ASCII letters only, so that no non-ASCII byte sequence
// can fold into "inf" or "nan".
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
