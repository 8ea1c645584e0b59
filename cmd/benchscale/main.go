// Command benchscale is `make bench-scale`: the embedded engine at scale on
// synthetic MIMIC-IV (package executor/mimic/synth). For each scale (10k,
// 100k and 364,627 patients by default, a scale skipped when the disk
// cannot hold it) it writes the synthetic CSVs, loads them with DuckDB's
// plain CREATE TABLE AS SELECT * FROM read_csv (the limit of this approach:
// `clinsql db build --plain`), builds the clinsql database (`clinsql db
// build`), runs the 190 validation gold queries (and, with -models, released
// models' SQL) with the executor's default limits (`clinsql exec`), and
// reports build time against the plain load, peak memory (each process's
// maximum resident set), database size and query latency median / p95 /
// max, with the machine's load average sampled during each step (a shared
// machine's numbers say so). Everything it writes goes under -work and is
// deleted after each scale unless -keep.
//
// It runs the clinsql binary (-bin) as a child process per step, so each
// step's peak memory is its own. It is not part of make test or make bench.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clinsql/clinsql/executor/batch"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/executor/mimic/synth"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// Disk a scale needs per patient (measured on synth at 10k: CSV.gz, and
// each DuckDB database; the plain one is deleted before the build).
const (
	csvBytesPerPatient = 60_000
	dbBytesPerPatient  = 95_000
)

type step struct {
	Wall time.Duration `json:"wall_ns"`
	// CPU is user + system time: on a shared machine a fairer comparison
	// of two steps than their wall times.
	CPU      time.Duration `json:"cpu_ns"`
	MaxRSSKB int64         `json:"max_rss_kb"`
	LoadMean float64       `json:"load_mean"`
	LoadMax  float64       `json:"load_max"`
	Output   string        `json:"-"`
}

type queries struct {
	Step      step           `json:"step"`
	Total     int            `json:"total"`
	Succeeded int            `json:"succeeded"`
	ByClass   map[string]int `json:"by_class,omitempty"`
	Median    float64        `json:"median_ms"`
	P95       float64        `json:"p95_ms"`
	Max       float64        `json:"max_ms"`
	OOM       int            `json:"out_of_memory"`
	// MemoryRefused counts queries the engine stopped at its per-query
	// memory limit ("Resources exceeded", class unsupported): the cap
	// held, and the query is not charged to the model.
	MemoryRefused int `json:"memory_refused"`
}

type scaleResult struct {
	Patients int   `json:"patients"`
	Rows     int64 `json:"rows"`
	CSVBytes int64 `json:"csv_bytes"`
	Synth    step  `json:"synth"`
	// SynthReused: the CSVs were an earlier -keep run's (-reuse), so
	// Synth is empty.
	SynthReused bool               `json:"synth_reused,omitempty"`
	Plain       step               `json:"plain"`
	PlainBytes  int64              `json:"plain_bytes"`
	Build       step               `json:"build"`
	DBBytes     int64              `json:"db_bytes"`
	Gold        *queries           `json:"gold,omitempty"`
	Models      map[string]queries `json:"models,omitempty"`
	Skipped     string             `json:"skipped,omitempty"`
}

func main() {
	bin := flag.String("bin", "bin/clinsql", "clinsql binary")
	shared := flag.String("shared", "../shared", "shared data folder (clinsql-data for the gold queries)")
	work := flag.String("work", filepath.Join(os.TempDir(), "clinsql-bench-scale"), "scratch folder (deleted per scale unless -keep)")
	scales := flag.String("scales", "10000,100000,full", "patient counts (full: MIMIC-IV v3.1's 364,627)")
	models := flag.String("models", "", "released models whose validation SQL to run too (comma-separated folder names under outputs/inference)")
	keep := flag.Bool("keep", false, "keep the CSVs and databases")
	reuse := flag.Bool("reuse", false, "reuse a scale's CSVs kept by an earlier -keep run when every table's file is there (synth renames a file into place only when it is complete)")
	out := flag.String("out", "bench-scale.md", "report (Markdown; JSON beside it)")
	threads := flag.Int("threads", 2, "db build --threads and the plain load's DuckDB threads")
	flag.Parse()
	tasks := filepath.Join(*shared, "clinsql-data", "data", "splits", "validation")
	var results []scaleResult
	for _, s := range strings.Split(*scales, ",") {
		n, err := synth.ParsePatients(s)
		if err != nil {
			fail("scale %v", err)
		}
		r := runScale(n, *bin, tasks, *shared, *work, *models, *threads, *keep, *reuse)
		results = append(results, r)
		writeReport(*out, results)
	}
	fmt.Println("report:", *out)
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "benchscale: "+format+"\n", a...)
	os.Exit(1)
}

