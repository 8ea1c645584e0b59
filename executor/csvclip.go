package executor

import (
	"bufio"
	"io"
	"unicode/utf8"
)

// ClipMark ends a cell that ClipCells cut.
const ClipMark = "…"

// ClipCells returns a reader of the CSV text in r with every cell cut to at
// most max bytes of content (at a character boundary, ClipMark appended),
// so that a CSV reader downstream never holds more than that of one cell:
// encoding/csv reads a whole field into memory, and a result file from a run
// folder may hold a 1 GB cell. Quoting is kept intact (a quoted cell still
// ends in its closing quote), and records, delimiters and line ends are
// passed through, so the rows and columns read are those of r.
func ClipCells(r io.Reader, max int) io.Reader {
	return &cellClipper{src: bufio.NewReaderSize(r, 64<<10), max: max, atStart: true}
}

type cellClipper struct {
	src *bufio.Reader
	max int
	out []byte // output ready; out[pos:] not yet handed out
	pos int
	err error

	atStart      bool // the next byte starts a field
	quoted       bool // the field started with a quote
	pendingQuote bool // a quote inside a quoted field, not yet known as escape or end
	n            int  // content bytes of the field passed through
	clipped      bool // the field's content is being dropped
}

func (c *cellClipper) Read(p []byte) (int, error) {
	if c.pos == len(c.out) {
		// Everything handed out: refill the same buffer from its start.
		c.out, c.pos = c.out[:0], 0
		for len(c.out) == 0 && c.err == nil {
			c.fill(len(p))
		}
	}
	n := copy(p, c.out[c.pos:])
	c.pos += n
	if c.pos == len(c.out) && c.err != nil {
		return n, c.err
	}
	return n, nil
}

// fill processes input until about want bytes are ready or input ends.
// Runs of plain content are copied (or, past the cap, dropped) in bulk; the
// bytes that can change the state go through step one at a time.
func (c *cellClipper) fill(want int) {
	for len(c.out) < want {
		buf, err := c.src.Peek(c.src.Buffered())
		if len(buf) == 0 {
			if _, err = c.src.ReadByte(); err == nil {
				err = c.src.UnreadByte()
			}
			if err != nil {
				if c.pendingQuote {
					c.pendingQuote = false
					c.out = append(c.out, '"')
				}
				c.err = err
				return
			}
			continue
		}
		i := 0
		for i < len(buf) && len(c.out) < want {
			if !c.atStart && !c.pendingQuote {
				j := i
				if c.clipped {
					for j < len(buf) && !c.special(buf[j]) {
						j++
					}
				} else {
					for end := min(len(buf), i+c.max-c.n); j < end && !c.special(buf[j]); j++ {
					}
					c.out = append(c.out, buf[i:j]...)
					c.n += j - i
				}
				if j > i {
					i = j
					continue
				}
			}
			c.step(buf[i])
			i++
		}
		c.src.Discard(i)
	}
}

// special reports a byte that may end the field or the quoting.
func (c *cellClipper) special(b byte) bool {
	if c.quoted {
		return b == '"'
	}
	return b == ',' || b == '\n' || b == '\r' || b == '"'
}

func (c *cellClipper) step(b byte) {
	if c.atStart {
		c.atStart, c.n, c.clipped, c.quoted = false, 0, false, b == '"'
		if c.quoted {
			c.out = append(c.out, b)
			return
		}
	}
	if c.quoted {
		switch {
		case c.pendingQuote && b == '"': // an escaped quote: one character
			c.pendingQuote = false
			c.content('"', true)
			return
		case c.pendingQuote: // the closing quote
			c.pendingQuote, c.quoted = false, false
			c.out = append(c.out, '"')
			// b follows the closing quote: a delimiter, a line end,
			// or (lazily quoted CSV) more of the cell.
		case b == '"':
			c.pendingQuote = true
			return
		default:
			c.content(b, false)
			return
		}
	}
	switch b {
	case ',', '\n':
		c.out = append(c.out, b)
		c.atStart = true
	case '\r':
		c.out = append(c.out, b)
	default:
		c.content(b, false)
	}
}

// content passes one content byte b (with pair, an escaped quote: two
// bytes, one character) through unless the cell has reached the cap; the
// cut falls at a character boundary.
func (c *cellClipper) content(b byte, pair bool) {
	if c.clipped {
		return
	}
	if c.n >= c.max && (pair || utf8.RuneStart(b)) {
		c.clipped = true
		c.out = append(c.out, ClipMark...)
		return
	}
	c.out = append(c.out, b)
	c.n++
	if pair {
		c.out = append(c.out, b)
		c.n++
	}
}
