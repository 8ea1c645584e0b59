package bqduck

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bqsql"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/runfolder"
)

// Options configure the engine. Zero fields take executor/duckdb's
// defaults.
type Options struct {
	// DB is the database file (clinsql db build).
	DB     string
	Limits executor.Limits
	// Memory is DuckDB's memory limit ("2GB"), Threads its threads per
	// query, Conns the queries run at once.
	Memory  string
	Threads int
	Conns   int
	// ZeroDivision is what a division by zero gives ("" is auto).
	ZeroDivision ZeroDivision
	// Catalog is what the translator checks table names and literal
	// comparisons against; nil is the catalog of mimic.V31, the schema
	// clinsql db build writes.
	Catalog bqsql.Catalog
	// NoCatalog skips those checks: a database of other tables (the
	// GoogleSQL compliance cases bring their own).
	NoCatalog bool
}

// Engine is the DuckDB engine behind the BigQuery bridge.
type Engine struct {
	*duckdb.Engine
	semantics string
	facts     runfolder.DatabaseFacts
}

// Semantics names the options that change the engine's results (the
// division by zero): refine records them in a run's settings, so that a run
// is not resumed under other semantics.
func (e *Engine) Semantics() string { return e.semantics }

// DatabaseFacts is what the engine found about its database's data, for a
// run's manifest.
func (e *Engine) DatabaseFacts() runfolder.DatabaseFacts { return e.facts }

// Open opens the database read-only with the bridge plugged in, reads its
// facts and settles the division by zero before any query runs.
func Open(ctx context.Context, o Options) (*Engine, error) {
	if o.DB == "" {
		return nil, errors.New("no database file (--db)")
	}
	if _, err := ParseZeroDivision(string(o.ZeroDivision)); err != nil {
		return nil, err
	}
	cat := o.Catalog
	if cat == nil && !o.NoCatalog {
		cat = CatalogOf(mimic.V31)
	}
	// relax is decided once the database can be read, before any query.
	var relax atomic.Bool
	opts := dialect(cat)
	opts.Limits, opts.MemoryLimit, opts.Threads, opts.MaxConns = o.Limits, o.Memory, o.Threads, o.Conns
	opts.Relax = func(msg string) (string, string, bool) {
		if !relax.Load() {
			return "", "", false
		}
		return bqsql.RelaxDivision(msg)
	}
	eng, err := duckdb.Open(o.DB, opts)
	if err != nil {
		return nil, err
	}
	facts, countErr := databaseFacts(ctx, eng)
	on, err := relaxed(facts, countErr, o.ZeroDivision)
	if err != nil {
		eng.Close()
		return nil, err
	}
	relax.Store(on)
	sem := "division_by_zero=error"
	if on {
		sem = "division_by_zero=null"
	}
	return &Engine{Engine: eng, semantics: sem, facts: facts}, nil
}

// dialect is the bridge's part of the DuckDB engine's options: its
// translator over cat (nil: unchecked), settings, macros, Go functions,
// parser shape and error wording.
func dialect(cat bqsql.Catalog) duckdb.Options {
	tr := &bqsql.Translator{Catalog: cat}
	return duckdb.Options{
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
		// FARM_FINGERPRINT and the other Go functions, registered at open
		// in the engine's worker process, which finds them by this name.
		Functions: []string{functionSet},
	}
}

// functionSet names Functions to the DuckDB engine: its worker process
// (this binary started again) defines them by the same init function.
const functionSet = "bigquery"

func init() { duckdb.DefineFunctions(functionSet, Functions) }

// Functions are bqsql.Functions as the DuckDB engine registers them.
func Functions() []duckdb.Function {
	fns := bqsql.Functions()
	out := make([]duckdb.Function, len(fns))
	for i, f := range fns {
		out[i] = duckdb.Function(f)
	}
	return out
}

// CatalogOf describes a schema in the bridge's catalog form. The database
// is built from the same schema value, so it matches the file's catalog.
func CatalogOf(s *mimic.Schema) bqsql.Catalog {
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
// #-comments (made -- comments); everything else is kept. A script in
// BigQuery's procedural language has no shape: the bridge classifies it
// (unsupported, or invalid where BigQuery's parser rejects it), where
// DuckDB's parser would refuse its SET or CALL as a DuckDB statement.
func shapeForParser(sql string) string {
	if bqsql.ProceduralScript(sql) {
		return ""
	}
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
