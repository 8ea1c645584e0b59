package llm

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/clinsql/clinsql/internal/safefile"
)

// SpendingFile is the name of a folder's spending record, written by a
// [Meter] opened with [OpenMeter].
const SpendingFile = "spending.jsonl"

// maxSpendLine bounds one line of a spending file: records are a few
// hundred bytes, so anything longer is damage, not data.
const maxSpendLine = 64 << 10

// compactAbove is the size past which a spending file is compacted when a
// meter opens or closes it: its settled lines are replaced by one summary
// line, so that a start reads what one run appended, not every run's.
var compactAbove int64 = 1 << 20

// spendRecord is one line of a spending file. A "reserve" line is written
// and fsynced before its request is sent; the matching "settle" line
// replaces the reservation with what the attempt cost. A reservation
// without its settle line (the process was killed while the request was in
// flight) counts at its full amount for ever: the provider may have billed
// it, and nothing says otherwise. A "summary" line, only ever the first,
// stands for the settled lines a compaction replaced.
type spendRecord struct {
	Op   string    `json:"op"` // "summary", "open", "reserve" or "settle"
	ID   string    `json:"id,omitempty"`
	Time time.Time `json:"time"`
	// open: the process that opened the file and its cap.
	PID       int     `json:"pid,omitempty"`
	BudgetUSD float64 `json:"budget_usd,omitempty"`
	// reserve: the worst case of the attempt.
	Endpoint string `json:"endpoint,omitempty"`
	Model    string `json:"model,omitempty"`
	// reserve: estimated prompt tokens and the token cap; settle: the
	// reported usage.
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	// WorstUSD (reserve) prices the worst case at list prices; USD is what
	// was reserved (WorstUSD scaled by the overrun factor), on a settle
	// line what the attempt is charged, on a summary line what the settled
	// attempts it replaced were charged.
	WorstUSD float64 `json:"worst_usd,omitempty"`
	USD      float64 `json:"usd"`
	// Usage (settle) says where the charge comes from: "reported" by the
	// provider, "none" (nothing was sent, or the provider answered with an
	// error status), "unknown" (sent, but no usable reply: charged at the
	// reservation, or at the usage known if that is more).
	Usage string `json:"usage,omitempty"`
	// Overrun (settle): the reported usage cost more than the reservation.
	Overrun bool `json:"overrun,omitempty"`
	// Batch (reserve): a request sent through the batch API, priced at the
	// batch share; Journal names the batch journal that lists it (its
	// path relative to the folder), so that a reservation no batch was
	// ever prepared for is recognised and released (see
	// Meter.releaseUnprepared).
	Batch   bool   `json:"batch,omitempty"`
	Journal string `json:"journal,omitempty"`
	// summary: the settled attempts and the runs it stands for, and per
	// model the largest overrun and the attempts whose reported usage fit
	// their reservation.
	Attempts int                `json:"attempts,omitempty"`
	Runs     int                `json:"runs,omitempty"`
	Factors  map[string]float64 `json:"factors,omitempty"`
	Trusted  map[string]int     `json:"trusted,omitempty"`
}

// FolderSpending is what a folder's spending file held when a [Meter]
// opened it.
type FolderSpending struct {
	// SpentUSD is every reconciled attempt's charge plus every
	// reservation never reconciled.
	SpentUSD float64
	// Runs counts the processes that opened the file before.
	Runs int
	// Attempts counts the reconciled requests.
	Attempts int
	// Unreconciled counts the requests in flight when an earlier process
	// died; UnreconciledUSD, their reservations, is part of SpentUSD.
	Unreconciled    int
	UnreconciledUSD float64
	// Overrun is the largest ratio of an attempt's reported cost to its
	// worst case at list prices (1: usage never exceeded the cap sent).
	// A model's reservations are scaled by its own largest ratio.
	Overrun float64
	// Recovered, when not empty, says that the file ended in a line cut
	// short, where, and what was done with it (see [OpenMeter]).
	Recovered string
	// Compacted counts the lines a summary line replaced when the meter
	// opened the file (0: none).
	Compacted int
	factors   map[string]float64 // by model
	trusted   map[string]int     // by model
	// open are the unreconciled reservations, by id: a later process that
	// learns what one cost settles it (Meter.settleOrphan).
	open map[string]*reservation
}

