package codecheck

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/pyfmt"
	"github.com/clinsql/clinsql/runfolder"
)

// Cell is one value of a result table.
type Cell struct {
	Raw  string  // as written in the CSV (or formatted from an engine value)
	Null bool    // empty, NULL, NaN, None, <NA>: no value
	Num  float64 // the number, when IsNum
	// IsNum reports that Raw is a finite number.
	IsNum bool
}

// nullSpellings are the cell texts that mean "no value": pandas writes NaN
// and empty cells, engines and models write NULL or None.
var nullSpellings = map[string]bool{"": true, "null": true, "nan": true, "none": true, "<na>": true, "nat": true}

// ParseCell reads one CSV cell.
func ParseCell(raw string) Cell {
	c := Cell{Raw: raw}
	t := strings.TrimSpace(raw)
	if nullSpellings[strings.ToLower(t)] {
		c.Null = true
		return c
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		c.Num, c.IsNum = f, true
	}
	return c
}

// Table is a query result: the columns, the rows kept, and how many there
// were.
type Table struct {
	Columns []string
	Rows    [][]Cell
	// TotalRows counts every data row; Truncated reports that only the
	// first len(Rows) were kept.
	TotalRows int
	Truncated bool

	// bound caches, per rubric tree (its root), where each band leaf
	// reads its value (see sameCells); valueCols the columns that may
	// hold a value (valueColumns). A table is not changed once read.
	bound     sync.Map
	valueOnce sync.Once
	valueCols []int
}

// MaxTableRows bounds the rows kept in memory for the code checks. The
// checks decide nothing on a truncated table that needs the dropped rows.
const MaxTableRows = 100_000

// Column returns the index of the column named exactly name, or -1.
func (t *Table) Column(name string) int {
	for i, c := range t.Columns {
		if c == name {
			return i
		}
	}
	return -1
}

// Values returns column i of the kept rows.
func (t *Table) Values(i int) []Cell {
	out := make([]Cell, 0, len(t.Rows))
	for _, r := range t.Rows {
		if i < len(r) {
			out = append(out, r[i])
		} else {
			out = append(out, Cell{Null: true})
		}
	}
	return out
}

// MaxCellBytes bounds each cell read from a result CSV: longer cells are
// cut while they are read (executor.ClipCells), never held whole. No check
// reads that far into a cell, and a prompt shows a few dozen characters.
const MaxCellBytes = 64 << 10

