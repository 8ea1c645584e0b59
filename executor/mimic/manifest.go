package mimic

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"

	"github.com/clinsql/clinsql/internal/atomicfile"
)

// ManifestPath is where [Build] writes the manifest of the database at out:
// its size, facts, and every table's rows, file and attempt (and digest
// when asked for).
func ManifestPath(out string) string { return out + ".manifest.json" }

func writeManifest(rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("build: manifest: %w", err)
	}
	if err := atomicfile.Write(rep.Manifest, append(b, '\n')); err != nil {
		return fmt.Errorf("build: manifest: %w", err)
	}
	return nil
}

// ReadManifest reads the manifest [Build] wrote for the database at out.
func ReadManifest(out string) (*Report, error) {
	b, err := os.ReadFile(ManifestPath(out))
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestPath(out), err)
	}
	return &rep, nil
}

// queryer is what *sql.Conn and *sql.DB offer for a one-row query.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// TableDigest is a digest of a table's contents that does not depend on
// row order: its row count and the sum of DuckDB's hash of every row.
// Two builds of the same files give the same digest for every table.
func TableDigest(ctx context.Context, q queryer, t *Table) (string, error) {
	var n int64
	var sum sql.NullString
	stmt := fmt.Sprintf("SELECT count(*), CAST(sum(hash(t)::HUGEINT) AS VARCHAR) FROM %s.%s AS t", ident(t.Dataset), ident(t.Name))
	if err := q.QueryRowContext(ctx, stmt).Scan(&n, &sum); err != nil {
		return "", fmt.Errorf("digest %s: %w", t.FullName(), err)
	}
	return fmt.Sprintf("%d:%s", n, sum.String), nil
}
