package duckdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clinsql/clinsql/executor"
)

// Queries run in a worker process: this binary started again, which opens
// the database (local.go) and serves requests over a pipe (serve.go). One
// DuckDB function call can allocate outside DuckDB's buffer manager (its
// memory_limit does not see it) and ignore DuckDB's interrupt for minutes
// (GENERATE_ARRAY(1, 100000000) took 9.2 GB and 86 s under a 5 s timeout,
// issue 25); in-process, nothing can stop it short of the process's death.
// The parent watches the worker and kills it when
//
//   - its resident memory passes the memory limit plus rssSlack: the
//     query is out of memory (see below for which query is charged);
//   - a query has not answered killGrace after its timeout (or after the
//     caller cancelled it): DuckDB did not honour the interrupt;
//   - the engine closes, or this process dies (Pdeathsig).
//
// One worker holds one DuckDB instance for the whole engine, as an
// in-process engine did: its memory_limit is shared by the queries running
// at once, so a large query on a large database still has all of it when
// it runs alone, and the limit holds for the process tree (the parent
// holds no database). The cost is that a kill stops every query in flight.
// Those the kill was not about are run again on a fresh worker, with a
// fresh timeout; nothing is lost. A memory kill cannot tell which query
// grew: with one query in flight it is that query's; with several, each
// is run again alone (no other query beside it), and the one that passes
// the limit alone is charged. Alone also means first on its worker: memory
// an earlier query freed can stay resident (the allocator keeps it, DuckDB
// keeps the blocks it read cached), so a query that passes the line on a
// worker that served others is run again on a fresh one before it is
// charged. On the full MIMIC-IV, gold queries that peak at 1.5 to 1.8 GB
// alone were killed at the 2 GB limit after a dozen others had run.

// rssSlack is how far above the engine's memory limit the worker's
// resident memory may go: DuckDB's limit covers its buffer manager, not
// the code, the Go runtime or the allocator's own overhead (an idle worker
// on the MIMIC-IV demo is about 80 MB).
const rssSlack = 320 << 20

// killGrace is how long a query may run on after its timeout (or its
// caller's cancellation) before the worker is killed: DuckDB answers an
// interrupt within milliseconds, unless one vector operation holds it.
const killGrace = 2 * time.Second

// pollBusy is how often the worker's memory is read while a query runs.
// An allocation loop fills memory at a few GB/s, so 10 ms lets it pass
// the kill line by a few tens of MB at most.
const pollBusy = 10 * time.Millisecond

// startTimeout bounds a worker's start (opening the database, the prelude).
const startTimeout = 2 * time.Minute

// maxRetries bounds how often a query that a kill was not about is run
// again.
const maxRetries = 3

// workerEnv tells a process started by an Engine that it is its worker;
// its value is the protocol version.
const workerEnv = "CLINSQL_DUCKDB_WORKER"

const protocol = "1"

// Reasons a worker was killed (or died).
const (
	killMemory  = "memory"
	killOverdue = "overdue"
	killCrash   = "crash"
	killClosed  = "closed"
)

// killed is the failure of a query whose worker was killed or died.
type killed struct {
	reason string
	msg    string
	// culprit: the kill was about this query. Otherwise it is run again.
	culprit bool
	// suspect: a memory kill or a crash with other queries in flight; the
	// query is run again alone to tell.
	suspect bool
}

func (k *killed) Error() string { return k.msg }

// supervisor runs requests on the engine's worker, starting one when there
// is none (at Open, and after a kill).
type supervisor struct {
	cfg      setup
	memory   int64 // the memory limit, in bytes
	rssLimit int64 // the kill line

	mu     sync.Mutex
	w      *worker
	gen    int
	nextID uint64
	closed bool

	// solo is held for reading by every request and for writing by a
	// suspect run again alone.
	solo sync.RWMutex
}

func newSupervisor(cfg setup, memory int64) *supervisor {
	return &supervisor{cfg: cfg, memory: memory, rssLimit: memory + rssSlack}
}

// start starts a worker if there is none.
func (s *supervisor) start() error {
	_, _, err := s.current()
	return err
}

// current returns the worker, starting one if there is none (spawned).
func (s *supervisor) current() (w *worker, spawned bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, errClosed
	}
	if s.w != nil && !s.w.isDead() {
		return s.w, false, nil
	}
	s.gen++
	cfg := s.cfg
	cfg.TempDir = filepath.Join(s.cfg.TempDir, "w"+strconv.Itoa(s.gen))
	if w, err = spawn(cfg, s.rssLimit); err != nil {
		return nil, false, err
	}
	s.w = w
	return w, true, nil
}

