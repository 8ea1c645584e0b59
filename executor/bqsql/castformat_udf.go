package bqsql

import (
	"database/sql/driver"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// safely runs a cast: SAFE_CAST gives NULL where CAST fails, except where
// the bridge's own limit, not the value, is the cause.
func safely(safe bool, v any, err error) (any, error) {
	var limit errCastFormatLimit
	if err != nil && safe && !errors.As(err, &limit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// castFormatFunctions are the Go functions CAST … FORMAT becomes: to
// STRING from each source type (one overloaded name), to BYTES, and a
// parse function per date/time type.
func castFormatFunctions() []Function {
	const V, B, TZ = "VARCHAR", "BOOLEAN", "TIMESTAMPTZ"
	toString := func(src, typ string) Function {
		return Function{Name: castToStringFunc, Params: []string{src, V, V, B}, Result: V, Eval: func(v []driver.Value) (any, error) {
			f, zone, safe := v[1].(string), v[2].(string), v[3].(bool)
			if b, ok := v[0].([]byte); ok {
				s, err := bytesToString(b, f)
				return safely(safe, s, err)
			}
			t := v[0].(time.Time)
			off := 0
			if typ == "TIMESTAMP" {
				loc, err := loadZone(zone)
				if err != nil {
					return safely(safe, nil, err)
				}
				t = t.In(loc)
				_, off = t.Zone()
			}
			s, err := formatTimeElems(t, off, typ, f)
			return safely(safe, s, err)
		}}
	}
	fns := []Function{
		toString("DATE", "DATE"), toString("TIMESTAMP", "DATETIME"), toString(TZ, "TIMESTAMP"), toString("TIME", "TIME"), toString("BLOB", "BYTES"),
		{Name: castToBytesFunc, Params: []string{V, V, B}, Result: "BLOB", Eval: func(v []driver.Value) (any, error) {
			b, err := stringToBytes(v[0].(string), v[1].(string))
			return safely(v[2].(bool), b, err)
		}},
	}
	// Parse functions, in a fixed order (DATE, DATETIME, TIME, TIMESTAMP).
	for _, p := range []struct{ typ, out string }{{"DATE", "DATE"}, {"DATETIME", "TIMESTAMP"}, {"TIME", "TIME"}, {"TIMESTAMP", TZ}} {
		typ := p.typ
		fns = append(fns, Function{Name: castParseFunc + strings.ToLower(typ), Params: []string{V, V, V, TZ, B}, Result: p.out, Eval: func(v []driver.Value) (any, error) {
			s, f, zone, now, safe := v[0].(string), v[1].(string), v[2].(string), v[3].(time.Time), v[4].(bool)
			r, err := parseTimeElems(s, f, typ, now)
			if err != nil {
				return safely(safe, nil, err)
			}
			switch typ {
			case "TIME":
				return time.Date(1, 1, 1, r.hour, r.min, r.sec, r.nanos, time.UTC), nil
			case "TIMESTAMP":
				loc := time.FixedZone("", r.offset)
				if !r.hasZone {
					if loc, err = loadZone(zone); err != nil {
						return safely(safe, nil, err)
					}
				}
				return time.Date(r.year, time.Month(r.month), r.day, r.hour, r.min, r.sec, r.nanos, loc).UTC(), nil
			}
			return time.Date(r.year, time.Month(r.month), r.day, r.hour, r.min, r.sec, r.nanos, time.UTC), nil
		}})
	}
	return fns
}

// bytesFormat is a BYTES<->STRING format: its name upper-cased, or an
// error naming it as written.
func bytesFormat(f string) (string, error) {
	switch up := strings.ToUpper(f); up {
	case "BASE2", "BASE8", "BASE16", "HEX", "BASE32", "BASE64", "BASE64M", "ASCII", "UTF8", "UTF-8":
		return up, nil
	}
	return "", fmt.Errorf("Invalid format '%s'", f)
}

// bytesToString is CAST(b AS STRING FORMAT f).
func bytesToString(b []byte, f string) (string, error) {
	up, err := bytesFormat(f)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	switch up {
	case "BASE2":
		for _, c := range b {
			fmt.Fprintf(&sb, "%08b", c)
		}
	case "BASE8":
		// Each 3 bytes are 8 octal digits; BigQuery's handling of a
		// shorter last group is not implemented.
		if len(b)%3 != 0 {
			return "", errCastFormatLimit("CAST … FORMAT 'BASE8' of BYTES whose length is not a multiple of 3")
		}
		for i := 0; i < len(b); i += 3 {
			fmt.Fprintf(&sb, "%08o", uint32(b[i])<<16|uint32(b[i+1])<<8|uint32(b[i+2]))
		}
	case "BASE16", "HEX":
		return hex.EncodeToString(b), nil
	case "BASE32":
		return base32.StdEncoding.EncodeToString(b), nil
	case "BASE64":
		return base64.StdEncoding.EncodeToString(b), nil
	case "BASE64M":
		// MIME: lines of 76 characters.
		s := base64.StdEncoding.EncodeToString(b)
		for len(s) > 76 {
			sb.WriteString(s[:76] + "\n")
			s = s[76:]
		}
		sb.WriteString(s)
	case "ASCII":
		for _, c := range b {
			if c >= 0x80 {
				return "", errors.New("Failed to decode invalid ASCII string")
			}
		}
		return string(b), nil
	default: // UTF-8
		if !utf8.Valid(b) {
			return "", errors.New("A string is not valid UTF-8.")
		}
		return string(b), nil
	}
	return sb.String(), nil
}

// stringToBytes is CAST(s AS BYTES FORMAT f).
func stringToBytes(s, f string) ([]byte, error) {
	up, err := bytesFormat(f)
	if err != nil {
		return nil, err
	}
	badChar := func(name string, i int) error {
		return fmt.Errorf("Failed to decode invalid %s string due to character '%c' at offset %d", name, s[i], i)
	}
	switch up {
	case "BASE2", "BASE8":
		// Groups of 8 digits: 8 binary digits are a byte, 8 octal digits
		// 3 bytes.
		const group = 8
		bits := 1
		if up == "BASE8" {
			bits = 3
		}
		bytes := group * bits / 8
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || int(s[i]-'0') >= 1<<bits {
				return nil, badChar(strings.ToLower(up), i)
			}
		}
		if len(s)%group != 0 {
			return nil, errCastFormatLimit("CAST … FORMAT '" + up + "' of a STRING whose length is not a multiple of " + fmt.Sprint(group))
		}
		out := make([]byte, 0, len(s)/group*bytes)
		for i := 0; i < len(s); i += group {
			var v uint32
			for _, c := range s[i : i+group] {
				v = v<<bits | uint32(c-'0')
			}
			for k := bytes - 1; k >= 0; k-- {
				out = append(out, byte(v>>(8*k)))
			}
		}
		return out, nil
	case "BASE16", "HEX":
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("Failed to decode invalid hexadecimal string: %s", s)
		}
		return b, nil
	case "BASE32":
		b, err := base32.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("Failed to decode invalid base32 string: %s", s)
		}
		return b, nil
	case "BASE64", "BASE64M":
		in := s
		if up == "BASE64M" {
			in = strings.NewReplacer("\n", "", "\r", "").Replace(s)
		}
		b, err := base64.StdEncoding.DecodeString(in)
		if err != nil {
			return nil, fmt.Errorf("Failed to decode invalid base64 string: %s", s)
		}
		return b, nil
	case "ASCII":
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return nil, errors.New("Failed to decode invalid ASCII string")
			}
		}
	}
	return []byte(s), nil
}
