package synth

import (
	"strconv"
	"strings"
	"time"
)

// row appends one CSV record at a time to a byte buffer in the PhysioNet
// layout: comma-separated, a field quoted only when it holds a comma, quote
// or newline, an empty field for NULL, DATETIME as "YYYY-MM-DD HH:MM:SS".
type row struct {
	buf   []byte
	first bool
	rows  int64
}

func (r *row) sep() {
	if r.first {
		r.first = false
		return
	}
	r.buf = append(r.buf, ',')
}

// end closes the record.
func (r *row) end() {
	r.buf = append(r.buf, '\n')
	r.first = true
	r.rows++
}

func (r *row) null() { r.sep() }

func (r *row) int(v int64) {
	r.sep()
	r.buf = strconv.AppendInt(r.buf, v, 10)
}

// float writes v with prec decimals (trailing zeros kept, as PhysioNet's
// export writes a fixed number of decimals per column).
func (r *row) float(v float64, prec int) {
	r.sep()
	r.buf = strconv.AppendFloat(r.buf, v, 'f', prec, 64)
}

// str writes s, quoted when it must be; "" is NULL.
func (r *row) str(s string) {
	r.sep()
	if !strings.ContainsAny(s, ",\"\n") {
		r.buf = append(r.buf, s...)
		return
	}
	r.buf = append(r.buf, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			r.buf = append(r.buf, '"')
		}
		r.buf = append(r.buf, s[i])
	}
	r.buf = append(r.buf, '"')
}

// optStr writes s, or NULL when ok is false.
func (r *row) optStr(s string, ok bool) {
	if !ok {
		r.null()
		return
	}
	r.str(s)
}

// time writes a DATETIME from Unix seconds; 0 is NULL.
func (r *row) time(sec int64) {
	r.sep()
	if sec == 0 {
		return
	}
	r.buf = appendDatetime(r.buf, sec)
}

// date writes the DATE of Unix seconds; 0 is NULL.
func (r *row) date(sec int64) {
	r.sep()
	if sec == 0 {
		return
	}
	r.buf = appendDate(r.buf, sec)
}

func appendDate(b []byte, sec int64) []byte {
	y, m, d := time.Unix(sec, 0).UTC().Date()
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, int(m))
	b = append(b, '-')
	return append2(b, d)
}

func appendDatetime(b []byte, sec int64) []byte {
	b = appendDate(b, sec)
	s := sec % 86400
	if s < 0 {
		s += 86400
	}
	b = append(b, ' ')
	b = append2(b, int(s/3600))
	b = append(b, ':')
	b = append2(b, int(s/60%60))
	b = append(b, ':')
	return append2(b, int(s%60))
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}
