package bqsql

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/shared"
)

// The agreement benchmark replays the 16 models' recorded final SQL on the
// embedded engine and compares its accept/reject decision with BigQuery's
// recorded outcome (execution_summary.json: final_sql, execution_success,
// final_error).

type recorded struct {
	Path      string
	SQL       string `json:"final_sql"`
	Success   bool   `json:"execution_success"`
	Error     string `json:"final_error"`
	Generated bool
}

func loadRecorded(tb testing.TB) []recorded {
	root := shared.Path(tb, "clinsql-data", "outputs", "inference")
	files, err := filepath.Glob(filepath.Join(root, "*", "validation", "*", "*", "*", "execution_summary.json"))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(files)
	var out []recorded
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var r recorded
		if err := json.Unmarshal(b, &r); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		r.Path = f
		r.Generated = strings.TrimSpace(r.SQL) != ""
		out = append(out, r)
	}
	return out
}

// agreement is the outcome of a replay.
type agreement struct {
	Total, Empty                int
	BQRan, BQRanRuns            int
	BQRejected, BQRejectedAlso  int
	RanButFailed                map[string][]string // cause -> query paths
	RejectedButRan              map[string][]string // BigQuery error family -> query paths
	RejectedHow                 map[string]int      // how the embedded engine rejected what BigQuery rejected
	RanStages, RejectedStages   map[string]int
	Elapsed                     time.Duration
	Timeouts, TranslateFailures int
	SlowestPath                 string
	Slowest                     time.Duration
}

var (
	digits   = regexp.MustCompile(`[0-9]+`)
	lineInfo = regexp.MustCompile(`(?s)\n.*`)
)

// bqFamily normalises a BigQuery error message into a family.
func bqFamily(msg string) string {
	msg = strings.TrimPrefix(msg, "400 ")
	msg = strings.TrimPrefix(msg, "404 ")
	if i := strings.Index(msg, "; reason:"); i >= 0 {
		msg = msg[:i]
	}
	msg = lineInfo.ReplaceAllString(msg, "")
	msg = regexp.MustCompile(` at \[[0-9]+:[0-9]+\]`).ReplaceAllString(msg, "")
	msg = regexp.MustCompile(`"[^"]*"|'[^']*'`).ReplaceAllString(msg, "…")
	switch {
	case strings.HasPrefix(msg, "Syntax error: Expected") && strings.Contains(msg, "WITHIN"):
		return "Syntax error: … WITHIN GROUP"
	case strings.HasPrefix(msg, "Syntax error"):
		return "Syntax error (other)"
	case strings.HasPrefix(msg, "Table ") && strings.Contains(msg, "must be qualified"):
		return "Table must be qualified with a dataset"
	case strings.HasPrefix(msg, "Name ") && strings.Contains(msg, "not found inside"):
		return "Name not found inside table alias"
	case strings.HasPrefix(msg, "Unrecognized name"):
		return "Unrecognized name"
	case strings.HasPrefix(msg, "Function not found"):
		return "Function not found"
	case strings.HasPrefix(msg, "No matching signature for operator") || strings.HasPrefix(msg, "No matching signature for function"):
		m := digits.ReplaceAllString(msg, "N")
		if len(m) > 70 {
			m = m[:70]
		}
		return m
	}
	msg = digits.ReplaceAllString(msg, "N")
	if len(msg) > 90 {
		msg = msg[:90]
	}
	return msg
}

// ourFamily normalises an embedded-engine failure into a family.
func ourFamily(res runResult) string {
	msg := firstLine(res.Err.Error())
	msg = strings.TrimPrefix(msg, "duckdb: ")
	msg = strings.TrimPrefix(msg, string(res.Class)+": ")
	msg = strings.TrimPrefix(msg, "unsupported in the embedded engine: ")
	msg = regexp.MustCompile(` at \[[0-9]+:[0-9]+\]`).ReplaceAllString(msg, "")
	msg = regexp.MustCompile(`"[^"]*"|'[^']*'`).ReplaceAllString(msg, "…")
	msg = digits.ReplaceAllString(msg, "N")
	if len(msg) > 110 {
		msg = msg[:110]
	}
	return res.stage() + ": " + msg
}

