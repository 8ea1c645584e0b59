package hostile

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// The hostile queries of issue 25: items 9 (one DuckDB function call), 11
// (nesting), and one that no value cap covers (a 5 GB string built by an
// aggregate), which only the engine's worker process bounds.
var duckQueries = []struct{ name, sql string }{
	{"select_1", "SELECT 1 AS n"}, // the baseline: start-up and one query
	{"generate_array", "SELECT ARRAY_LENGTH(GENERATE_ARRAY(1, 100000000)) AS n"},
	{"repeat", "SELECT LENGTH(REPEAT('x', 2000000000)) AS n"},
	{"format", "SELECT LENGTH(FORMAT('%2000000000d', 1)) AS n"},
	{"lpad", "SELECT LENGTH(LPAD('x', 2000000000, 'y')) AS n"},
	{"nested_100k", "SELECT " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000) + " AS n"},
	{"string_agg_5gb", "SELECT LENGTH(STRING_AGG(REPEAT('x', 1000000), '')) AS n FROM UNNEST(GENERATE_ARRAY(1, 5000))"},
}

// Item 10: SQLite.
var sqliteQueries = []struct{ name, sql string }{
	{"hex_zeroblob", "SELECT hex(zeroblob(300000000))"},
}

// Limits of the measured runs.
const (
	timeout  = 5 * time.Second // --timeout of clinsql exec and generate
	ehrsqlTO = 10 * time.Second
	// The SIGTERM scenario's signal: termAfter into clinsql exec (or once
	// the tree's memory passes termRSS, the query growing); termAfterCall
	// after the fake model's first answer in a generation.
	termAfter     = 8 * time.Second
	termRSS       = 300 << 20
	termAfterCall = 2 * time.Second
	watchdogRSS   = 4 << 30
	watchdogWall  = 200 * time.Second
	apiKeyEnv     = "HOSTILE_TEST_KEY"
)

func BenchmarkHostile(b *testing.B) {
	bin := binary(b)
	db := demoDB(b, bin)
	for _, q := range duckQueries {
		file := filepath.Join(b.TempDir(), q.name+".sql")
		if err := os.WriteFile(file, []byte(q.sql), 0o644); err != nil {
			b.Fatal(err)
		}
		args := []string{"exec", "--db", db, "--timeout", timeout.String(), "--sql-file", file}
		b.Run("exec/"+q.name, func(b *testing.B) { measure(b, bin, args, nil, 0, nil) })
		term := []string{"exec", "--db", db, "--timeout", "120s", "--sql-file", file}
		b.Run("exec-sigterm/"+q.name, func(b *testing.B) { measure(b, bin, term, nil, termAfter, nil) })
	}
	tasks := shared.Path(b, "clinsql-data", "data", "splits", "validation")
	for _, q := range duckQueries {
		generate(b, bin, "generate", q.name, q.sql, false, func(models, out string) []string {
			return []string{"generate", "--models", models, "--tasks", tasks, "--limit", "8", "--concurrency", "8",
				"--db", db, "--timeout", timeout.String(), "--out", out, "--quiet"}
		})
	}
	ehrsql := shared.Path(b, "ehrsql-2024")
	for _, q := range sqliteQueries {
		generate(b, bin, "ehrsql", q.name, q.sql, true, func(models, out string) []string {
			return []string{"generate", "--benchmark", "ehrsql", "--data-dir", ehrsql, "--split", "valid", "--limit", "4",
				"--concurrency", "4", "--models", models, "--timeout", ehrsqlTO.String(), "--out", out, "--quiet"}
		})
	}
}

// generate measures a generation whose model answers every prompt with
// sql: once to its end, once with SIGTERM.
func generate(b *testing.B, bin, scenario, name, sql string, ehrsql bool, args func(models, out string) []string) {
	for _, term := range []time.Duration{0, termAfter} {
		s := scenario
		if term > 0 {
			s += "-sigterm"
		}
		b.Run(s+"/"+name, func(b *testing.B) {
			out := b.TempDir()
			models, answered := modelsFile(b, sql, ehrsql)
			measure(b, bin, args(models, out), []string{apiKeyEnv + "=k"}, term, answered)
			reportQueries(b, out)
		})
	}
}

// reportQueries reports the longest query time the run's files record
// (exec_ms of every attempt, in execution_summary.json and EHRSQL's item
// records): the query's own time, without the process's start-up, and
// their count.
func reportQueries(b *testing.B, out string) {
	var longest float64
	n := 0
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") || strings.Contains(path, "llm-cache") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, m := range execMS.FindAllSubmatch(data, -1) {
			if v, err := strconv.ParseFloat(string(m[1]), 64); err == nil {
				longest, n = max(longest, v), n+1
			}
		}
		return nil
	})
	b.ReportMetric(longest/1000, "s-query-max")
	b.ReportMetric(float64(n), "queries-recorded")
}

var execMS = regexp.MustCompile(`"exec_ms":\s*([0-9.]+)`)