// errClosed fails the queries of a closed engine.
var errClosed = &killed{reason: killClosed, msg: "the engine is closed"}

func (s *supervisor) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// inFlight is the number of requests the current worker is running.
func (s *supervisor) inFlight() int {
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

func (s *supervisor) close() error {
	s.mu.Lock()
	s.closed = true
	w := s.w
	s.w = nil
	s.mu.Unlock()
	if w != nil {
		w.stop()
	}
	return nil
}

// do runs req and returns its result (nil for a check that passed) or its
// error. ctx carries the query's deadline; parent is the caller's context,
// and timeout the engine's, which a query run again after a kill that was
// not about it gets afresh.
func (s *supervisor) do(parent, ctx context.Context, timeout time.Duration, req request) (*executor.Result, error) {
	alone := false
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(parent, timeout)
			defer cancel()
		}
		if alone {
			s.solo.Lock()
		} else {
			s.solo.RLock()
		}
		res, err := s.once(parent, ctx, timeout, req, alone)
		if alone {
			s.solo.Unlock()
		} else {
			s.solo.RUnlock()
		}
		var k *killed
		if !errors.As(err, &k) || k.culprit || k.reason == killClosed {
			return res, err
		}
		if attempt+1 >= maxRetries || parent.Err() != nil {
			return nil, err
		}
		alone = k.suspect
	}
}

// once sends req to the worker and waits for its answer, or for the kill
// that ends it.
func (s *supervisor) once(parent, ctx context.Context, timeout time.Duration, req request, alone bool) (*executor.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w, spawned, err := s.current()
	if err != nil {
		return nil, err
	}
	if spawned {
		// Starting a worker (after a kill) is the engine's time, not the
		// query's: it gets its timeout afresh.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, timeout)
		defer cancel()
	}
	s.mu.Lock()
	s.nextID++
	req.ID = s.nextID
	s.mu.Unlock()
	deadline, ok := ctx.Deadline()
	if !ok {
		return nil, errors.New("duckdb: a request without a deadline")
	}
	req.Timeout = time.Until(deadline)
	if alone && w.used() {
		// A run that decides a charge starts on a fresh worker.
		s.recycle(w)
		if w, _, err = s.current(); err != nil {
			return nil, err
		}
	}
	c := &call{id: req.ID, alone: alone, due: deadline.Add(killGrace), done: make(chan outcome, 1)}
	if err := w.send(c, req); err != nil {
		return nil, err
	}
	var out outcome
	select {
	case out = <-c.done:
	case <-ctx.Done():
		// Out of time, or the caller gave up: the worker interrupts the
		// query; if it has not answered within killGrace the monitor
		// kills it.
		w.cancel(c)
		out = <-c.done
	}
	if out.err != nil && s.isClosed() {
		// Whatever the worker said as it stopped (an interrupt), the
		// query failed because the engine closed.
		return nil, errClosed
	}
	return out.res, out.err
}

// recycle stops w if it is still the current worker, so that the next
// request starts a fresh one.
func (s *supervisor) recycle(w *worker) {
	s.mu.Lock()
	if s.w == w {
		s.w = nil
	}
	s.mu.Unlock()
	w.stop()
}

// call is one request in flight.
type call struct {
	id    uint64
	alone bool
	// first: no request was sent to the worker before this one, so what
	// the worker holds beyond its idle size is this request's.
	first bool
	due   time.Time // guarded by worker.mu
	done  chan outcome
}

type outcome struct {
	res *executor.Result
	err error
}

// worker is one worker process.
type worker struct {
	cmd      *exec.Cmd
	pid      int
	in       *os.File // requests
	out      *os.File // responses
	rssLimit int64
	limit    int64 // response frame limit
	tempDir  string
	stderr   *tail

	wmu sync.Mutex // frame writes

	mu      sync.Mutex
	sent    int // requests sent, ever
	pending map[uint64]*call
	kick    chan struct{} // a request arrived
	dead    bool
	reason  string // why it died, once dead
	exited  chan struct{}
}

// workerExe is the worker's binary: this one.
var workerExe = os.Executable

