package duckdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	duck "github.com/duckdb/duckdb-go/v2"
)

var errEOF = io.EOF

// parser is a private in-memory DuckDB instance used only to parse queries
// with DuckDB's own parser (json_serialize_sql). It holds no data, cannot
// reach files or extensions, and never runs the parsed query.
var parser = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("duckdb", "?enable_external_access=false&autoload_known_extensions=false&autoinstall_known_extensions=false&threads=1&memory_limit=256MB&lock_configuration=true")
	if err != nil {
		return nil, fmt.Errorf("duckdb parser: %w", err)
	}
	db.SetMaxOpenConns(4)
	return db, nil
})

// parsed is the part of json_serialize_sql's answer the check reads.
type parsed struct {
	Error        bool              `json:"error"`
	ErrorType    string            `json:"error_type"`
	ErrorMessage string            `json:"error_message"`
	Statements   []json.RawMessage `json:"statements"`
}

// checkSelect parses query with DuckDB's parser and returns nil only when it
// holds exactly one SELECT statement (a SELECT node or a set operation of
// them, with or without WITH). json_serialize_sql serialises SELECT
// statements only and, unlike duckdb_extract_statements, sees PRAGMA before
// DuckDB rewrites it into a SELECT. A parse error is returned as a DuckDB
// parser error; anything else that is not one SELECT is a *refusal.
func checkSelect(ctx context.Context, query string) error {
	return checkSelects(ctx, query, false)
}

// checkSelects is checkSelect that, with script, also accepts several
// SELECT statements: a script the dialect runs as one query (BigQuery runs
// a script of queries and returns the last one's result), each of whose
// translated statements is checked again on its own.
func checkSelects(ctx context.Context, query string, script bool) error {
	db, err := parser()
	if err != nil {
		return err
	}
	var out string
	if err := db.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", query).Scan(&out); err != nil {
		return fmt.Errorf("duckdb parser: %w", err)
	}
	var p parsed
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		return fmt.Errorf("duckdb parser: unreadable answer: %w", err)
	}
	switch {
	case p.Error && p.ErrorType == "parser":
		return &duck.Error{Type: duck.ErrorTypeParser, Msg: "Parser Error: " + p.ErrorMessage}
	case p.Error && strings.Contains(p.ErrorMessage, "Only SELECT"):
		return &refusal{"only a single read-only SELECT (or WITH ... SELECT) statement is allowed; DuckDB's parser found a statement of another kind (DDL, DML, ATTACH, COPY, PRAGMA, SET, INSTALL/LOAD, ...)"}
	case p.Error:
		return &refusal{fmt.Sprintf("DuckDB's parser could not read the statement as a SELECT: %s: %s", p.ErrorType, p.ErrorMessage)}
	case len(p.Statements) == 0 || (len(p.Statements) != 1 && !script):
		return &refusal{fmt.Sprintf("exactly one SELECT statement is allowed; DuckDB's parser found %d statements", len(p.Statements))}
	}
	for _, st := range p.Statements {
		var tree any
		if err := json.Unmarshal(st, &tree); err != nil {
			return fmt.Errorf("duckdb parser: unreadable statement: %w", err)
		}
		if name := hostRevealing(tree); name != "" {
			return &refusal{fmt.Sprintf("%s is not available: the engine's settings and catalog reveal the host's paths", name)}
		}
	}
	return nil
}

// hostRevealing returns the first table or function in a parsed statement
// that shows the engine's own configuration rather than data: settings
// (pg_catalog.pg_settings, duckdb_settings(), current_setting(): the spill
// folder, the home folder), the attached database files (duckdb_databases,
// pragma_database_list) and the rest of DuckDB's system views and table
// functions. None of them is part of the dialect a model writes (BigQuery
// has none of these), and several name host paths. It returns "" when the
// statement reads none.
func hostRevealing(node any) string {
	switch n := node.(type) {
	case []any:
		for _, c := range n {
			if name := hostRevealing(c); name != "" {
				return name
			}
		}
	case map[string]any:
		if n["type"] == "BASE_TABLE" {
			schema, _ := n["schema_name"].(string)
			table, _ := n["table_name"].(string)
			catalog, _ := n["catalog_name"].(string)
			if systemName(table) || strings.EqualFold(schema, "pg_catalog") || strings.EqualFold(catalog, "system") {
				return strings.TrimPrefix(strings.Join([]string{catalog, schema, table}, "."), ".")
			}
		}
		if f, ok := n["function_name"].(string); ok && (systemName(f) || strings.EqualFold(f, "current_setting")) {
			return f + "()"
		}
		for _, c := range n {
			if name := hostRevealing(c); name != "" {
				return name
			}
		}
	}
	return ""
}

// systemName reports a DuckDB system view or table function name.
func systemName(name string) bool {
	lower := strings.ToLower(name)
	for _, p := range []string{"duckdb_", "pragma_", "pg_settings"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}
