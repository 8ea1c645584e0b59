package bqsql_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bqduck"
	"github.com/clinsql/clinsql/executor/bqsql"
	"github.com/clinsql/clinsql/executor/mimic"
	goldenfile "github.com/clinsql/clinsql/internal/golden"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
)

// The real-query golden pins every query the project holds to its outcome
// on the demo database: the released models' final SQL (execution_summary.json
// final_sql; the refinement attempts before it are recorded with their error
// only, not their SQL) and the validation split's gold SQL. A query that ran
// is pinned with its row count and a digest of its result (column names and
// types, then the rows as CSV prints them, in sorted order); one that failed with the error's
// class, whose fault that class is, and the message's family (quoted text and
// digits blanked, so the licensed SQL text stays out of the repository).
//
// A change shows up query by query; -update (UPDATE=1 in make) rewrites the
// file after review. A query that ran and now fails is a regression unless
// BigQuery itself rejected it (its recorded outcome): -update does not accept
// one.

var update = flag.Bool("update", false, "rewrite testdata golden files")

const realQueryGolden = "testdata/realquery.golden"

// realQuery is one query the project holds.
type realQuery struct {
	Key string // model/Domain/difficulty/id@attemptN, or gold/Domain/difficulty/id
	SQL string
	// BQ is BigQuery's recorded outcome: "ran", "rejected", or "gold"
	// (the gold SQL, which BigQuery ran to produce the gold result).
	BQ string
}

func (q realQuery) bigQueryRan() bool { return q.BQ != "rejected" }

