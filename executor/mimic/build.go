package mimic

import (
	"bufio"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver

	"github.com/clinsql/clinsql/executor"
)

// BuildOptions configure [Build].
type BuildOptions struct {
	// MimicDir holds the PhysioNet CSV layout: hosp/<table>.csv.gz and
	// icu/<table>.csv.gz (plain .csv also accepted).
	MimicDir string
	// Out is the DuckDB file to create.
	Out string
	// Force replaces an existing Out.
	Force bool
	// Schema defaults to V31.
	Schema *Schema
	// Threads and MemoryLimit bound DuckDB while loading (defaults 2, "4GB").
	Threads     int
	MemoryLimit string
	// Progress, when set, receives one line per table as it is loaded.
	Progress io.Writer
	// Table, when set, is called once per table as it is loaded or derived.
	Table func(TableReport)
}

// TableReport describes one table of a build.
type TableReport struct {
	Table    string        `json:"table"` // "<dataset>.<table>"
	File     string        `json:"file,omitempty"`
	Rows     int64         `json:"rows"`
	Missing  bool          `json:"missing,omitempty"` // no file: created empty
	Derived  bool          `json:"derived,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Report is the outcome of a build.
type Report struct {
	Out      string        `json:"out"`
	Tables   []TableReport `json:"tables"`
	Duration time.Duration `json:"duration_ns"`
	// Facts are recorded in the database (FactsTable).
	Facts Facts `json:"facts"`
}

// Missing lists the tables created empty because their file was absent.
func (r *Report) Missing() []string {
	var out []string
	for _, t := range r.Tables {
		if t.Missing {
			out = append(out, t.Table)
		}
	}
	return out
}

// duckType is the DuckDB column type for a BigQuery schema type.
func duckType(t executor.Type) (string, error) {
	switch t {
	case Int64:
		return "BIGINT", nil
	case Float64:
		return "DOUBLE", nil
	case String:
		return "VARCHAR", nil
	case Date:
		return "DATE", nil
	case Datetime:
		return "TIMESTAMP", nil
	}
	return "", fmt.Errorf("no DuckDB type for %s", t)
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Build creates the DuckDB database opts.Out from the CSV files under
// opts.MimicDir: one DuckDB schema per dataset, every table of the schema
// created with explicit column types (never inferred), each loaded from its
// file when there is one and left empty (and reported) when not, then the
// derived tables computed. The database is written to a temporary file beside
// Out and renamed into place only when complete, so a failed or interrupted
// build never leaves a partial database under Out.
func Build(ctx context.Context, opts BuildOptions) (*Report, error) {
	start := time.Now()
	schema := opts.Schema
	if schema == nil {
		schema = V31
	}
	if opts.Threads <= 0 {
		opts.Threads = 2
	}
	if opts.MemoryLimit == "" {
		opts.MemoryLimit = "4GB"
	}
	if err := checkMimicDir(opts.MimicDir); err != nil {
		return nil, err
	}
	if opts.Out == "" {
		return nil, errors.New("build: no output file")
	}
	if strings.ContainsAny(opts.Out, "?#") {
		return nil, fmt.Errorf("build: output path %s may not contain '?' or '#'", opts.Out)
	}
	if _, err := os.Stat(opts.Out); err == nil && !opts.Force {
		return nil, fmt.Errorf("build: %s already exists (use force to replace it)", opts.Out)
	}
	if err := os.MkdirAll(filepath.Dir(opts.Out), 0o755); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	tmp := opts.Out + ".building"
	for _, p := range []string{tmp, tmp + ".wal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("build: %w", err)
		}
	}
	rep, err := build(ctx, opts, schema, tmp)
	if err != nil {
		os.Remove(tmp)
		os.Remove(tmp + ".wal")
		return nil, err
	}
	if err := os.Rename(tmp, opts.Out); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("build: %w", err)
	}
	rep.Out = opts.Out
	rep.Duration = time.Since(start)
	return rep, nil
}

func checkMimicDir(dir string) error {
	if dir == "" {
		return errors.New("build: no MIMIC-IV folder given")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("build: MIMIC-IV folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("build: %s is not a folder", dir)
	}
	for _, m := range []string{"hosp", "icu"} {
		if st, err := os.Stat(filepath.Join(dir, m)); err == nil && st.IsDir() {
			return nil
		}
	}
	return fmt.Errorf("build: %s has neither a hosp/ nor an icu/ folder (expected the PhysioNet CSV layout)", dir)
}

func build(ctx context.Context, opts BuildOptions, schema *Schema, path string) (*Report, error) {
	q := url.Values{}
	q.Set("threads", strconv.Itoa(opts.Threads))
	q.Set("memory_limit", opts.MemoryLimit)
	q.Set("autoinstall_known_extensions", "false")
	q.Set("autoload_known_extensions", "false")
	db, err := sql.Open("duckdb", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	defer db.Close()
	// One connection: DuckDB parallelises each load itself.
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	defer conn.Close()

	// The source files are hashed while DuckDB loads them.
	var fpSum string
	var fpErr error
	hashed := make(chan struct{})
	go func() {
		defer close(hashed)
		fpSum, fpErr = fingerprintSources(ctx, opts.MimicDir, schema)
	}()
	defer func() { <-hashed }() // never leave the hashing running

	seen := map[string]bool{}
	for _, t := range schema.Tables {
		if !seen[t.Dataset] {
			seen[t.Dataset] = true
			if _, err := conn.ExecContext(ctx, "CREATE SCHEMA "+ident(t.Dataset)); err != nil {
				return nil, fmt.Errorf("build: create schema %s: %w", t.Dataset, err)
			}
		}
		if err := createTable(ctx, conn, t); err != nil {
			return nil, err
		}
	}
	rep := &Report{}
	for _, t := range schema.Tables {
		if t.Module == "" {
			continue
		}
		tr, err := loadTable(ctx, conn, opts.MimicDir, t)
		if err != nil {
			return nil, err
		}
		rep.Tables = append(rep.Tables, tr)
		progress(opts.Progress, tr)
		if opts.Table != nil {
			opts.Table(tr)
		}
	}
	for _, t := range schema.Tables {
		if t.Module != "" {
			continue
		}
		tr, err := deriveTable(ctx, conn, t)
		if err != nil {
			return nil, err
		}
		rep.Tables = append(rep.Tables, tr)
		progress(opts.Progress, tr)
		if opts.Table != nil {
			opts.Table(tr)
		}
	}
	<-hashed
	if fpErr != nil {
		return nil, fmt.Errorf("build: fingerprinting the source files: %w", fpErr)
	}
	rep.Facts = Facts{Source: sourceKind(opts.MimicDir), Built: time.Now().UTC().Truncate(time.Second), SourceSHA256: fpSum}
	if err := conn.QueryRowContext(ctx, PatientsQuery).Scan(&rep.Facts.Patients); err != nil {
		return nil, fmt.Errorf("build: counting patients: %w", err)
	}
	if err := recordFacts(ctx, conn, rep.Facts); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return nil, fmt.Errorf("build: checkpoint: %w", err)
	}
	if err := conn.Close(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	if err := db.Close(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return rep, nil
}

func progress(w io.Writer, tr TableReport) {
	if w == nil {
		return
	}
	switch {
	case tr.Missing:
		fmt.Fprintf(w, "%-40s no file: created empty\n", tr.Table)
	default:
		fmt.Fprintf(w, "%-40s %12d rows  %v\n", tr.Table, tr.Rows, tr.Duration.Round(time.Millisecond))
	}
}

func createTable(ctx context.Context, conn *sql.Conn, t *Table) error {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		dt, err := duckType(c.Type)
		if err != nil {
			return fmt.Errorf("build: %s.%s: %w", t.FullName(), c.Name, err)
		}
		cols[i] = ident(c.Name) + " " + dt
	}
	stmt := fmt.Sprintf("CREATE TABLE %s.%s (%s)", ident(t.Dataset), ident(t.Name), strings.Join(cols, ", "))
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("build: create %s: %w", t.FullName(), err)
	}
	return nil
}

// tableFile finds the table's file: <module>/<name>.csv.gz, else .csv.
func tableFile(dir string, t *Table) (string, bool) {
	for _, ext := range []string{".csv.gz", ".csv"} {
		p := filepath.Join(dir, t.Module, t.Name+ext)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

func loadTable(ctx context.Context, conn *sql.Conn, dir string, t *Table) (TableReport, error) {
	start := time.Now()
	tr := TableReport{Table: t.FullName()}
	path, ok := tableFile(dir, t)
	if !ok {
		tr.Missing = true
		return tr, nil
	}
	rel, _ := filepath.Rel(dir, path)
	tr.File = rel
	if err := checkHeader(path, t); err != nil {
		return tr, fmt.Errorf("build: %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return tr, fmt.Errorf("build: %w", err)
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
		ident(t.Dataset), ident(t.Name), quote(abs), strings.Join(cols, ", "), quote(compression(path)))
	res, err := conn.ExecContext(ctx, stmt)
	if err != nil {
		return tr, fmt.Errorf("build: load %s from %s: %w", t.FullName(), path, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return tr, fmt.Errorf("build: load %s: %w", t.FullName(), err)
	}
	tr.Rows = n
	tr.Duration = time.Since(start)
	return tr, nil
}

func compression(path string) string {
	if strings.HasSuffix(path, ".gz") {
		return "gzip"
	}
	return "none"
}

// checkHeader compares the file's header row with the table's columns, so a
// file of another version or table fails with the field named rather than
// loading shifted columns.
func checkHeader(path string, t *Table) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("not a gzip file: %w", err)
		}
		defer gz.Close()
		r = gz
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return errors.New("empty file: no header row")
	}
	if err != nil {
		return fmt.Errorf("header row: %w", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	for i, c := range t.Columns {
		if i >= len(header) {
			return fmt.Errorf("header has %d fields; column %d should be %q (%s has %d columns)", len(header), i+1, c.Name, t.FullName(), len(t.Columns))
		}
		if header[i] != c.Name {
			return fmt.Errorf("header field %d is %q, want %q (%s)", i+1, header[i], c.Name, t.FullName())
		}
	}
	if len(header) > len(t.Columns) {
		return fmt.Errorf("header has %d fields, %s has %d columns (extra field %q)", len(header), t.FullName(), len(t.Columns), header[len(t.Columns)])
	}
	return nil
}

func deriveTable(ctx context.Context, conn *sql.Conn, t *Table) (TableReport, error) {
	start := time.Now()
	tr := TableReport{Table: t.FullName(), Derived: true}
	var stmt string
	switch t.FullName() {
	case DatasetDerived + ".charlson":
		stmt = charlsonSQL()
	default:
		return tr, fmt.Errorf("build: no definition for derived table %s", t.FullName())
	}
	res, err := conn.ExecContext(ctx, stmt)
	if err != nil {
		return tr, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	if tr.Rows, err = res.RowsAffected(); err != nil {
		return tr, fmt.Errorf("build: compute %s: %w", t.FullName(), err)
	}
	tr.Duration = time.Since(start)
	return tr, nil
}
