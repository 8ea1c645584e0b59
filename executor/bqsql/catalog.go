package bqsql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Catalog describes the embedded database: schema -> table -> lower-case
// column name -> BigQuery type name (INT64, STRING, DATETIME, …). Schema and
// table names keep their exact case, since BigQuery's are case-sensitive.
type Catalog map[string]map[string]map[string]string

// HasSchema reports whether the schema exists.
func (c Catalog) HasSchema(schema string) bool {
	_, ok := c[schema]
	return ok
}

// HasTable reports whether schema.table exists, with exact case.
func (c Catalog) HasTable(schema, table string) bool {
	_, ok := c[schema][table]
	return ok
}

// ColumnType returns the BigQuery type of a column ("" when unknown).
// Column names are case-insensitive, as in BigQuery.
func (c Catalog) ColumnType(schema, table, column string) string {
	return c[schema][table][strings.ToLower(column)]
}

// Querier is what LoadCatalog needs from a database handle (*sql.DB,
// *sql.Conn and *sql.Tx all satisfy it).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// LoadCatalog reads the catalog of the MIMIC schemas from a DuckDB
// connection's information_schema.
func LoadCatalog(ctx context.Context, db Querier) (Catalog, error) {
	rows, err := db.QueryContext(ctx, `SELECT table_schema, table_name, column_name, data_type
		FROM information_schema.columns
		WHERE table_schema IN ('mimiciv_3_1_hosp', 'mimiciv_3_1_icu', 'mimiciv_3_1_derived')`)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	defer rows.Close()
	cat := Catalog{}
	for rows.Next() {
		var schema, table, column, typ string
		if err := rows.Scan(&schema, &table, &column, &typ); err != nil {
			return nil, fmt.Errorf("read catalog: %w", err)
		}
		if cat[schema] == nil {
			cat[schema] = map[string]map[string]string{}
		}
		if cat[schema][table] == nil {
			cat[schema][table] = map[string]string{}
		}
		cat[schema][table][strings.ToLower(column)] = BigQueryType(typ)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	return cat, nil
}

// BigQueryType maps a DuckDB type name to the BigQuery type it stands for in
// the embedded database (the inverse of the translation of type names).
func BigQueryType(duck string) string {
	t := strings.ToUpper(strings.TrimSpace(duck))
	switch {
	case strings.HasSuffix(t, "[]"):
		if inner := BigQueryType(strings.TrimSuffix(t, "[]")); inner != "" {
			return "ARRAY<" + inner + ">"
		}
		return ""
	case strings.HasPrefix(t, "STRUCT"):
		return "STRUCT"
	case strings.HasPrefix(t, "DECIMAL"):
		if t == "DECIMAL(38,9)" || t == "DECIMAL(38, 9)" {
			return "NUMERIC"
		}
		return "NUMERIC"
	}
	switch t {
	case "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT", "UBIGINT", "UINTEGER", "USMALLINT", "UTINYINT":
		return "INT64"
	case "DOUBLE", "FLOAT", "REAL":
		return "FLOAT64"
	case "VARCHAR", "TEXT":
		return "STRING"
	case "BOOLEAN":
		return "BOOL"
	case "DATE":
		return "DATE"
	case "TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_S":
		return "DATETIME"
	case "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ":
		return "TIMESTAMP"
	case "TIME":
		return "TIME"
	case "BLOB":
		return "BYTES"
	case "INTERVAL":
		return "INTERVAL"
	}
	return ""
}
