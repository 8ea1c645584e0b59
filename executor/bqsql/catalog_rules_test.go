package bqsql

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// ruleQuery finds the BigQuery query of each rule case in rules_test.go.
var ruleQuery = regexp.MustCompile("bq: `([^`]*)`")

// TestEveryFunctionHasRuleTest: every function the bridge translates
// (funcs) is called in at least one rule case, so no translation goes
// unchecked against BigQuery's documented result.
func TestEveryFunctionHasRuleTest(t *testing.T) {
	src, err := os.ReadFile("rules_test.go")
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{}
	for _, m := range ruleQuery.FindAllStringSubmatch(string(src), -1) {
		toks, err := Tokenize(m[1])
		if err != nil {
			continue // a rule case of a lexical error
		}
		var words []Token
		for _, tk := range toks {
			if tk.Kind != Space && tk.Kind != Comment {
				words = append(words, tk)
			}
		}
		for i, tk := range words {
			if tk.Kind == Ident && i+1 < len(words) && words[i+1].Text == "(" {
				called[strings.ToUpper(tk.Text)] = true
			}
		}
	}
	var missing []string
	for name := range funcs {
		if !called[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("functions without a rule case in rules_test.go: %s", strings.Join(missing, " "))
	}
}

// macroRef finds prelude macro names in Go source: a string literal that is
// the name ("bq_floor", for macro(1, 1, "bq_floor")) or calls it ("bq_div(").
var macroRef = regexp.MustCompile(`"(bq_[a-z0-9_]*[a-z0-9])"|\b(bq_[a-z0-9_]*[a-z0-9])\(`)

// tableAliases are bq_ names the translator gives derived tables, their
// columns and lambda parameters (TO_JSON_STRING's bq_j0, bq_j1, …), not
// macros.
var tableAliases = wordSetLower(`bq_setop bq_unnest bq_u bq_p bq_outer bq_j0 bq_j`)

// TestEveryReferencedMacroExists: every prelude macro the translation
// rules (and the prelude itself) name is defined in Macros, so no rule
// emits a call DuckDB cannot bind. Names built at run time (bq_date_add_
// + part) are checked by the rule cases that run them.
func TestEveryReferencedMacroExists(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range macroRef.FindAllStringSubmatch(string(src), -1) {
			name := m[1] + m[2]
			if seen[name] || tableAliases[name] || slices.Contains(goFunctions, name) { // Go functions (Functions)
				continue
			}
			seen[name] = true
			if !strings.Contains(Macros, "MACRO "+name+"(") {
				t.Errorf("%s names %s, which the prelude does not define", f, name)
			}
		}
	}
	if len(seen) < 20 {
		t.Fatalf("found only %d macro names: the pattern no longer matches the sources", len(seen))
	}
}

// TestRulesWithinSignatures: every function a rule translates is in the
// catalogue of BigQuery signatures, is called as the catalogue says
// (aggregate, analytic), and the rule's argument counts lie within
// BigQuery's: a rule never accepts a call BigQuery rejects.
func TestRulesWithinSignatures(t *testing.T) {
	for name, spec := range funcs {
		sig, ok := signatures[name]
		if !ok {
			t.Errorf("%s: translated, but not in signatureTable", name)
			continue
		}
		if spec.agg != (sig.kind == aggregateFn) || spec.window != (sig.kind == analyticFn) {
			t.Errorf("%s: rule agg=%v window=%v, catalogue kind %d", name, spec.agg, spec.window, sig.kind)
		}
		if spec.min < sig.min || (sig.max >= 0 && (spec.max < 0 || spec.max > sig.max)) {
			t.Errorf("%s: rule takes %d to %d arguments, BigQuery %d to %d", name, spec.min, spec.max, sig.min, sig.max)
		}
	}
	for name := range signatures {
		if !bqFunctions[name] {
			t.Errorf("%s: in signatureTable, not among BigQuery's function names (bqFunctions)", name)
		}
	}
}