// spawn starts a worker process and waits for it to open the database.
func spawn(cfg setup, rssLimit int64) (*worker, error) {
	exe, err := workerExe()
	if err != nil {
		return nil, fmt.Errorf("start the engine's worker: %w", err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		respR.Close()
		respW.Close()
		return nil, err
	}
	// A test binary that does not call ServeIfWorker runs no test with
	// this argument and exits; the clinsql binary would refuse it as a
	// command. Either way the handshake fails with a clear error.
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+protocol)
	cmd.ExtraFiles = []*os.File{reqR, respW}
	cmd.Stderr = errW
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Its own process group: a terminal's Ctrl-C reaches the parent,
		// which stops the worker itself.
		Setpgid: true,
		// Killed when the parent dies, even by SIGKILL.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := startLocked(cmd); err != nil {
		for _, f := range []*os.File{reqR, reqW, respR, respW, errR, errW} {
			f.Close()
		}
		return nil, fmt.Errorf("start the engine's worker: %w", err)
	}
	reqR.Close()
	respW.Close()
	errW.Close()
	w := &worker{
		cmd: cmd, pid: cmd.Process.Pid, in: reqW, out: respR, rssLimit: rssLimit,
		limit: frameLimit(cfg.MaxResultBytes), tempDir: cfg.TempDir, stderr: newTail(errR),
		pending: map[uint64]*call{}, kick: make(chan struct{}, 1), exited: make(chan struct{}),
	}
	go func() {
		cmd.Wait()
		close(w.exited)
	}()
	hello := make(chan error, 1)
	go func() {
		err := writeFrame(w.in, cfg)
		if err == nil {
			var h handshake
			if err = readFrame(w.out, 1<<20, &h); err == nil && h.Err != "" {
				err = errors.New(h.Err)
			}
		}
		hello <- err
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case err = <-hello:
	case <-timer.C:
		err = fmt.Errorf("the worker did not open the database within %s", startTimeout)
	}
	if err != nil {
		w.stop()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) {
			err = fmt.Errorf("the engine's worker process exited before it opened the database (does main, or TestMain, call duckdb.ServeIfWorker first?)")
		}
		if t := w.stderr.String(); t != "" {
			err = fmt.Errorf("%w; its error output: %s", err, t)
		}
		return nil, err
	}
	go w.read()
	go w.monitor()
	return w, nil
}

// handshake is the worker's first message: empty Err once the database is
// open.
type handshake struct {
	Err string
}

// spawner starts processes from one OS thread that never exits: Linux
// sends a child its Pdeathsig when the thread that started it exits, not
// the process, and Go may end a thread.
var spawner = sync.OnceValue(func() chan func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread()
		for f := range ch {
			f()
		}
	}()
	return ch
})

func startLocked(cmd *exec.Cmd) error {
	done := make(chan error)
	spawner() <- func() { done <- cmd.Start() }
	return <-done
}

// send registers c and writes its request.
func (w *worker) send(c *call, req request) error {
	w.mu.Lock()
	if w.dead {
		w.mu.Unlock()
		return &killed{reason: w.reason, msg: "the engine's worker stopped"}
	}
	c.first = w.sent == 0
	w.sent++
	w.pending[c.id] = c
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	w.wmu.Lock()
	err := writeFrame(w.in, req)
	w.wmu.Unlock()
	if err != nil {
		// The worker is gone: its death answers c (read sees the pipe close).
		w.die(killCrash)
	}
	return nil
}

// cancel asks the worker to stop c, and gives it killGrace to answer.
func (w *worker) cancel(c *call) {
	w.mu.Lock()
	if due := time.Now().Add(killGrace); due.Before(c.due) {
		c.due = due
	}
	dead := w.dead
	w.mu.Unlock()
	if dead {
		return
	}
	w.wmu.Lock()
	writeFrame(w.in, request{ID: c.id, Op: opCancel})
	w.wmu.Unlock()
}

// read dispatches the worker's responses until its pipe closes.
func (w *worker) read() {
	for {
		var resp response
		err := readFrame(w.out, w.limit, &resp)
		if err != nil {
			reason := killCrash
			if errors.Is(err, errFrameTooLarge) {
				fmt.Fprintf(os.Stderr, "duckdb: worker %d: %v\n", w.pid, err)
			}
			w.die(reason)
			return
		}
		w.mu.Lock()
		c := w.pending[resp.ID]
		delete(w.pending, resp.ID)
		w.mu.Unlock()
		if c == nil {
			continue
		}
		out := outcome{}
		if resp.Err != nil {
			out.err = resp.Err.decode()
		} else if r := resp.Result; r != nil {
			out.res = &executor.Result{Columns: r.Columns, Rows: r.Rows, Truncated: r.Truncated, TotalRows: r.TotalRows, ByteCapped: r.ByteCapped}
			if out.res.Rows == nil {
				out.res.Rows = [][]any{}
			}
		}
		c.done <- out
	}
}

