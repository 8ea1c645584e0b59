package mimic

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/clinsql/clinsql/internal/buildinfo"
	"github.com/clinsql/clinsql/runfolder"
)

// FactsTable is where [Build] records what a database holds, one row:
// source, patients, built_at, source_sha256, producer. Engines read it
// (FactsQuery) to say in a run's manifest what the answers ran on.
const FactsTable = "clinsql_meta.build"

// FactsQuery reads the facts a build recorded; PatientsQuery counts the
// patients of a database that has none (built before they were recorded).
const (
	FactsQuery    = "SELECT source, patients, CAST(built_at AS VARCHAR), source_sha256 FROM " + FactsTable
	PatientsQuery = "SELECT count(*) FROM mimiciv_3_1_hosp.patients"
)

// Sources named in the facts.
const (
	// SourceDemo: the folder holds PhysioNet's demo_subject_id.csv, the
	// list of the 100 patients the MIMIC-IV demo was cut to.
	SourceDemo = "mimic-iv-demo"
	SourceFull = "mimic-iv"
)

// Facts are what a build records about its database.
type Facts struct {
	// Source is SourceDemo or SourceFull.
	Source string `json:"source"`
	// Patients is the row count of mimiciv_3_1_hosp.patients.
	Patients int64     `json:"patients"`
	Built    time.Time `json:"built_at"`
	// SourceSHA256 fingerprints the loaded files: SHA-256 over each file's
	// path relative to the source folder and SHA-256, in path order.
	SourceSHA256 string `json:"source_sha256"`
}

// IsSample reports whether a database of n patients is a sample of
// MIMIC-IV rather than the whole of it (fewer than a tenth of v3.1's
// patients, such as the 100-patient demo): its empty groups and its scores
// are the sample's doing.
func IsSample(n int64) bool { return runfolder.IsSample(n) }

// sourceKind names the source folder's release.
func sourceKind(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "demo_subject_id.csv")); err == nil {
		return SourceDemo
	}
	return SourceFull
}

// hashSources hashes the files the schema's tables load from dir: the
// SHA-256 of each, by path relative to dir (slash-separated). Digests in
// known (files of tables an earlier attempt loaded, unchanged since) are
// taken as they are.
func hashSources(ctx context.Context, dir string, schema *Schema, known map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range schema.Tables {
		if t.Module == "" {
			continue
		}
		p, ok := tableFile(dir, t)
		if !ok {
			continue
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if sum, ok := known[rel]; ok {
			out[rel] = sum
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// fingerprint is SourceSHA256: SHA-256 over each file's relative path,
// size and SHA-256, in path order.
func fingerprint(digests map[string]string) string {
	rels := make([]string, 0, len(digests))
	for rel := range digests {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	all := sha256.New()
	for _, rel := range rels {
		fmt.Fprintf(all, "%s\x00%s\n", rel, digests[rel])
	}
	return hex.EncodeToString(all.Sum(nil))
}

// recordFacts writes the facts table of a built database.
func recordFacts(ctx context.Context, conn *sql.Conn, f Facts) error {
	stmts := []string{
		"CREATE SCHEMA IF NOT EXISTS clinsql_meta",
		"CREATE OR REPLACE TABLE " + FactsTable + " (source VARCHAR, patients BIGINT, built_at TIMESTAMP, source_sha256 VARCHAR, producer VARCHAR)",
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("build: %s: %w", FactsTable, err)
		}
	}
	_, err := conn.ExecContext(ctx, "INSERT INTO "+FactsTable+" VALUES (?, ?, ?, ?, ?)",
		f.Source, f.Patients, f.Built, f.SourceSHA256, buildinfo.Current().String())
	if err != nil {
		return fmt.Errorf("build: %s: %w", FactsTable, err)
	}
	return nil
}

// ParseFacts reads the row of FactsQuery (values as the engine returns
// them).
func ParseFacts(row []any) (Facts, error) {
	if len(row) != 4 {
		return Facts{}, fmt.Errorf("%s: %d columns, want 4", FactsTable, len(row))
	}
	var f Facts
	var ok bool
	if f.Source, ok = row[0].(string); !ok {
		return f, fmt.Errorf("%s: source is %T", FactsTable, row[0])
	}
	switch n := row[1].(type) {
	case int64:
		f.Patients = n
	case string:
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return f, fmt.Errorf("%s: patients %q", FactsTable, n)
		}
		f.Patients = v
	default:
		return f, fmt.Errorf("%s: patients is %T", FactsTable, row[1])
	}
	if s, ok := row[2].(string); ok {
		f.Built, _ = time.Parse("2006-01-02 15:04:05.999999", s)
	}
	f.SourceSHA256, _ = row[3].(string)
	return f, nil
}
