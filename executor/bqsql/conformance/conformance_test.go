package conformance

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver
	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bqduck"
	goldenfile "github.com/clinsql/clinsql/internal/golden"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
)

var (
	update = flag.Bool("update", false, "rewrite testdata golden files")
	dump   = flag.String("dump", "", "write every applicable case's outcome and constructs as JSON lines to this file")
)

// Outcome classifies one applicable case.
type Outcome string

const (
	Agrees          Outcome = "agrees"
	BothError       Outcome = "both_error"
	WrongValue      Outcome = "wrong_value"       // silent wrong answer
	ValueWhereError Outcome = "value_where_error" // silent wrong answer
	Unsupported     Outcome = "unsupported"
	Failure         Outcome = "failure"
	BadExpectation  Outcome = "bad_expectation" // the harness cannot read the expected result
)

var outcomes = []Outcome{Agrees, BothError, WrongValue, ValueWhereError, Unsupported, Failure, BadExpectation}

type result struct {
	c       Case
	outcome Outcome
	detail  string
	uses    []string
}

// caseTimeout bounds one case; the slowest take well under a second.
const caseTimeout = 20 * time.Second

// TestConformance runs every applicable compliance case through the
// embedded engine and compares the tables it prints (summary.golden: the
// headline, per file, per function or construct; cases.golden: every case
// that does not agree) with the committed ones. -update rewrites them.
func TestConformance(t *testing.T) {
	if testrace.Enabled {
		t.Skip("the compliance run goes without the race detector (make test's second pass, make conformance)")
	}
	dir := shared.Path(t, "zetasql-compliance", "testdata")
	usage := modelUsage(t, shared.Path(t, "clinsql-data", "outputs", "inference"))
	files, err := filepath.Glob(filepath.Join(dir, "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no compliance files in %s (%v)", dir, err)
	}
	var cases []Case
	notApplicable := map[string]int{}
	for _, f := range files {
		cs, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Skip != "" {
				notApplicable[c.Skip]++
				continue
			}
			cases = append(cases, c)
		}
	}
	eng := openEngine(t)
	results := make([]result, len(cases))
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(2) // the machine's cores; DuckDB runs each query on one thread
	for i := range cases {
		g.Go(func() error {
			results[i] = run(ctx, eng, cases[i])
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if *dump != "" {
		writeDump(t, *dump, results, usage)
	}
	summary := renderSummary(results, usage, notApplicable, len(files))
	golden(t, "summary.golden", summary)
	golden(t, "cases.golden", renderCases(results))
	t.Log("\n" + summary[:strings.Index(summary, "\n\n")])
}

// openEngine opens the embedded engine as clinsql opens it (executor/bqduck)
// on an empty database: every case brings its own tables, so the translator
// has no catalog to check them against. Division by zero is strict, as in
// BigQuery.
func openEngine(t *testing.T) *bqduck.Engine {
	t.Helper()
	path := filepath.Join(t.TempDir(), "empty.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE keep_file (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	eng, err := bqduck.Open(context.Background(), bqduck.Options{DB: path, Limits: executor.Limits{Timeout: caseTimeout, MaxRows: 10000},
		Conns: 2, Threads: 1, Memory: "1GB", NoCatalog: true, ZeroDivision: bqduck.ZeroDivisionError})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// run executes one case and classifies it.
func run(ctx context.Context, eng *bqduck.Engine, c Case) result {
	r := result{c: c, uses: Usage(c.Query)}
	exp, err := ParseExpected(c.Expect)
	if err != nil {
		r.outcome, r.detail = BadExpectation, err.Error()
		return r
	}
	res, qerr := eng.Query(ctx, c.SQL())
	var xe *executor.Error
	switch {
	case exp.Error != "" && qerr != nil:
		r.outcome, r.detail = BothError, message(qerr)
	case exp.Error != "":
		r.outcome, r.detail = ValueWhereError, "BigQuery: "+exp.Error
	case qerr != nil && errors.As(qerr, &xe) && xe.Class == executor.ClassUnsupported:
		r.outcome, r.detail = Unsupported, message(qerr)
	case qerr != nil:
		r.outcome, r.detail = Failure, message(qerr)
	default:
		if d := exp.Compare(res); d != "" {
			r.outcome, r.detail = WrongValue, d
		} else {
			r.outcome = Agrees
		}
	}
	return r
}

// message is an error's class and first line, for the case table.
func message(err error) string {
	var xe *executor.Error
	s := err.Error()
	if errors.As(err, &xe) {
		s = string(xe.Class) + ": " + xe.Message
	}
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// modelUsage counts, per function or construct, the released models'
// final queries that use it.
func modelUsage(t *testing.T, root string) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "*", "*", "*", "*", "*", "execution_summary.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no execution_summary.json under %s (%v)", root, err)
	}
	uses := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			SQL string `json:"final_sql"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: final_sql: %v", f, err)
		}
		for _, u := range Usage(s.SQL) {
			uses[u]++
		}
	}
	uses[""] = len(files) // the number of queries, for the table's header
	return uses
}

type tally map[Outcome]int

func (t tally) total() int {
	n := 0
	for _, v := range t {
		n += v
	}
	return n
}

// agreeing: the engine answered as BigQuery does (same value, or both refuse).
func (t tally) agreeing() int { return t[Agrees] + t[BothError] }

func (t tally) row() string {
	var b strings.Builder
	for _, o := range outcomes {
		fmt.Fprintf(&b, " %6d", t[o])
	}
	return b.String()
}

func header(first string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-44s %6s", first, "cases")
	for _, o := range []string{"agree", "botherr", "wrong", "v/err", "unsup", "fail", "badexp"} {
		fmt.Fprintf(&b, " %6s", o)
	}
	return b.String()
}

// usageWeighted is each function or construct's agreement over its cases,
// weighted by the number of model queries using it. With onlyUsed, cases
// that also use a construct no model query uses are left out: their
// failures say nothing about the SQL models write.
func usageWeighted(results []result, usage map[string]int, onlyUsed bool) float64 {
	perUse := map[string]tally{}
	for _, r := range results {
		if onlyUsed && slices.ContainsFunc(r.uses, func(u string) bool { return usage[u] == 0 }) {
			continue
		}
		for _, u := range r.uses {
			if perUse[u] == nil {
				perUse[u] = tally{}
			}
			perUse[u][r.outcome]++
		}
	}
	var num, den float64
	for u, tl := range perUse {
		if n := usage[u]; n > 0 && tl.total() > 0 {
			num += float64(n) * float64(tl.agreeing()) / float64(tl.total())
			den += float64(n)
		}
	}
	return pct(num, den)
}

// renderSummary writes the headline, the table per file and the table per
// function or construct.
func renderSummary(results []result, usage map[string]int, notApplicable map[string]int, nfiles int) string {
	all := tally{}
	perFile := map[string]tally{}
	perUse := map[string]tally{}
	usedCases := tally{}
	for _, r := range results {
		all[r.outcome]++
		if perFile[r.c.File] == nil {
			perFile[r.c.File] = tally{}
		}
		perFile[r.c.File][r.outcome]++
		used := true
		for _, u := range r.uses {
			if perUse[u] == nil {
				perUse[u] = tally{}
			}
			perUse[u][r.outcome]++
			used = used && usage[u] > 0
		}
		if used {
			usedCases[r.outcome]++
		}
	}
	weighted, weightedUsed := usageWeighted(results, usage, false), usageWeighted(results, usage, true)
	skipped := 0
	for _, n := range notApplicable {
		skipped += n
	}
	var b strings.Builder
	fmt.Fprintf(&b, "GoogleSQL compliance: %d files, %d cases, %d applicable, %d not applicable\n", nfiles, len(results)+skipped, len(results), skipped)
	fmt.Fprintf(&b, "model queries read for usage: %d\n", usage[""])
	fmt.Fprintf(&b, "usage-weighted agreement: %.1f%%\n", weighted)
	fmt.Fprintf(&b, "usage-weighted agreement on cases using only constructs models use (issue 15's target): %.1f%%\n", weightedUsed)
	fmt.Fprintf(&b, "agreement over applicable cases: %.1f%% (%d of %d)\n", pct(float64(all.agreeing()), float64(all.total())), all.agreeing(), all.total())
	fmt.Fprintf(&b, "silent wrong answers, all applicable cases: %d wrong value, %d value where BigQuery errors\n", all[WrongValue], all[ValueWhereError])
	fmt.Fprintf(&b, "cases using only constructs models use: %d; agreement %.1f%%; silent wrong: %d wrong value, %d value where BigQuery errors\n",
		usedCases.total(), pct(float64(usedCases.agreeing()), float64(usedCases.total())), usedCases[WrongValue], usedCases[ValueWhereError])
	b.WriteString("\n")
	fmt.Fprintf(&b, "%s\n", header("outcome totals"))
	fmt.Fprintf(&b, "%-44s %6d%s\n", "all applicable", all.total(), all.row())
	b.WriteString("\nnot applicable, by reason:\n")
	for _, k := range sortedKeys(notApplicable) {
		fmt.Fprintf(&b, "  %6d  %s\n", notApplicable[k], k)
	}
	b.WriteString("\n" + header("file") + "\n")
	for _, f := range sortedKeys(perFile) {
		fmt.Fprintf(&b, "%-44s %6d%s\n", f, perFile[f].total(), perFile[f].row())
	}
	b.WriteString("\n" + header("function or construct (model queries using it)") + "  agree%\n")
	uses := sortedKeys(perUse)
	sort.SliceStable(uses, func(i, j int) bool { return usage[uses[i]] > usage[uses[j]] })
	for _, u := range uses {
		tl := perUse[u]
		fmt.Fprintf(&b, "%-44s %6d%s  %5.1f\n", fmt.Sprintf("%s (%d)", u, usage[u]), tl.total(), tl.row(), pct(float64(tl.agreeing()), float64(tl.total())))
	}
	return b.String()
}

// renderCases lists every applicable case that does not agree.
func renderCases(results []result) string {
	var lines []string
	for _, r := range results {
		if r.outcome == Agrees || r.outcome == BothError {
			continue
		}
		detail := strings.Join(strings.Fields(r.detail), " ") // one line per case
		lines = append(lines, fmt.Sprintf("%-17s %s:%d %s: %s", r.outcome, r.c.File, r.c.Line, r.c.Name, detail))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func pct(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return 100 * num / den
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

// writeDump writes one JSON line per applicable case, for finding which
// failures weigh most in the usage-weighted figure.
func writeDump(t *testing.T, path string, results []result, usage map[string]int) {
	t.Helper()
	var b strings.Builder
	for _, r := range results {
		w := map[string]int{}
		for _, u := range r.uses {
			w[u] = usage[u]
		}
		line, err := json.Marshal(map[string]any{
			"case": fmt.Sprintf("%s:%d %s", r.c.File, r.c.Line, r.c.Name), "outcome": r.outcome,
			"detail": r.detail, "uses": w, "sql": r.c.SQL(),
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