// spendState is what a spending file's lines add up to: read back from
// the file, then kept up to date by every line appended, so that a
// compaction writes exactly what the lines said.
type spendState struct {
	settled  float64
	attempts int
	runs     int
	factors  map[string]float64     // by model: the largest overrun
	trusted  map[string]int         // by model: settled within their reservation
	open     map[string]spendRecord // reserve lines not settled, by id
	lines    int
}

func newSpendState() *spendState {
	return &spendState{factors: map[string]float64{}, trusted: map[string]int{}, open: map[string]spendRecord{}}
}

func finite(v float64) bool { return v >= 0 && !math.IsNaN(v) && !math.IsInf(v, 0) }

// apply checks one record against what came before and adds it; the
// error says what is wrong (the caller names the file and line).
func (s *spendState) apply(rec spendRecord) error {
	if !finite(rec.USD) || !finite(rec.WorstUSD) {
		return errors.New("usd must be a non-negative number")
	}
	first := s.lines == 0
	s.lines++
	switch rec.Op {
	case "summary":
		if !first {
			return errors.New("a summary line may only be the first line")
		}
		if rec.Attempts < 0 || rec.Runs < 0 {
			return errors.New("summary counts must not be negative")
		}
		for m, f := range rec.Factors {
			if !finite(f) || f < 1 {
				return fmt.Errorf("summary factor of model %q must be a number of at least 1", m)
			}
		}
		for m, n := range rec.Trusted {
			if n < 0 {
				return fmt.Errorf("summary count of model %q must not be negative", m)
			}
		}
		s.settled, s.attempts, s.runs = rec.USD, rec.Attempts, rec.Runs
		maps.Copy(s.factors, rec.Factors)
		maps.Copy(s.trusted, rec.Trusted)
	case "open":
		s.runs++
	case "reserve":
		if _, dup := s.open[rec.ID]; dup || rec.ID == "" {
			return fmt.Errorf("reservation id %q is empty or used twice", rec.ID)
		}
		s.open[rec.ID] = rec
	case "settle":
		r, ok := s.open[rec.ID]
		if !ok {
			return fmt.Errorf("settles %q, which has no open reservation", rec.ID)
		}
		delete(s.open, rec.ID)
		s.settled += rec.USD
		s.attempts++
		if rec.Overrun && r.WorstUSD > 0 {
			s.factors[r.Model] = max(s.factors[r.Model], rec.USD/r.WorstUSD)
		}
		if rec.Usage != usageNone && rec.Usage != "" && rec.USD <= r.USD*(1+1e-9) {
			s.trusted[r.Model]++ // as Meter.settle counts it
		}
	default:
		return fmt.Errorf("unknown op %q", rec.Op)
	}
	return nil
}

// folder is the state as a FolderSpending, its open reservations as
// orphans (their process is gone).
func (s *spendState) folder() FolderSpending {
	st := FolderSpending{SpentUSD: s.settled, Runs: s.runs, Attempts: s.attempts, Overrun: 1,
		factors: maps.Clone(s.factors), trusted: maps.Clone(s.trusted), open: map[string]*reservation{}}
	for _, f := range s.factors {
		st.Overrun = max(st.Overrun, f)
	}
	for id, r := range s.open {
		st.Unreconciled++
		st.UnreconciledUSD += r.USD
		st.open[id] = &reservation{id: id, usd: r.USD, worst: r.WorstUSD, batch: r.Batch, orphan: true,
			model: r.Model, endpoint: r.Endpoint, journal: r.Journal}
	}
	st.SpentUSD += st.UnreconciledUSD
	return st
}

// encode is the state as a compacted file: one summary line, then the
// open reservations' own lines.
func (s *spendState) encode() ([]byte, error) {
	var b bytes.Buffer
	sum := spendRecord{Op: "summary", Time: time.Now().UTC(), USD: s.settled, Attempts: s.attempts, Runs: s.runs,
		Factors: s.factors, Trusted: s.trusted}
	for _, rec := range append([]spendRecord{sum}, s.openLines()...) {
		line, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		b.Write(append(line, '\n'))
	}
	return b.Bytes(), nil
}

func (s *spendState) openLines() []spendRecord {
	out := slices.Collect(maps.Values(s.open))
	slices.SortFunc(out, func(a, b spendRecord) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return bytes.Compare([]byte(a.ID), []byte(b.ID))
	})
	return out
}

