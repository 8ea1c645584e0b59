package mimic

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// loadTable loads one table from its file in one transaction that also
// records it as done: after a kill at any point the table is either
// loaded and recorded, or empty and not recorded.
func loadTable(ctx context.Context, conn execBeginner, t *Table, src source, attempt int, tr *tracker) (doneTable, error) {
	start := time.Now()
	d := doneTable{Table: t.FullName(), File: src.Rel, Bytes: src.Bytes, MtimeNS: src.MtimeNS, Attempt: attempt}
	rowsPerByte, err := checkHeader(src.Abs, t)
	if err != nil {
		return d, fmt.Errorf("build: %s: %w", src.Abs, err)
	}
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		dt, _ := duckType(c.Type)
		cols[i] = quote(c.Name) + ": " + quote(dt)
	}
	// Every option is explicit: no type or dialect detection.
	stmt := fmt.Sprintf(`INSERT INTO %s.%s SELECT * FROM read_csv(%s, header = true, auto_detect = false, columns = {%s},
		delim = ',', quote = '"', escape = '"', new_line = '\n', nullstr = '', dateformat = '%%Y-%%m-%%d',
		compression = %s, parallel = true)`,
		ident(t.Dataset), ident(t.Name), quote(src.Abs), strings.Join(cols, ", "), quote(compression(src.Abs)))
	if t.StoreOrder != "" {
		// Sorted as it is read (spilling beyond the memory limit): one
		// pass over the file, no second copy of the table.
		stmt += " ORDER BY " + ident(t.StoreOrder)
	}
	if tr != nil {
		tr.begin(d.Table, src, rowsPerByte, t.StoreOrder)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return d, fmt.Errorf("build: load %s: %w", t.FullName(), err)
	}
	defer tx.Rollback()
	// A table an earlier attempt loaded from a file that has since changed.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s.%s", ident(t.Dataset), ident(t.Name))); err != nil {
		return d, fmt.Errorf("build: load %s: %w", t.FullName(), err)
	}
	res, err := tx.ExecContext(ctx, stmt)
	if err != nil {
		return d, csvError(src, t, err)
	}
	if d.Rows, err = res.RowsAffected(); err != nil {
		return d, fmt.Errorf("build: load %s: %w", t.FullName(), err)
	}
	d.Duration = time.Since(start)
	if err := recordDone(ctx, tx, d); err != nil {
		return d, fmt.Errorf("build: load %s: %w", t.FullName(), err)
	}
	if err := tx.Commit(); err != nil {
		return d, fmt.Errorf("build: load %s: %w", t.FullName(), err)
	}
	if tr != nil {
		tr.end(d.Table, d.Rows)
	}
	return d, nil
}

var (
	csvLineRE     = regexp.MustCompile(`CSV Error on Line: (\d+)`)
	csvOriginalRE = regexp.MustCompile(`(?m)^Original Line: (.*)$`)
)

// csvError rewrites DuckDB's CSV error (a page of options and suggestions
// written for its own auto-detection) into the file, its line and the
// reason, with the offending line shortened.
func csvError(src source, t *Table, err error) error {
	msg := err.Error()
	m := csvLineRE.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("build: load %s from %s: %w", t.FullName(), src.Abs, err)
	}
	reason := ""
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Original Line:") {
			for _, next := range lines[i+1:] {
				if next = strings.TrimSpace(next); next != "" {
					reason = next
					break
				}
			}
			break
		}
	}
	if reason == "" {
		reason = strings.TrimSpace(strings.SplitN(msg, "\n", 2)[0])
	}
	out := fmt.Sprintf("build: %s line %s: %s", src.Abs, m[1], reason)
	if o := csvOriginalRE.FindStringSubmatch(msg); o != nil {
		line := o[1]
		if len(line) > 200 {
			line = line[:200] + "..."
		}
		out += fmt.Sprintf(" (line: %q)", line)
	}
	return errors.New(out + " (" + t.FullName() + ")")
}

func compression(path string) string {
	if strings.HasSuffix(path, ".gz") {
		return "gzip"
	}
	return "none"
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// sampleBytes is how much of a file's text checkHeader reads to estimate
// its rows per (compressed) byte for the progress line.
const sampleBytes = 4 << 20

// checkHeader compares the file's header row with the table's columns, so a
// file of another version or table fails with the field named rather than
// loading shifted columns. It also returns the rows per file byte of the
// file's first megabytes (an estimate for progress).
func checkHeader(path string, t *Table) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	counted := &countingReader{r: f}
	var r io.Reader = bufio.NewReader(counted)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return 0, fmt.Errorf("not a gzip file: %w", err)
		}
		defer gz.Close()
		r = gz
	}
	sample := make([]byte, sampleBytes)
	n, err := io.ReadFull(r, sample)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("reading: %w", err)
	}
	sample = sample[:n]
	cr := csv.NewReader(bytes.NewReader(sample))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return 0, errors.New("empty file: no header row")
	}
	if err != nil {
		return 0, fmt.Errorf("header row: %w", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	for i, c := range t.Columns {
		if i >= len(header) {
			return 0, fmt.Errorf("header has %d fields; column %d should be %q (%s has %d columns)", len(header), i+1, c.Name, t.FullName(), len(t.Columns))
		}
		if header[i] != c.Name {
			return 0, fmt.Errorf("header field %d is %q, want %q (%s)", i+1, header[i], c.Name, t.FullName())
		}
	}
	if len(header) > len(t.Columns) {
		return 0, fmt.Errorf("header has %d fields, %s has %d columns (extra field %q)", len(header), t.FullName(), len(t.Columns), header[len(t.Columns)])
	}
	rows := bytes.Count(sample, []byte{'\n'}) - 1
	if counted.n == 0 || rows <= 0 {
		return 0, nil
	}
	return float64(rows) / float64(counted.n), nil
}
