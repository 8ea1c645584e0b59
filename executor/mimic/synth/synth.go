package synth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/clinsql/clinsql/executor/mimic"
)

// FullPatients is the number of patients of MIMIC-IV v3.1: Options.Patients
// at this value gives a dataset of MIMIC-IV's size (about 886 million rows,
// 433 million of them in icu/chartevents).
const FullPatients = mimic.V31Patients

// ParsePatients reads a patient count as the command line gives it: a
// positive whole number, or "full" for FullPatients.
func ParsePatients(s string) (int, error) {
	if s == "full" {
		return FullPatients, nil
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n < 1 || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("%q: want a positive whole number or \"full\"", s)
	}
	return n, nil
}

// Options configure [Write].
type Options struct {
	// Patients is the number of patients (>= 1); FullPatients for MIMIC-IV's size.
	Patients int
	// Seed selects the dataset: the same seed and patient count give the
	// same files, byte for byte, whatever Workers is.
	Seed uint64
	// Out is the folder to write hosp/ and icu/ into (created if needed).
	Out string
	// Workers bounds the goroutines generating and compressing (default
	// runtime.NumCPU()).
	Workers int
	// Level is the gzip level (default 1, gzip.BestSpeed: the files are
	// written once and read once).
	Level int
	// Progress, when set, receives one line per table written.
	Progress io.Writer
}

// TableReport says what was written for one table.
type TableReport struct {
	File     string        `json:"file"` // relative to Out, e.g. "icu/chartevents.csv.gz"
	Rows     int64         `json:"rows"`
	Bytes    int64         `json:"bytes"` // compressed
	Duration time.Duration `json:"duration_ns"`
}

// Report is the outcome of [Write].
type Report struct {
	Out      string        `json:"out"`
	Patients int           `json:"patients"`
	Seed     uint64        `json:"seed"`
	Tables   []TableReport `json:"tables"`
	Rows     int64         `json:"rows"`
	Bytes    int64         `json:"bytes"`
	Duration time.Duration `json:"duration_ns"`
}

// rowsPerChunk sizes the unit of parallel work: a chunk of patients is
// generated and compressed into one gzip member, and members are written in
// order, so the file does not depend on how many workers made it.
const rowsPerChunk = 400_000

type generator struct {
	seed     uint64
	patients int
	level    int
}

// worker holds one goroutine's scratch state.
type worker struct {
	*generator
	spcg  *rand.PCG
	srand *rand.Rand
	p     patient
}

func (g *generator) newWorker() *worker {
	pcg := rand.NewPCG(0, 0)
	return &worker{generator: g, spcg: pcg, srand: rand.New(pcg)}
}

// Write generates a synthetic MIMIC-IV v3.1 of opts.Patients patients as
// PhysioNet-layout CSV.gz files: every hosp and icu table of [mimic.V31],
// with the schema's columns in order. Each file is written under a
// temporary name and renamed when complete; a table whose file already
// exists is written again.
func Write(ctx context.Context, opts Options) (*Report, error) {
	start := time.Now()
	if opts.Patients < 1 {
		return nil, fmt.Errorf("synth: %d patients (want at least 1)", opts.Patients)
	}
	if opts.Out == "" {
		return nil, errors.New("synth: no output folder")
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.Level == 0 {
		opts.Level = gzip.BestSpeed
	}
	g := &generator{seed: opts.Seed, patients: opts.Patients, level: opts.Level}
	specs, err := tablesFor(mimic.V31)
	if err != nil {
		return nil, err
	}
	// Largest first, so the long tables start while there is most to overlap.
	sort.SliceStable(specs, func(i, j int) bool { return g.expectedRows(specs[i]) > g.expectedRows(specs[j]) })
	rep := &Report{Out: opts.Out, Patients: opts.Patients, Seed: opts.Seed}
	for _, t := range specs {
		tr, err := g.writeTable(ctx, opts, t)
		if err != nil {
			return nil, err
		}
		rep.Tables = append(rep.Tables, tr)
		rep.Rows += tr.Rows
		rep.Bytes += tr.Bytes
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "%-32s %12d rows %8.1f MB  %v\n", tr.File, tr.Rows, float64(tr.Bytes)/1e6, tr.Duration.Round(time.Millisecond))
		}
	}
	sort.Slice(rep.Tables, func(i, j int) bool { return rep.Tables[i].File < rep.Tables[j].File })
	rep.Duration = time.Since(start)
	return rep, nil
}