// binary is $CLINSQL_BIN, or clinsql built from this module.
func binary(b *testing.B) string {
	if bin := os.Getenv("CLINSQL_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "clinsql")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/clinsql/clinsql/cmd/clinsql")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// demoDB is $HOSTILE_DB, or the MIMIC-IV demo built by the binary.
func demoDB(b *testing.B, bin string) string {
	if db := os.Getenv("HOSTILE_DB"); db != "" {
		return db
	}
	db := filepath.Join(b.TempDir(), "demo.duckdb")
	cmd := exec.Command(bin, "db", "build", "--mimic", shared.Path(b, "mimic-iv-demo"), "--out", db, "--quiet")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("db build: %v\n%s", err, out)
	}
	return db
}

// modelsFile starts a fake model that answers every prompt with sql and
// writes a models file naming it: one model, no fix rounds. answered is
// closed at the model's first answer.
func modelsFile(b *testing.B, sql string, ehrsql bool) (path string, answered <-chan struct{}) {
	first := make(chan struct{})
	var once sync.Once
	reply := llmtest.Text("```sql\n" + sql + "\n```")
	srv := llmtest.Start(b, func(*llmtest.Call) llmtest.Reply {
		once.Do(func() { close(first) })
		return reply
	}, llmtest.Options{APIKey: "k"})
	extra := ""
	if ehrsql {
		extra = "    strategies: [model]\n"
	}
	yaml := fmt.Sprintf("models:\n  - name: hostile\n    kind: openai\n    base_url: %s\n    model: hostile\n    api_key_env: %s\n"+
		"    sampling: {temperature: 0, max_tokens: 256}\n    limits: {concurrency: 8, timeout: 600s}\n    rounds: 0\n%s",
		srv.OpenAIBaseURL(), apiKeyEnv, extra)
	path = filepath.Join(b.TempDir(), "models.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, first
}

// measure runs the binary once per iteration and reports what run returns.
func measure(b *testing.B, bin string, args, env []string, term time.Duration, answered <-chan struct{}) {
	for i := 0; i < b.N; i++ {
		r := run(b, bin, args, env, term, answered)
		b.ReportMetric(r.wall.Seconds(), "s-wall")
		b.ReportMetric(float64(r.treePeak)/(1<<20), "MiB-tree-peak")
		b.ReportMetric(float64(r.maxRSS)/(1<<20), "MiB-max-process")
		if term > 0 {
			b.ReportMetric(r.afterTerm.Seconds(), "s-after-SIGTERM")
		}
		killed := 0.0
		if r.watchdog != "" {
			killed = 1
		}
		b.ReportMetric(killed, "watchdog-kills")
		b.Logf("exit %d%s; %s", r.exit, r.watchdog, r.tail)
	}
}

type result struct {
	wall, afterTerm  time.Duration
	treePeak, maxRSS int64
	exit             int
	watchdog, tail   string
}

// run starts the binary, samples its process tree's memory, sends SIGTERM
// (when term is set: see termAfter; termAfterCall after answered is
// closed, when it is given), kills the tree when the watchdog's limits are
// passed, and waits for it.
func run(b *testing.B, bin string, args, env []string, term time.Duration, answered <-chan struct{}) result {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &bytes.Buffer{}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pid := cmd.Process.Pid
	var r result
	var mu sync.Mutex
	done := make(chan struct{})
	var termAt, answeredAt time.Time
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			pids := tree(pid)
			var sum int64
			for _, p := range pids {
				sum += rss(p)
			}
			mu.Lock()
			r.treePeak = max(r.treePeak, sum)
			if answered != nil && answeredAt.IsZero() {
				select {
				case <-answered:
					answeredAt = time.Now()
				default:
				}
			}
			due := time.Since(start) >= term || sum > termRSS
			if answered != nil {
				due = !answeredAt.IsZero() && time.Since(answeredAt) >= termAfterCall
			}
			if term > 0 && termAt.IsZero() && due {
				termAt = time.Now()
				syscall.Kill(pid, syscall.SIGTERM)
			}
			if r.watchdog == "" && (sum > watchdogRSS || time.Since(start) > watchdogWall) {
				r.watchdog = fmt.Sprintf(" (killed by the watchdog: %d MiB after %s)", sum>>20, time.Since(start).Round(time.Second))
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
			mu.Unlock()
		}
	}()
	cmd.Wait() // the exit code is read below; a signal's death is -1
	r.wall = time.Since(start)
	close(done)
	mu.Lock()
	defer mu.Unlock()
	if !termAt.IsZero() {
		r.afterTerm = time.Since(termAt)
	}
	r.exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss << 10
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	r.tail = lines[len(lines)-1]
	if len(r.tail) > 300 {
		r.tail = r.tail[:300] + "…"
	}
	return r
}

// tree is pid and its descendants (read from /proc's parent links).
func tree(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name, which may hold spaces.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// rss is a process's resident memory in bytes (0 once it is gone).
func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n * int64(os.Getpagesize())
}