// monitor kills the worker when its memory passes the kill line or a query
// is overdue, reading them every pollBusy while a query is in flight.
func (w *worker) monitor() {
	tick := time.NewTicker(pollBusy)
	defer tick.Stop()
	for {
		w.mu.Lock()
		idle, dead := len(w.pending) == 0, w.dead
		w.mu.Unlock()
		if dead {
			return
		}
		if idle {
			select {
			case <-w.kick:
			case <-w.exited:
				w.die(killCrash)
				return
			}
			continue
		}
		select {
		case <-tick.C:
		case <-w.exited:
			w.die(killCrash)
			return
		}
		if rss, err := residentBytes(w.pid); err == nil && rss > w.rssLimit {
			w.die(killMemory)
			return
		}
		now := time.Now()
		w.mu.Lock()
		overdue := false
		for _, c := range w.pending {
			overdue = overdue || now.After(c.due)
		}
		w.mu.Unlock()
		if overdue {
			w.die(killOverdue)
			return
		}
	}
}

// die kills the worker (once) and answers every request in flight with the
// reason.
func (w *worker) die(reason string) {
	w.mu.Lock()
	if w.dead {
		w.mu.Unlock()
		return
	}
	w.dead, w.reason = true, reason
	pending := w.pending
	w.pending = map[uint64]*call{}
	w.mu.Unlock()
	syscall.Kill(w.pid, syscall.SIGKILL)
	w.in.Close()
	<-w.exited
	w.out.Close()
	os.RemoveAll(w.tempDir)
	now := time.Now()
	for _, c := range pending {
		c.done <- outcome{err: w.verdict(reason, c, len(pending), now)}
	}
}

// verdict says what a kill means for the query c, one of n in flight.
func (w *worker) verdict(reason string, c *call, n int, now time.Time) *killed {
	k := &killed{reason: reason}
	switch reason {
	case killMemory:
		k.culprit = (n == 1 || c.alone) && c.first
		k.suspect = !k.culprit
		k.msg = fmt.Sprintf("the engine's worker passed its memory limit (resident %s)", w.stderrNote())
		if k.culprit {
			k.msg = "the query's memory passed the engine's memory limit and it was stopped"
		}
	case killOverdue:
		k.culprit = now.After(c.due)
		k.msg = "the query did not stop when interrupted and the engine's worker was killed"
	case killCrash:
		k.culprit = c.alone
		k.suspect = !k.culprit
		k.msg = "the engine's worker process exited while running the query"
		if t := w.stderr.String(); t != "" {
			k.msg += ": " + t
		}
	default:
		k.msg = "the engine is closed"
	}
	return k
}

func (w *worker) stderrNote() string {
	if t := w.stderr.String(); t != "" {
		return "; " + t
	}
	return "over the kill line"
}

// used reports whether a request was ever sent to w.
func (w *worker) used() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sent > 0
}

func (w *worker) isDead() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dead
}

// stop ends the worker: its request pipe is closed, so it exits; it is
// killed if it has not within a second.
func (w *worker) stop() {
	w.in.Close()
	select {
	case <-w.exited:
	case <-time.After(time.Second):
	}
	w.die(killClosed)
}

// residentBytes is a process's resident set size (/proc/PID/statm).
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("statm: %q", b)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, err
	}
	return pages * int64(os.Getpagesize()), nil
}

// tail keeps the last bytes a worker wrote to its standard error (a crash's
// message), reading it until it closes.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2 << 10

func newTail(r io.ReadCloser) *tail {
	t := &tail{}
	go func() {
		defer r.Close()
		b := make([]byte, 4<<10)
		for {
			n, err := r.Read(b)
			t.mu.Lock()
			t.buf = append(t.buf, b[:n]...)
			if len(t.buf) > tailBytes {
				t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
			}
			t.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return t
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.buf), ""))
}

// parseSize reads a DuckDB memory size: a number and a unit, B, KB, MB, GB,
// TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), in any case,
// as DuckDB's memory_limit takes it.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, err := strconv.ParseFloat(t[:i], 64)
	if err != nil || num <= 0 {
		return 0, fmt.Errorf("%q is not a size such as 2GB", s)
	}
	units := map[string]float64{
		"": 1, "b": 1, "byte": 1, "bytes": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}
	u, ok := units[strings.ToLower(strings.TrimSpace(t[i:]))]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", s)
	}
	return int64(num * u), nil
}