// realQueries reads every final SQL the released runs hold and every gold
// query of the validation split, in key order.
func realQueries(tb testing.TB) []realQuery {
	root := shared.Path(tb, "clinsql-data", "outputs", "inference")
	files, err := filepath.Glob(filepath.Join(root, "*", "validation", "*", "*", "*", "execution_summary.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []realQuery
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var r struct {
			SQL      string            `json:"final_sql"`
			Success  bool              `json:"execution_success"`
			Attempts []json.RawMessage `json:"refinement_attempts"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		if strings.TrimSpace(r.SQL) == "" {
			continue // the model gave no SQL: nothing to run
		}
		rel, _ := filepath.Rel(root, filepath.Dir(f))
		parts := strings.Split(filepath.ToSlash(rel), "/") // model/validation/Domain/difficulty/id
		bq := "rejected"
		if r.Success {
			bq = "ran"
		}
		key := fmt.Sprintf("%s/%s@attempt%d", parts[0], strings.Join(parts[2:], "/"), len(r.Attempts))
		out = append(out, realQuery{Key: key, SQL: r.SQL, BQ: bq})
	}
	for _, f := range goldFiles(tb) {
		out = append(out, realQuery{Key: "gold/" + taskName(f), SQL: readFile(tb, f), BQ: "gold"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	for i := 1; i < len(out); i++ {
		if out[i].Key == out[i-1].Key {
			tb.Fatalf("two queries keyed %s", out[i].Key)
		}
	}
	return out
}

// realOutcome renders what the engine did with a query, one line.
func realOutcome(ctx context.Context, run func(context.Context, string) (*executor.Result, error), sql string, cat bqsql.Catalog) string {
	res, err := run(ctx, sql)
	if err != nil {
		class := executor.ClassOf(err)
		blame := "engine"
		if class.ModelFault() {
			blame = "model"
		}
		return fmt.Sprintf("fail %s blame=%s: %s", class, blame, errorFamily(err, sql, cat))
	}
	if f := volatileCall(sql); f != "" {
		// The result changes run to run (RAND) or day to day
		// (CURRENT_DATE): only that it ran is pinned.
		return "ran volatile=" + f
	}
	if res.Truncated {
		// The rows kept of a capped result depend on an order the query
		// may leave open.
		return fmt.Sprintf("ran rows=%d truncated", res.TotalRows)
	}
	h := sha256.New()
	for _, c := range res.Columns {
		fmt.Fprintf(h, "%s %s\n", c.Name, c.Type)
	}
	// Rows in sorted order: BigQuery leaves the order open without ORDER
	// BY, and so does DuckDB (a hash join's output varies run to run).
	lines := make([]string, len(res.Rows))
	for i, row := range res.Rows {
		var b strings.Builder
		for _, v := range row {
			s, err := executor.FormatValue(v)
			if err != nil {
				return "fail digest: " + err.Error()
			}
			if f, ok := v.(float64); ok {
				// 12 significant digits: a SUM over rows whose order
				// varies (see above) may differ in the last bits.
				s = strconv.FormatFloat(f, 'g', 12, 64)
			}
			if v == nil {
				s = "\x00NULL"
			}
			b.WriteString(s)
			b.WriteByte(0x1f)
		}
		lines[i] = b.String()
	}
	sort.Strings(lines)
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	out := fmt.Sprintf("ran rows=%d sha=%s", res.TotalRows, hex.EncodeToString(h.Sum(nil))[:16])
	if len(res.Warnings) > 0 {
		out += " warned" // ran only because a division by zero gave NULL
	}
	return out
}

// volatileCall returns the first function the query calls whose value
// BigQuery documents as changing between runs (RAND, GENERATE_UUID, the
// CURRENT_ date and time functions), or "".
func volatileCall(sql string) string {
	toks, _ := bqsql.Tokenize(sql)
	for _, t := range toks {
		if t.Kind != bqsql.Ident {
			continue
		}
		switch up := strings.ToUpper(t.Text); up {
		case "RAND", "GENERATE_UUID", "CURRENT_DATE", "CURRENT_DATETIME", "CURRENT_TIME", "CURRENT_TIMESTAMP":
			return up
		}
	}
	return ""
}

var (
	quotedText = regexp.MustCompile(`"[^"\n]*"|'[^'\n]*'|` + "`[^`\n]*`")
	lineCol    = regexp.MustCompile(` at \[[0-9]+:[0-9]+\]`)
	wordRE     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// errorFamily is the first line of an error message with quoted text and
// digits blanked, and every word of the query's names and literals blanked
// unless it is public vocabulary (a BigQuery keyword or function name, a MIMIC-IV
// table or column name): stable, and free of the query's text.
func errorFamily(err error, sql string, cat bqsql.Catalog) string {
	msg := firstLine(err.Error())
	msg = lineCol.ReplaceAllString(msg, "")
	msg = quotedText.ReplaceAllString(msg, "…")
	written := map[string]bool{} // the query's names and literals, not its comments
	toks, _ := bqsql.Tokenize(sql)
	for _, t := range toks {
		if t.Kind == bqsql.Ident || t.Kind == bqsql.QuotedIdent || t.Kind == bqsql.String || t.Kind == bqsql.Bytes {
			for _, w := range wordRE.FindAllString(t.Text, -1) {
				written[strings.ToLower(w)] = true
			}
		}
	}
	msg = wordRE.ReplaceAllStringFunc(msg, func(w string) string {
		if !written[strings.ToLower(w)] || publicWord(w, cat) {
			return w
		}
		return "…"
	})
	msg = digits.ReplaceAllString(msg, "N")
	if r := []rune(msg); len(r) > 120 {
		msg = string(r[:120]) + "…"
	}
	return msg
}

// TestRealQueries runs every real query on the demo database and compares
// the outcomes with testdata/realquery.golden.
func TestRealQueries(t *testing.T) {
	if testrace.Enabled {
		t.Skip("the real-query golden runs without the race detector (make test's second pass)")
	}
	qs := realQueries(t)
	eng, cat := demoEngine(t), bqduck.CatalogOf(mimic.V31)
	got := make([]string, len(qs))
	start := time.Now()
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(2) // the engine holds two connections
	for i, q := range qs {
		// The engine's queryTimeout (30 s) is twenty times the slowest
		// query on a loaded machine (1.5 s): a timeout here is a hang.
		g.Go(func() error {
			got[i] = realOutcome(ctx, eng.Query, q.SQL, cat)
			return nil
		})
	}
	_ = g.Wait() // per-query failures are data
	t.Logf("%d queries in %v", len(qs), time.Since(start).Round(time.Millisecond))

	var b strings.Builder
	b.WriteString("# The outcome of every real query on the demo database (executor/bqsql/realquery_test.go).\n")
	b.WriteString("# key\tBigQuery's recorded outcome\toutcome here\n")
	for i, q := range qs {
		fmt.Fprintf(&b, "%s\tbq=%s\t%s\n", q.Key, q.BQ, got[i])
	}
	want, err := readRealGolden(realQueryGolden)
	if err != nil && !(*update && errors.Is(err, os.ErrNotExist)) {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	// Regressions first: they fail even with -update.
	ran, regressions, changed := 0, 0, 0
	for i, q := range qs {
		now := got[i]
		if strings.HasPrefix(now, "ran ") {
			ran++
		}
		before, ok := want[q.Key]
		if !ok || before.outcome == now {
			continue
		}
		changed++
		if strings.HasPrefix(before.outcome, "ran ") && !strings.HasPrefix(now, "ran ") && q.bigQueryRan() {
			regressions++
			t.Errorf("REGRESSION %s (BigQuery %s): ran before, now %s", q.Key, q.BQ, now)
			continue
		}
		t.Logf("changed %s (bq=%s):\n\twas %s\n\tnow %s", q.Key, q.BQ, before.outcome, now)
	}
	held := map[string]bool{}
	for _, q := range qs {
		held[q.Key] = true
	}
	for k, line := range want {
		if !held[k] {
			t.Logf("gone %s (was %s)", k, line.outcome)
		}
	}
	t.Logf("%d of %d ran; %d changed, %d regressions", ran, len(qs), changed, regressions)
	if regressions > 0 {
		return // never rewrite the golden over a regression
	}
	goldenfile.Check(t, realQueryGolden, b.String(), *update)
}

// publicWord reports whether a word is BigQuery's or MIMIC-IV's vocabulary
// rather than a name the query made up.
func publicWord(w string, cat bqsql.Catalog) bool {
	up := strings.ToUpper(w)
	if bqsql.PublicVocabulary(up) {
		return true
	}
	low := strings.ToLower(w)
	for ds, tables := range cat {
		if ds == low {
			return true
		}
		for t, cols := range tables {
			if t == low || cols[low] != "" {
				return true
			}
		}
	}
	return false
}

type realGoldenLine struct{ bq, outcome string }

// readRealGolden reads the golden into key -> line.
func readRealGolden(path string) (map[string]realGoldenLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]realGoldenLine{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || !strings.HasPrefix(f[1], "bq=") {
			return nil, fmt.Errorf("%s:%d: want key<TAB>bq=…<TAB>outcome", path, n)
		}
		out[f[0]] = realGoldenLine{bq: strings.TrimPrefix(f[1], "bq="), outcome: f[2]}
	}
	return out, sc.Err()
}

const modelCoverageGolden = "testdata/modelcoverage.golden"

// TestModelCoverage pins which real queries the statement model reads
// (zetajones parses them as GoogleSQL): the figure the README states, and
// every query BigQuery ran that it cannot read, by key. A query it cannot
// read is still translated, by the rules' fallbacks.
func TestModelCoverage(t *testing.T) {
	qs := realQueries(t)
	var ran, parsed int
	var missed []string
	for _, q := range qs {
		if !q.bigQueryRan() {
			continue
		}
		ran++
		if bqsql.ModelParses(q.SQL) {
			parsed++
		} else {
			missed = append(missed, q.Key)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The statement model's coverage of the real queries BigQuery ran (executor/bqsql/realquery_test.go).\n")
	fmt.Fprintf(&b, "read %d of %d\n", parsed, ran)
	for _, k := range missed {
		fmt.Fprintf(&b, "not read\t%s\n", k)
	}
	goldenfile.Check(t, modelCoverageGolden, b.String(), *update)
}

// TestREADMERealQueryFigures checks the figures the README states from the
// committed real-query golden (it needs no shared data): of the queries
// BigQuery ran, how many run here; of those it rejected, how many fail here
// as the model's error, and how many run.
func TestREADMERealQueryFigures(t *testing.T) {
	lines, err := readRealGolden(realQueryGolden)
	if err != nil {
		t.Fatal(err)
	}
	var bqRan, ran, bqRejected, modelFault, rejectedRan int
	for _, l := range lines {
		switch l.bq {
		case "ran":
			bqRan++
			if strings.HasPrefix(l.outcome, "ran") {
				ran++
			}
		case "rejected":
			bqRejected++
			switch {
			case strings.HasPrefix(l.outcome, "ran"):
				rejectedRan++
			case strings.Contains(l.outcome, " blame=model:"):
				modelFault++
			}
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	n := func(k int) string { // 2,236 as the README writes it
		s := strconv.Itoa(k)
		if len(s) > 3 {
			s = s[:len(s)-3] + "," + s[len(s)-3:]
		}
		return s
	}
	for _, want := range []string{
		fmt.Sprintf("of the %s released queries BigQuery ran, %s run on the demo", n(bqRan), n(ran)),
		fmt.Sprintf("of the %s it rejected, %s fail here as the model's error, and the %d that run", n(bqRejected), n(modelFault), rejectedRan),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md does not say %q (testdata/realquery.golden)", want)
		}
	}
}