// replay runs every recorded query on the engine (two at a time: the
// machine has two cores; the engine holds two connections) and tallies
// agreement with BigQuery.
func replay(ctx context.Context, tb testing.TB, recs []recorded) *agreement {
	eng, _ := demoEngine(tb)
	results := make([]runResult, len(recs))
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for i, r := range recs {
		if !r.Generated {
			continue
		}
		g.Go(func() error {
			results[i] = runQuery(gctx, eng, r.SQL)
			return nil
		})
	}
	_ = g.Wait() // per-query failures are data, not errors
	a := &agreement{
		RanButFailed: map[string][]string{}, RejectedButRan: map[string][]string{}, RejectedHow: map[string]int{},
		RanStages: map[string]int{}, RejectedStages: map[string]int{}, Elapsed: time.Since(start),
	}
	for i, r := range recs {
		a.Total++
		if !r.Generated {
			a.Empty++
			continue
		}
		res := results[i]
		if res.Elapsed > a.Slowest {
			a.Slowest, a.SlowestPath = res.Elapsed, r.Path
		}
		if res.Class == executor.ClassTimeout {
			a.Timeouts++
		}
		if r.Success {
			a.BQRan++
			a.RanStages[res.stage()]++
			if res.Err == nil {
				a.BQRanRuns++
			} else {
				f := ourFamily(res)
				a.RanButFailed[f] = append(a.RanButFailed[f], r.Path)
			}
			continue
		}
		a.BQRejected++
		a.RejectedStages[res.stage()]++
		if res.Err != nil {
			a.BQRejectedAlso++
			a.RejectedHow[bqFamily(r.Error)]++
		} else {
			f := bqFamily(r.Error)
			a.RejectedButRan[f] = append(a.RejectedButRan[f], r.Path)
		}
	}
	return a
}

func (a *agreement) print(w io.Writer, root string) {
	pct := func(n, d int) float64 {
		if d == 0 {
			return 0
		}
		return 100 * float64(n) / float64(d)
	}
	fmt.Fprintf(w, "replayed %d recorded queries (%d with empty final_sql, not run) in %v; %d timeouts; slowest %v (%s)\n",
		a.Total, a.Empty, a.Elapsed.Round(time.Millisecond), a.Timeouts, a.Slowest.Round(time.Millisecond), rel(root, a.SlowestPath))
	fmt.Fprintf(w, "BigQuery ran %d: embedded engine ran %d (%.2f%%) %v\n", a.BQRan, a.BQRanRuns, pct(a.BQRanRuns, a.BQRan), a.RanStages)
	fmt.Fprintf(w, "BigQuery rejected %d: embedded engine rejected %d (%.2f%%) %v\n", a.BQRejected, a.BQRejectedAlso,
		pct(a.BQRejectedAlso, a.BQRejected), a.RejectedStages)
	printGroups(w, root, "BigQuery ran, embedded engine failed, by cause", a.RanButFailed)
	printGroups(w, root, "BigQuery rejected, embedded engine ran, by BigQuery error", a.RejectedButRan)
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return strings.TrimSuffix(r, "/execution_summary.json")
	}
	return p
}

func printGroups(w io.Writer, root, title string, groups map[string][]string) {
	type kv struct {
		k string
		v []string
	}
	var list []kv
	n := 0
	for k, v := range groups {
		list = append(list, kv{k, v})
		n += len(v)
	}
	sort.Slice(list, func(i, j int) bool {
		if len(list[i].v) != len(list[j].v) {
			return len(list[i].v) > len(list[j].v)
		}
		return list[i].k < list[j].k
	})
	fmt.Fprintf(w, "%s (%d):\n", title, n)
	for _, e := range list {
		fmt.Fprintf(w, "  %4d  %s\n", len(e.v), e.k)
		for k, p := range e.v {
			if k == 3 {
				fmt.Fprintf(w, "          …\n")
				break
			}
			fmt.Fprintf(w, "          %s\n", rel(root, p))
		}
	}
}

// BenchmarkBigQueryAgreement measures how often the embedded engine makes
// BigQuery's accept/reject decision on the models' recorded final SQL.
// Targets: >= 97% of BigQuery-accepted queries run; >= 85% of
// BigQuery-rejected queries are rejected.
func BenchmarkBigQueryAgreement(b *testing.B) {
	recs := loadRecorded(b)
	root := shared.Path(b, "clinsql-data", "outputs", "inference")
	demoEngine(b) // build outside the timed loop
	b.ResetTimer()
	var a *agreement
	for range b.N {
		a = replay(context.Background(), b, recs)
	}
	b.StopTimer()
	b.ReportMetric(100*float64(a.BQRanRuns)/float64(a.BQRan), "%bq-ran-runs")
	b.ReportMetric(100*float64(a.BQRejectedAlso)/float64(a.BQRejected), "%bq-rejected-rejects")
	b.ReportMetric(float64(a.Empty), "empty-sql")
	b.ReportMetric(float64(a.Elapsed.Milliseconds())/float64(a.Total-a.Empty), "ms/query")
	a.print(os.Stdout, root)
}