func freeBytes(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

func runScale(n int, bin, tasks, shared, work, models string, threads int, keep, reuse bool) scaleResult {
	r := scaleResult{Patients: n}
	dir := filepath.Join(work, strconv.Itoa(n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail("%v", err)
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	csv := filepath.Join(dir, "csv")
	r.SynthReused = reuse && allTables(csv)
	need := int64(n) * (csvBytesPerPatient + dbBytesPerPatient)
	if r.SynthReused {
		need = int64(n) * dbBytesPerPatient
	}
	if free := freeBytes(dir); free < need*11/10 {
		r.Skipped = fmt.Sprintf("needs about %.0f GB of disk, %.0f GB free", float64(need)/1e9, float64(free)/1e9)
		fmt.Printf("== %d patients: skipped (%s)\n", n, r.Skipped)
		return r
	}
	if r.SynthReused {
		fmt.Printf("== %d patients: reusing %s\n", n, csv)
	} else {
		fmt.Printf("== %d patients: synth\n", n)
		r.Synth = run(bin, "db", "synth", "--patients", strconv.Itoa(n), "--out", csv, "--quiet")
	}
	r.CSVBytes = dirBytes(csv)
	plain := filepath.Join(dir, "plain.duckdb")
	fmt.Printf("== %d patients: plain DuckDB load\n", n)
	r.Plain = run(bin, "db", "build", "--plain", "--mimic", csv, "--out", plain, "--threads", strconv.Itoa(threads))
	r.PlainBytes = fileBytes(plain)
	os.Remove(plain)
	db := filepath.Join(dir, "mimic.duckdb")
	fmt.Printf("== %d patients: clinsql db build\n", n)
	r.Build = run(bin, "db", "build", "--mimic", csv, "--out", db, "--threads", strconv.Itoa(threads), "--quiet")
	man, err := mimic.ReadManifest(db)
	if err != nil {
		fail("manifest: %v", err)
	}
	r.DBBytes, r.Rows = man.Bytes, man.Rows()
	if _, err := os.Stat(tasks); err == nil {
		fmt.Printf("== %d patients: gold queries\n", n)
		q := runQueries(bin, "--tasks", tasks, "--gold", "--db", db, "--out", filepath.Join(dir, "gold"))
		r.Gold = &q
		for _, m := range strings.Split(models, ",") {
			if m == "" {
				continue
			}
			fmt.Printf("== %d patients: %s's SQL\n", n, m)
			if r.Models == nil {
				r.Models = map[string]queries{}
			}
			r.Models[m] = runQueries(bin, "--tasks", tasks, "--run", filepath.Join(shared, "clinsql-data", "outputs", "inference", m),
				"--db", db, "--out", filepath.Join(dir, "run-"+m))
		}
	}
	return r
}

// allTables reports whether dir holds every hosp and icu table's CSV.gz.
func allTables(dir string) bool {
	for _, t := range mimic.V31.Tables {
		if t.Module == "" {
			continue // derived: built, not loaded
		}
		if st, err := os.Stat(filepath.Join(dir, t.Module, t.Name+".csv.gz")); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

func runQueries(bin string, args ...string) queries {
	st := run(bin, append([]string{"exec"}, args...)...)
	var out string
	for i, a := range args {
		if a == "--out" {
			out = args[i+1]
		}
	}
	b, err := os.ReadFile(filepath.Join(out, batch.SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		// A model's run (exec --run) writes a run folder, not a batch
		// summary.
		return runFolderQueries(out, st)
	}
	if err != nil {
		fail("%v", err)
	}
	var s batch.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		fail("%v", err)
	}
	q := queries{Step: st, Total: s.Total, Succeeded: s.Succeeded, ByClass: map[string]int{}}
	for c, k := range s.ByClass {
		q.ByClass[string(c)] = k
	}
	for _, f := range s.Failures {
		countMemory(&q, f.Error)
	}
	// Latency over every query that ran to an answer or an error of its
	// own: a timeout counts at its timeout.
	var ms []float64
	for _, o := range s.Outcomes {
		ms = append(ms, o.DurationMS)
	}
	q.Median, q.P95, q.Max = percentiles(ms)
	return q
}

// runFolderQueries reads what a model's re-executed run (exec --run) did
// from its run folder: each task's status and its final query's engine time
// (refinefmt's record of the attempt). Tasks whose final query failed are
// counted by the error's class, and those out of memory or stopped at the
// memory limit as in the gold queries' summary.
func runFolderQueries(out string, st step) queries {
	outs, err := runfolder.LoadOutputs(out)
	if err != nil {
		fail("%s: %v", out, err)
	}
	q := queries{Step: st, ByClass: map[string]int{}}
	var ms []float64
	for _, o := range outs {
		if o.Detail == nil {
			fail("%s: no clinsql record of the run (not written by clinsql exec --run)", o.Dir)
		}
		d, err := refinefmt.ParseDetail(o.Detail)
		if err != nil {
			fail("%s: %v", o.Dir, err)
		}
		q.Total++
		if len(d.Attempts) == 0 {
			q.ByClass[d.Status]++
			continue
		}
		a := d.Attempts[len(d.Attempts)-1]
		ms = append(ms, a.ExecMS)
		switch {
		case d.Status == refinefmt.StatusOK || d.Status == refinefmt.StatusEmpty:
			q.Succeeded++
		case a.ErrorClass != "":
			q.ByClass[string(a.ErrorClass)]++
		default:
			q.ByClass[d.Status]++
		}
		countMemory(&q, a.Error)
	}
	q.Median, q.P95, q.Max = percentiles(ms)
	return q
}

// countMemory counts a failed query's error: a process out of memory, or a
// query the engine stopped at its memory limit.
func countMemory(q *queries, msg string) {
	switch {
	case strings.Contains(strings.ToLower(msg), "out of memory"):
		q.OOM++
	case strings.Contains(msg, "Resources exceeded"):
		q.MemoryRefused++
	}
}

// percentiles are the median, 95th percentile and maximum of ms.
func percentiles(ms []float64) (median, p95, max float64) {
	if len(ms) == 0 {
		return 0, 0, 0
	}
	sort.Float64s(ms)
	return ms[len(ms)/2], ms[min(len(ms)-1, len(ms)*95/100)], ms[len(ms)-1]
}

// run runs the binary, streaming its output, and measures its wall time,
// peak memory and the machine's load average meanwhile.
func run(bin string, args ...string) step {
	cmd := exec.CommandContext(context.Background(), bin, args...)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	stop := make(chan struct{})
	var mu sync.Mutex
	var loads []float64
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			if l, ok := loadAvg(); ok {
				mu.Lock()
				loads = append(loads, l)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	close(stop)
	if err != nil {
		fail("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	st := step{Wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		st.MaxRSSKB = ru.Maxrss
	}
	st.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	mu.Lock()
	defer mu.Unlock()
	for _, l := range loads {
		st.LoadMean += l / float64(len(loads))
		st.LoadMax = max(st.LoadMax, l)
	}
	return st
}

// loadAvg is the 1-minute load average.
func loadAvg() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

func fileBytes(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

func gb(n int64) string { return fmt.Sprintf("%.2f", float64(n)/1e9) }

func writeReport(path string, rs []scaleResult) {
	var b strings.Builder
	b.WriteString("# clinsql at scale on synthetic MIMIC-IV (make bench-scale)\n\n")
	fmt.Fprintf(&b, "Targets: build <= 1.2x the plain DuckDB load and <= 20 min at full size; peak memory <= 8 GB; gold p95 <= 10 s, max <= 60 s, none killed for memory. Load average: mean/max of the 1-minute load sampled every 5 s during the step (2 cores here: above 2 the machine was shared).\n\n")
	b.WriteString("| patients | rows | CSV.gz GB | plain load wall (CPU) | build wall (CPU) | ratio wall (CPU) | build peak RSS GB | DB GB (plain GB) | load avg (build) | gold ok | gold median / p95 / max s | exec peak RSS GB | OOM |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %d | skipped: %s |||||||||||\n", r.Patients, r.Skipped)
			continue
		}
		ratio := r.Build.Wall.Seconds() / r.Plain.Wall.Seconds()
		g := "-"
		lat := "-"
		rss := "-"
		oom := "-"
		if r.Gold != nil {
			g = fmt.Sprintf("%d/%d", r.Gold.Succeeded, r.Gold.Total)
			lat = fmt.Sprintf("%.2f / %.2f / %.2f", r.Gold.Median/1000, r.Gold.P95/1000, r.Gold.Max/1000)
			rss = fmt.Sprintf("%.2f", float64(r.Gold.Step.MaxRSSKB)/1e6)
			oom = strconv.Itoa(r.Gold.OOM)
		}
		cpuRatio := r.Build.CPU.Seconds() / r.Plain.CPU.Seconds()
		fmt.Fprintf(&b, "| %d | %d | %s | %v (%v) | %v (%v) | %.2f (%.2f) | %.2f | %s (%s) | %.1f / %.1f | %s | %s | %s | %s |\n",
			r.Patients, r.Rows, gb(r.CSVBytes), r.Plain.Wall.Round(time.Second), r.Plain.CPU.Round(time.Second),
			r.Build.Wall.Round(time.Second), r.Build.CPU.Round(time.Second), ratio, cpuRatio,
			float64(r.Build.MaxRSSKB)/1e6, gb(r.DBBytes), gb(r.PlainBytes), r.Build.LoadMean, r.Build.LoadMax, g, lat, rss, oom)
	}
	for _, r := range rs {
		for m, q := range r.Models {
			fmt.Fprintf(&b, "\n%d patients, %s's SQL: %d/%d ran, median / p95 / max %.2f / %.2f / %.2f s, peak RSS %.2f GB, failures by class %v, OOM %d, stopped at the memory limit %d\n",
				r.Patients, m, q.Succeeded, q.Total, q.Median/1000, q.P95/1000, q.Max/1000, float64(q.Step.MaxRSSKB)/1e6, q.ByClass, q.OOM, q.MemoryRefused)
		}
		if r.Gold != nil && len(r.Gold.ByClass) > 0 {
			fmt.Fprintf(&b, "\n%d patients, gold failures by class: %v, stopped at the memory limit %d\n", r.Patients, r.Gold.ByClass, r.Gold.MemoryRefused)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fail("%v", err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		fail("%v", err)
	}
	j, _ := json.MarshalIndent(rs, "", "  ")
	if err := os.WriteFile(strings.TrimSuffix(path, filepath.Ext(path))+".json", j, 0o644); err != nil {
		fail("%v", err)
	}
}
