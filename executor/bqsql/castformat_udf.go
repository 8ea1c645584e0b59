package bqsql

import (
	"database/sql"
	"database/sql/driver"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	duck "github.com/duckdb/duckdb-go/v2"
)

// goFunc is a Go scalar function over fixed DuckDB types.
type goFunc struct {
	in  []duck.Type
	out duck.Type
	fn  func(v []driver.Value) (any, error)
}

func (g goFunc) Config() duck.ScalarFuncConfig {
	var cfg duck.ScalarFuncConfig
	for _, t := range g.in {
		ti, _ := duck.NewTypeInfo(t)
		cfg.InputTypeInfos = append(cfg.InputTypeInfos, ti)
	}
	cfg.ResultTypeInfo, _ = duck.NewTypeInfo(g.out)
	return cfg
}

func (g goFunc) Executor() duck.ScalarFuncExecutor {
	return duck.ScalarFuncExecutor{RowExecutor: markErrors(g.fn)}
}

// markErrors marks the errors fn raises on a value as the query's (see
// goFunctionMark).
func markErrors(fn func([]driver.Value) (any, error)) func([]driver.Value) (any, error) {
	return func(v []driver.Value) (any, error) {
		r, err := fn(v)
		return r, goFunctionError(err)
	}
}

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

func registerCastFormat(conn *sql.Conn) error {
	V, B, TZ := duck.TYPE_VARCHAR, duck.TYPE_BOOLEAN, duck.TYPE_TIMESTAMP_TZ
	toString := func(src duck.Type, typ string) goFunc {
		return goFunc{in: []duck.Type{src, V, V, B}, out: V, fn: func(v []driver.Value) (any, error) {
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
	if err := duck.RegisterScalarUDFSet(conn, castToStringFunc,
		toString(duck.TYPE_DATE, "DATE"), toString(duck.TYPE_TIMESTAMP, "DATETIME"),
		toString(TZ, "TIMESTAMP"), toString(duck.TYPE_TIME, "TIME"), toString(duck.TYPE_BLOB, "BYTES")); err != nil {
		return err
	}
	err := duck.RegisterScalarUDF(conn, castToBytesFunc, goFunc{in: []duck.Type{V, V, B}, out: duck.TYPE_BLOB,
		fn: func(v []driver.Value) (any, error) {
			b, err := stringToBytes(v[0].(string), v[1].(string))
			return safely(v[2].(bool), b, err)
		}})
	if err != nil {
		return err
	}
	parse := map[string]duck.Type{"DATE": duck.TYPE_DATE, "DATETIME": duck.TYPE_TIMESTAMP, "TIME": duck.TYPE_TIME, "TIMESTAMP": TZ}
	for typ, out := range parse {
		typ := typ
		fn := func(v []driver.Value) (any, error) {
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
		}
		if err := duck.RegisterScalarUDF(conn, castParseFunc+strings.ToLower(typ), goFunc{in: []duck.Type{V, V, V, TZ, B}, out: out, fn: fn}); err != nil {
			return err
		}
	}
	return nil
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