// ReadCSV reads a result CSV: a header row, then data rows. Short rows are
// padded with NULLs; a row longer than the header is an error naming the
// line. Cells are cut to MaxCellBytes.
func ReadCSV(r io.Reader, maxRows int) (*Table, error) {
	cr := csv.NewReader(executor.ClipCells(r, MaxCellBytes))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("empty file: no header row")
	}
	if err != nil {
		return nil, err
	}
	t := &Table{Columns: append([]string(nil), head...)}
	if len(t.Columns) > 0 {
		t.Columns[0] = strings.TrimPrefix(t.Columns[0], "\ufeff")
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) == 1 && rec[0] == "" && len(t.Columns) > 1 {
			continue // a blank line
		}
		if len(rec) > len(t.Columns) {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("line %d: %d fields, the header has %d", line, len(rec), len(t.Columns))
		}
		t.TotalRows++
		if len(t.Rows) >= maxRows {
			t.Truncated = true
			continue
		}
		row := make([]Cell, len(t.Columns))
		for i := range row {
			if i < len(rec) {
				row[i] = ParseCell(rec[i])
			} else {
				row[i] = Cell{Null: true}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// TableFromResult converts an engine's result, formatting values the way
// the reference's CSVs do (Python float repr, NULL as an empty cell).
func TableFromResult(res *executor.Result) *Table {
	t := &Table{TotalRows: len(res.Rows), Truncated: res.Truncated}
	if res.Truncated && res.TotalRows > 0 {
		t.TotalRows = int(res.TotalRows)
	}
	for _, c := range res.Columns {
		t.Columns = append(t.Columns, c.Name)
	}
	for _, r := range res.Rows {
		row := make([]Cell, len(t.Columns))
		for i := range row {
			if i < len(r) {
				row[i] = ParseCell(formatValue(r[i]))
			} else {
				row[i] = Cell{Null: true}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return pyfmt.Float(x)
	case float32:
		return pyfmt.Float(float64(x))
	case []byte:
		return string(x)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// Answer is a model's answer to one task as the judge sees it: the final
// SQL, whether it ran, and its result.
type Answer struct {
	Key datasets.Key
	// Dir is the task's folder in the run (the sample path of the
	// reference's grading files).
	Dir      string
	Question string
	SQL      string
	// Executed reports that the final SQL ran without error.
	Executed bool
	// Error is the final execution error, if any.
	Error string
	// RowCount is the row count the run recorded.
	RowCount int
	// ResultFile is the result CSV's path ("" when absent).
	ResultFile string
	// Table is the result, nil when there is none: the query failed, the
	// result was empty (the reference then writes a placeholder), or the
	// file is absent or unreadable.
	Table *Table
	// Placeholder reports the reference's stand-in CSV: a single column
	// "result" holding one empty value, written for a failed or empty run.
	Placeholder bool
	// ReadErr is why the result file could not be read.
	ReadErr error
	// SQLAbsent marks an answer released as its result alone: the SQL
	// text is unknown (not empty), and prompts say so.
	SQLAbsent bool
}

// HasResult reports whether the query ran and returned at least one row:
// the meaning of the results rubric's "CSV File Exists" (see Check). A run
// whose result file is absent although its summary records rows (the
// release lacks one 989,918-row file) has a result that cannot be read:
// Table is then nil.
func (a *Answer) HasResult() bool {
	if !a.Executed || a.Placeholder || a.ReadErr != nil {
		return false
	}
	if a.Table != nil {
		return a.Table.TotalRows > 0
	}
	return a.ResultFile == "" && a.RowCount > 0
}

// TotalRows is the result's row count, 0 without a result.
func (a *Answer) TotalRows() int {
	switch {
	case a.Table != nil:
		return a.Table.TotalRows
	case a.HasResult():
		return a.RowCount
	}
	return 0
}

// isPlaceholder recognises the reference's stand-in for a failed or empty
// run: header "result", one row with an empty value, and a summary that
// says the query failed or returned nothing. A real one-row result whose
// single column is named "result" and holds NULL keeps its row count.
func isPlaceholder(t *Table, s runfolder.ExecutionSummary) bool {
	return len(t.Columns) == 1 && t.Columns[0] == "result" && t.TotalRows == 1 &&
		t.Rows[0][0].Raw == "" && (!s.ExecutionSuccess || s.RowCount == 0)
}

// LoadAnswer reads a model's answer from a run folder entry. Unreadable
// result files are recorded in ReadErr, not returned: the answer is then
// judged as having no result.
func LoadAnswer(o *runfolder.Output, question string) *Answer {
	a := &Answer{Key: o.Key, Dir: o.Dir, Question: question, SQL: o.Summary.FinalSQL, Executed: o.Summary.ExecutionSuccess,
		RowCount: int(o.Summary.RowCount), ResultFile: o.ResultCSV, SQLAbsent: o.SQLAbsent}
	if question == "" {
		a.Question = o.Summary.Query
	}
	if o.Summary.FinalError != nil {
		a.Error = *o.Summary.FinalError
	}
	if o.ResultCSV == "" {
		return a
	}
	b, err := runfolder.ReadFile(o.ResultCSV, runfolder.MaxResultBytes)
	if err != nil {
		a.ReadErr = err
		return a
	}
	t, err := ReadCSV(bytes.NewReader(b), MaxTableRows)
	if err != nil {
		a.ReadErr = fmt.Errorf("%s: %w", o.ResultCSV, err)
		return a
	}
	if o.SQLAbsent {
		// Only the result was released: it ran unless it is the
		// reference's placeholder of a failed or empty run.
		a.RowCount = t.TotalRows
		if isPlaceholder(t, runfolder.ExecutionSummary{}) {
			a.Placeholder, a.Executed, a.RowCount = true, false, 0
			return a
		}
	}
	if isPlaceholder(t, o.Summary) {
		a.Placeholder = true
		return a
	}
	// A result the engine's row or byte cap cut is not the whole result:
	// the file holds fewer rows than the query returned. Checks that need
	// every row then decide nothing (see Table.Truncated).
	if o.Truncated || (!o.SQLAbsent && o.Summary.RowCount > int64(t.TotalRows)) {
		t.Truncated = true
		t.TotalRows = max(t.TotalRows, int(o.Summary.RowCount))
	}
	if a.Executed {
		a.Table = t
	}
	return a
}
