package bqsql

// The translation's passes over the item tree, in the order they run, in
// one place. A pass checks the statement (recording the first error, which
// stops the translation) or rewrites the tree, or both; then the tree is
// emitted as DuckDB SQL once (emitter.seq: every item by its rule in one,
// functions by funcs.go, with the restructuring of restructure.go per
// bracket level). The statement model (model.go) is built first: the
// passes and rules after it ask it for types.
//
// Where a change goes: a new function is a rule in funcs.go (with its entry
// in the signature catalogue, signatures.go, and, if its result type
// depends on its arguments, in modeltypes.go's functionType); a BigQuery
// rule a macro can carry goes in the prelude (prelude.go); a construct whose
// translation needs its operands is restructured (restructure.go); a
// decision that needs the grammar's structure and the types (which operands
// an operator has, which columns a set operation's branches line up) is
// made in the statement model while it types the tree and noted by source
// position (model.go: dateDiffs, likePatterns, starKeys, starNames,
// checkSetOpBranch),
// not by scanning items;
// a check or rewrite over whole clauses or queries is a pass here; an error
// DuckDB words its own way is worded in wording.go. Each has a rule test
// beside it that runs the translation on DuckDB.

// pass is one named transform of the item tree.
type pass struct {
	name string
	run  func(e *emitter, items []*item) []*item
}

// passes is set in init: bind checks translate a statement of their own,
// through the passes.
var passes []pass

func init() {
	passes = []pass{
		// The statement model: parsed once, names resolved, types inferred.
		{"model", func(e *emitter, items []*item) []*item {
			e.model = buildModel(e.src, e.cat)
			return items
		}},
		// Syntax the later passes read in simpler form.
		{"distinct from", func(e *emitter, items []*item) []*item { return distinctFrom(items) }},
		{"WITH expressions", func(e *emitter, items []*item) []*item {
			out, err := withExpressions(e.src, items)
			if err != nil {
				e.failWith(err)
			}
			return out
		}},
		{"nested WITH", func(e *emitter, items []*item) []*item { return nestedWith(items) }},
		{"outer aggregates", func(e *emitter, items []*item) []*item { return outerAggregates(items) }},
		// The statements the engine binds before the query (unread CTEs).
		{"bind checks", func(e *emitter, items []*item) []*item {
			if e.withBinds {
				e.binds = e.tr.bindChecks(e.ctx, e.src, items)
			}
			return items
		}},
		{"NaN order keys", func(e *emitter, items []*item) []*item { return nanOrder(items, e.model) }},
		// BigQuery's analysis checks DuckDB would let pass.
		{"reserved qualifiers", func(e *emitter, items []*item) []*item {
			if err := reservedQualifier(e.src, e.toks); err != nil {
				e.failWith(err)
			}
			return items
		}},
		{"grouping sets", func(e *emitter, items []*item) []*item { e.checkGroupingSets(items); return items }},
		{"aggregates in UNNEST", func(e *emitter, items []*item) []*item { e.checkUnnestAggregates(items); return items }},
		{"array equality", func(e *emitter, items []*item) []*item { e.checkArrayEquality(items); return items }},
		{"LIKE patterns", func(e *emitter, items []*item) []*item { e.checkLikePatterns(items); return items }},
		{"GROUP BY ALL", func(e *emitter, items []*item) []*item { groupByAllKeys(items); return items }},
		// The flat facts the type rules read (aliases, CTE columns).
		{"scan", func(e *emitter, items []*item) []*item { e.scan(items); return items }},
		// Before output columns are named (AS f0_ is raw text to the type
		// rules).
		{"set operation types", func(e *emitter, items []*item) []*item { e.checkSetOpTypes(); return items }},
		// On the model (model.noteNumericLiterals) unless it could not
		// read the query.
		{"NUMERIC set operation literals", func(e *emitter, items []*item) []*item {
			if e.model == nil {
				e.numericSetOpLiterals(items)
			}
			return items
		}},
		{"output column names", func(e *emitter, items []*item) []*item { return e.nameOutputColumns(items) }},
		{"value tables", func(e *emitter, items []*item) []*item { fromValueTables(items); return items }},
		{"SELECT tuples", func(e *emitter, items []*item) []*item { return selectTuples(items) }},
		{"SELECT AS STRUCT", func(e *emitter, items []*item) []*item { return selectAsStruct(items, true) }},
		{"set operation ORDER BY", func(e *emitter, items []*item) []*item { return wrapSetOperationOrder(items) }},
		{"output aliases", func(e *emitter, items []*item) []*item {
			e.outputNames = map[string]int{}
			e.countOutputNames(items)
			e.resolveOutputAliases(items)
			return items
		}},
		{"deferred aggregates", func(e *emitter, items []*item) []*item { e.markDeferredAggregates(items); return items }},
	}
}

// failWith records a pass's error as the translation's.
func (e *emitter) failWith(err error) {
	if e.err != nil {
		return
	}
	if te, ok := err.(*Error); ok {
		e.err = te
		return
	}
	e.err = &Error{Kind: KindUnsupported, Msg: err.Error()}
}
