package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bqsql"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
)

// bridgeDialect wires the BigQuery-to-DuckDB bridge into the DuckDB engine:
// its translator, with a catalog of the MIMIC-IV schema so that table names
// and literal comparisons are checked as BigQuery checks them, its global
// settings and its macro prelude. A translation error becomes the class the
// bridge gives it: unsupported (not the model's fault) or syntax.
// bridgeFunctions names the bridge's Go functions to the duckdb engine,
// whose worker process (this binary started again) registers them.
const bridgeFunctions = "bigquery"

func init() { duckdb.RegisterFunctions(bridgeFunctions, bqsql.RegisterFunctions) }

func bridgeDialect() dialect {
	tr := &bqsql.Translator{Catalog: catalogOf(mimic.V31)}
	return dialect{
		// BigQuery analyses CTEs the query never reads, DuckDB does not:
		// TranslateChecked returns them as statements to bind first.
		Translate: func(ctx context.Context, sql string) (string, []string, error) {
			out, binds, err := tr.TranslateCheckedContext(ctx, sql)
			switch {
			case err == nil:
				return out, binds, nil
			case ctx.Err() != nil:
				// Out of time: the engine classes it (timeout, or the
				// caller's cancellation), not the bridge.
				return "", nil, err
			case errors.Is(err, bqsql.ErrUnsupported):
				return "", nil, &executor.Error{Class: executor.ClassUnsupported, Engine: duckdb.EngineName, Message: err.Error(), Err: err}
			}
			return "", nil, &executor.Error{Class: executor.ClassSyntax, Engine: duckdb.EngineName, Message: err.Error(), Err: err}
		},
		// bqsql.Prelude starts with bqsql.Settings: the engine runs the
		// (global) settings once before it locks the configuration, and the
		// macros on every connection.
		Settings: bqsql.Settings,
		Prelude:  strings.TrimPrefix(bqsql.Prelude, bqsql.Settings),
		Shape:    shapeForParser,
		// A macro's failed cast reads "Could not convert string 'division
		// by zero: 1 / 0' to DOUBLE"; users (and the refinement loop, which
		// feeds the message back to the model) get BigQuery's own words, and
		// the bridge's own limits are reported as unsupported, not blamed
		// on the query.
		Explain: bqsql.Explain,
		// FARM_FINGERPRINT is a Go function (FarmHash), registered at open
		// in the engine's worker process, which knows it by name.
		Functions: []string{bridgeFunctions},
	}
}

// catalogOf describes a schema in the bridge's catalog form. The database is
// built from the same schema value, so it matches the file's catalog.
func catalogOf(s *mimic.Schema) bqsql.Catalog {
	cat := bqsql.Catalog{}
	for _, t := range s.Tables {
		if cat[t.Dataset] == nil {
			cat[t.Dataset] = map[string]map[string]string{}
		}
		cols := map[string]string{}
		for _, c := range t.Columns {
			cols[strings.ToLower(c.Name)] = string(c.Type)
		}
		cat[t.Dataset][t.Name] = cols
	}
	return cat
}

// shapeForParser renders BigQuery SQL for DuckDB's parser to classify: the
// bridge's tokenizer finds backticked names (made double-quoted identifiers),
// string and bytes literals in every quoting (made empty strings) and
// #-comments (made -- comments); everything else is kept.
func shapeForParser(sql string) string {
	toks, _ := bqsql.Tokenize(sql)
	var b strings.Builder
	for _, t := range toks {
		switch {
		case t.Kind == bqsql.QuotedIdent:
			b.WriteString(`"` + strings.ReplaceAll(strings.Trim(t.Text, "`"), `"`, `""`) + `"`)
		case t.Kind == bqsql.String || t.Kind == bqsql.Bytes:
			b.WriteString("''")
		case t.Kind == bqsql.Comment && strings.HasPrefix(t.Text, "#"):
			b.WriteString("--" + t.Text[1:])
		default:
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