func (g *generator) expectedRows(t *table) float64 {
	if t.dict != nil {
		return float64(t.fixed)
	}
	return t.perPatient * float64(g.patients)
}

// chunks splits the patients into ranges of about rowsPerChunk rows.
func (g *generator) chunks(t *table) [][2]int {
	if t.dict != nil {
		return [][2]int{{0, 0}}
	}
	size := max(1, int(rowsPerChunk/max(t.perPatient, 1e-3)))
	var out [][2]int
	for from := 0; from < g.patients; from += size {
		out = append(out, [2]int{from, min(from+size, g.patients)})
	}
	return out
}

type chunkResult struct {
	data []byte
	rows int64
	err  error
}

func (g *generator) writeTable(ctx context.Context, opts Options, t *table) (TableReport, error) {
	start := time.Now()
	rel := filepath.ToSlash(filepath.Join(t.module, t.name+".csv.gz"))
	tr := TableReport{File: rel}
	path := filepath.Join(opts.Out, t.module, t.name+".csv.gz")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return tr, fmt.Errorf("synth: %w", err)
	}
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return tr, fmt.Errorf("synth: %w", err)
	}
	defer func() {
		if f != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	chunks := g.chunks(t)
	// Ordered parallel map: chunk i's result is written before chunk i+1's,
	// and at most 2*Workers chunks are in memory at once.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan chunkResult, len(chunks))
	for i := range results {
		results[i] = make(chan chunkResult, 1)
	}
	next := make(chan int)
	window := make(chan struct{}, 2*opts.Workers)
	go func() {
		defer close(next)
		for i := range chunks {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range min(opts.Workers, len(chunks)) {
		go func() {
			w := g.newWorker()
			for i := range next {
				data, rows, err := w.chunk(t, i, chunks[i])
				results[i] <- chunkResult{data, rows, err}
			}
		}()
	}
	for i := range chunks {
		var res chunkResult
		select {
		case res = <-results[i]:
		case <-ctx.Done():
			return tr, ctx.Err()
		}
		<-window
		if res.err != nil {
			return tr, fmt.Errorf("synth: %s: %w", rel, res.err)
		}
		n, err := f.Write(res.data)
		tr.Bytes += int64(n)
		if err != nil {
			return tr, fmt.Errorf("synth: %w", err)
		}
		tr.Rows += res.rows
	}
	err = f.Close()
	f = nil
	if err != nil {
		os.Remove(tmp)
		return tr, fmt.Errorf("synth: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return tr, fmt.Errorf("synth: %w", err)
	}
	tr.Duration = time.Since(start)
	return tr, nil
}

// chunk generates the rows of one chunk of patients (the header too for the
// first) as one gzip member, from a stream seeded by the table and chunk.
func (w *worker) chunk(t *table, i int, span [2]int) ([]byte, int64, error) {
	h := fnv.New64a()
	h.Write([]byte(t.module + "/" + t.name))
	r := rand.New(rand.NewPCG(w.seed^h.Sum64(), uint64(i)))
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, w.level)
	if err != nil {
		return nil, 0, err
	}
	rw := &row{first: true, buf: make([]byte, 0, 1<<18)}
	if i == 0 {
		rw.buf = append(rw.buf, strings.Join(t.columns, ",")...)
		rw.buf = append(rw.buf, '\n')
	}
	flush := func() error {
		_, err := zw.Write(rw.buf)
		rw.buf = rw.buf[:0]
		return err
	}
	if t.dict != nil {
		t.dict(r, rw)
	} else {
		for idx := span[0]; idx < span[1]; idx++ {
			w.skeleton(&w.p, idx)
			t.patient(r, &w.p, rw)
			if len(rw.buf) >= 1<<18 {
				if err := flush(); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, 0, err
	}
	if err := zw.Close(); err != nil {
		return nil, 0, err
	}
	return out.Bytes(), rw.rows, nil
}