// spendFile is an open spending file, locked against other processes.
type spendFile struct {
	d    *safefile.Dir
	f    *os.File
	path string
	st   *spendState
	size int64 // bytes in the file
}

// openSpendFile opens (creating) the spending file of d, takes an
// exclusive lock on it and reads it. A last line cut short is dropped and
// reported (FolderSpending.Recovered); a file past compactAbove is
// compacted.
func openSpendFile(d *safefile.Dir) (*spendFile, FolderSpending, error) {
	path := d.Join(SpendingFile)
	var f *os.File
	for try := 0; ; try++ {
		var err error
		if f, err = d.OpenFile(SpendingFile, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
			return nil, FolderSpending{}, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, FolderSpending{}, fmt.Errorf("%s is in use by another process: one process at a time may spend from a folder", path)
			}
			return nil, FolderSpending{}, fmt.Errorf("lock %s: %w", path, err)
		}
		// The process that held the lock may have compacted the file
		// (a new file renamed over the name) between our open and our
		// lock: the lock must be on the file the name holds now.
		if same, err := holds(d, SpendingFile, f); err != nil || same {
			if err != nil {
				f.Close()
				return nil, FolderSpending{}, err
			}
			break
		}
		f.Close()
		if try == 10 {
			return nil, FolderSpending{}, fmt.Errorf("%s keeps being replaced while it is opened", path)
		}
	}
	sf := &spendFile{d: d, f: f, path: path}
	var tail *cutLine
	var err error
	sf.st, sf.size, tail, err = readSpending(f, path)
	if err == nil && tail != nil {
		if tail.kept {
			// A whole record missing only its newline.
			_, err = f.Write([]byte("\n"))
			sf.size++
		} else {
			err = f.Truncate(sf.size)
		}
	}
	if err != nil {
		f.Close()
		return nil, FolderSpending{}, err
	}
	compacted := 0
	if sf.size > compactAbove {
		compacted = sf.st.lines
		if err := sf.compact(); err != nil {
			sf.f.Close()
			return nil, FolderSpending{}, err
		}
	}
	st := sf.st.folder()
	st.Compacted = compacted
	if tail != nil {
		st.Recovered = tail.note(path)
	}
	return sf, st, nil
}

// holds reports whether name in d is the file f.
func holds(d *safefile.Dir, name string, f *os.File) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := d.Lstat(name)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// cutLine is a last line without its newline.
type cutLine struct {
	line   int
	offset int64
	bytes  int
	kept   bool // it holds a whole record and was kept
}

// note says what happened to a cut line and why that is safe.
func (c *cutLine) note(path string) string {
	if c.kept {
		return fmt.Sprintf("%s: the last line (line %d, at byte %d) lacked its newline; it holds a whole record and was kept", path, c.line, c.offset)
	}
	return fmt.Sprintf("%s: the last line (line %d, at byte %d, %d bytes) is cut short and was dropped. "+
		"A line is written in one piece, so only a crash during the write, a full disk or a copy cut short leaves one: "+
		"a reservation cut short was never synced, so its request was never sent; a settlement cut short leaves its reservation counting in full. "+
		"If the file was cut (a partial copy), the lines after the cut are lost and the record may say less than was spent",
		path, c.line, c.offset, c.bytes)
}

// readSpending replays a spending file: what it adds up to, and the
// length of its whole lines. Damage other than a last line cut short is an
// error naming the file and line.
func readSpending(r io.Reader, path string) (*spendState, int64, *cutLine, error) {
	st := newSpendState()
	br := bufio.NewReaderSize(r, maxSpendLine)
	var valid int64
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return st, valid, nil, fmt.Errorf("%s: line %d: longer than %d bytes", path, line, maxSpendLine)
		}
		if err != nil && err != io.EOF {
			return st, valid, nil, fmt.Errorf("%s: %w", path, err)
		}
		if err == io.EOF && len(b) == 0 {
			return st, valid, nil, nil
		}
		var rec spendRecord
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		derr := dec.Decode(&rec)
		if err == io.EOF {
			// No newline: a record whose newline alone is missing is
			// kept; anything else is a line cut short.
			cut := &cutLine{line: line, offset: valid, bytes: len(b)}
			if derr == nil && !dec.More() {
				if derr = st.apply(rec); derr == nil {
					cut.kept = true
					valid += int64(len(b))
				}
			}
			return st, valid, cut, nil
		}
		if derr != nil {
			return st, valid, nil, fmt.Errorf("%s: line %d: %v", path, line, derr)
		}
		if err := st.apply(rec); err != nil {
			return st, valid, nil, fmt.Errorf("%s: line %d: %v", path, line, err)
		}
		valid += int64(len(b))
	}
}

// Where a settle line's charge comes from.
const (
	usageReported = "reported"
	usageNone     = "none"
	usageUnknown  = "unknown"
)

// append writes one record as one line (one write call, so a killed process
// leaves whole lines or a torn last one) and adds it to the state.
func (s *spendFile) append(rec spendRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	n, err := s.f.Write(append(b, '\n'))
	s.size += int64(n)
	if err != nil {
		return fmt.Errorf("record spending in %s: %w", s.path, err)
	}
	_ = s.st.apply(rec) // this process's ids are unique: it cannot fail
	return nil
}

func (s *spendFile) sync() error {
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("record spending in %s: %w", s.path, err)
	}
	return nil
}

// compact replaces the file with its state (a summary line and the open
// reservations): written to a new file, synced, locked, renamed over the
// old one and the folder synced, so that at every instant the name holds
// either file whole and the lock is never let go (a process that opened
// the old file finds it replaced and opens the new one; see holds).
func (s *spendFile) compact() error {
	data, err := s.st.encode()
	if err != nil {
		return err
	}
	f, tmp, err := s.d.TempFile("", SpendingFile)
	if err != nil {
		return fmt.Errorf("compact %s: %w", s.path, err)
	}
	fail := func(err error) error {
		f.Close()
		s.d.Remove(tmp)
		return fmt.Errorf("compact %s: %w", s.path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fail(err)
	}
	if err := s.d.Rename(tmp, SpendingFile); err != nil {
		return fail(err)
	}
	if err := s.d.Sync(); err != nil {
		// Renamed but maybe not on disk: lines appended to the new file
		// could be lost with it after a power loss. Stop here.
		f.Close()
		return fmt.Errorf("compact %s: %w", s.path, err)
	}
	s.f.Close()
	s.f = f
	s.size = int64(len(data))
	st := newSpendState()
	for _, rec := range append([]spendRecord{{Op: "summary", USD: s.st.settled, Attempts: s.st.attempts, Runs: s.st.runs,
		Factors: s.st.factors, Trusted: s.st.trusted}}, s.st.openLines()...) {
		_ = st.apply(rec)
	}
	s.st = st
	return nil
}

// close compacts a file that grew past compactAbove and releases it.
func (s *spendFile) close() error {
	var err error
	if s.size > compactAbove {
		err = s.compact()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.d.Close()
	return err
}

// OpenMeter returns a meter whose spending is recorded in dir's
// [SpendingFile] and accumulates over every process that opens it:
// budgetUSD > 0 caps what the folder will ever have spent, not what one
// process spends. The file is locked while the meter is open (a second
// process is refused); Close releases it.
//
// The file is opened with package safefile: a symbolic link, a FIFO or a
// device in its place is refused, never followed or waited on. A last
// line cut short (a crash during its write) is dropped and reported in
// [FolderSpending].Recovered; other damage is an error naming the line.
// A file past 1 MiB is compacted (its settled lines replaced by one
// summary line) when it is opened or closed, so a start reads at most
// what the last run appended.
func OpenMeter(dir string, prices Prices, budgetUSD float64) (*Meter, error) {
	d, err := safefile.MkdirAll(dir)
	if err != nil {
		return nil, err
	}
	sf, st, err := openSpendFile(d)
	if err != nil {
		d.Close()
		return nil, err
	}
	m := NewMeter(prices, budgetUSD)
	m.journal, m.resumed = sf, st
	if m.dir, err = filepath.Abs(dir); err != nil {
		m.dir = dir
	}
	m.spent = st.SpentUSD
	maps.Copy(m.factor, st.factors)
	maps.Copy(m.trusted, st.trusted)
	m.orphans = maps.Clone(st.open)
	if err := sf.append(spendRecord{Op: "open", Time: time.Now().UTC(), PID: os.Getpid(), BudgetUSD: budgetUSD}); err != nil {
		sf.close()
		return nil, err
	}
	return m, nil
}

// newToken returns a random prefix for reservation ids, unique per meter so
// that processes sharing a file over time never reuse an id.
func newToken() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
